"""The consoles every command prints through: ``console`` (stdout) and ``err_console``.

A module of its own (it imports only rich), so the progress display and the shared plumbing
both use it without importing each other.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console

__all__ = ["console", "err_console", "isatty"]


def isatty(stream: Any) -> bool:
    """A stream is a terminal (False for a closed or missing one: ``jurybox ... >&-``)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (OSError, ValueError):
        return False


# Logs and CI are not terminals; give tables room there instead of rich's 80 columns, unless
# COLUMNS says how wide (``COLUMNS=80 jurybox score llmbar | less``; rich reads it).
console = Console(width=None if isatty(sys.stdout) or os.environ.get("COLUMNS", "").isdigit()
                  else 176)
err_console = Console(stderr=True)
