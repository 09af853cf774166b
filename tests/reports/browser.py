"""Headless Chromium for the report tests: the Debian package ``chromium`` (or Chrome),
driven with ``--dump-dom`` (the DOM after the page's scripts ran) and ``--screenshot``."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Rendered", "find_chromium", "render", "screenshot"]

_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The browser's path, or None when none is installed."""
    return next((p for p in map(shutil.which, _NAMES) if p), None)


@dataclass(frozen=True)
class Rendered:
    dom: str
    console: list[str]  # the page's console messages (errors, uncaught exceptions, logs)


def _base(browser: str, profile: Path) -> list[str]:
    args = [browser, "--headless", "--disable-gpu", "--no-first-run",
            f"--user-data-dir={profile}", "--disable-extensions", "--disable-sync"]
    if os.geteuid() == 0:  # Chromium refuses to run as root with its sandbox
        args.append("--no-sandbox")
    return args


def render(browser: str, url: str, profile: Path, timeout: float = 90) -> Rendered:
    """The DOM of ``url`` after its scripts ran, and every console message it logged."""
    done = subprocess.run([*_base(browser, profile), "--enable-logging=stderr", "--v=0",
                           "--dump-dom", url], capture_output=True, text=True,
                          timeout=timeout, check=True)
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return Rendered(done.stdout, console)


def screenshot(browser: str, url: str, path: Path, profile: Path, *,
               size: str = "1280,2000", timeout: float = 90) -> Path:
    subprocess.run([*_base(browser, profile), f"--screenshot={path}", f"--window-size={size}",
                    "--hide-scrollbars", url], capture_output=True, timeout=timeout,
                   check=True)
    return path
