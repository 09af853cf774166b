"""Logging set-up of the ``jurybox`` command: ``JURYBOX_LOG_LEVEL`` read and checked."""

from __future__ import annotations

import logging

from ..errors import ConfigError

__all__ = ["DEFAULT_LEVEL", "LEVELS", "SafeFormatter", "log_level"]

#: The level when ``JURYBOX_LOG_LEVEL`` is unset or empty.
DEFAULT_LEVEL = "WARNING"
#: The levels ``JURYBOX_LOG_LEVEL`` takes (any case).
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class SafeFormatter(logging.Formatter):
    """Log lines with terminal control characters shown as escapes: a log message may quote
    what a server sent (an error body, its model names), which must never steer the
    terminal (:func:`jurybox.terminal.safe_text`; newlines and tabs kept for tracebacks)."""

    def format(self, record: logging.LogRecord) -> str:
        from ..terminal import safe_text

        return safe_text(super().format(record), newlines=True)


def log_level(value: str | None) -> int:
    """The logging level named by ``JURYBOX_LOG_LEVEL``'s value: one of :data:`LEVELS` in
    any case, surrounding blanks ignored; unset or empty means :data:`DEFAULT_LEVEL`.

    Raises:
        ConfigError: any other value (the message lists the levels).

    >>> log_level(" info "), log_level(""), log_level(None)
    (20, 30, 30)
    """
    name = (value or "").strip().upper() or DEFAULT_LEVEL
    if name not in LEVELS:
        raise ConfigError(f"JURYBOX_LOG_LEVEL must be one of {', '.join(LEVELS)} (or empty for "
                          f"{DEFAULT_LEVEL}), got {value!r}")
    level: int = getattr(logging, name)
    return level
