"""The format of the ``jurybox`` command's log lines."""

from __future__ import annotations

import logging

__all__ = ["SafeFormatter"]


class SafeFormatter(logging.Formatter):
    """Log lines with terminal control characters shown as escapes: a log message may quote
    what a server sent (an error body, its model names), which must never steer the
    terminal (:func:`jurybox.terminal.safe_text`; newlines and tabs kept for tracebacks)."""

    def format(self, record: logging.LogRecord) -> str:
        from ..terminal import safe_text

        return safe_text(super().format(record), newlines=True)
