"""The CLI's lowest module: the consoles, terminal detection, one-line messages and the
default cache path, for every other ``cli`` module (no import of them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from ..terminal import safe_text

__all__ = ["_error", "_isatty", "console", "default_cache", "err_console", "warn"]


# Logs and CI are not terminals; give tables room there instead of rich's 80 columns.
def _isatty(stream: Any) -> bool:
    """A stream is a terminal (False for a closed or missing one: ``jurybox ... >&-``)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (OSError, ValueError):
        return False


console = Console(width=None if _isatty(sys.stdout) else 176)
err_console = Console(stderr=True)


def _error(message: str) -> None:
    """One line on stderr, never wrapped or marked up; a URL's secrets hidden and control
    characters quoted from data shown as escapes (:func:`jurybox.terminal.safe_text`)."""
    from ..providers.urls import redact_text  # never print credentials from a URL

    print(f"error: {safe_text(redact_text(' '.join(message.split())))}", file=sys.stderr)


def warn(message: str) -> None:
    """One ``warning:`` line on stderr, as :func:`_error` writes its line."""
    from ..providers.urls import redact_text

    print(f"warning: {safe_text(redact_text(' '.join(message.split())))}", file=sys.stderr)


def default_cache() -> Path:
    """``$JURYBOX_CACHE``, else ``$XDG_CACHE_HOME/jurybox/cache.sqlite`` (~/.cache)."""
    if os.environ.get("JURYBOX_CACHE"):
        return Path(os.environ["JURYBOX_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "jurybox" / "cache.sqlite"
