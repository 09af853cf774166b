"""Logging set-up of the ``jurybox`` command: ``JURYBOX_LOG_LEVEL`` read and checked (without
importing :mod:`logging`: ``jurybox --help`` needs the check, not the logging), and the log
handler installed when a command runs (:func:`install_logging`)."""

from __future__ import annotations

from ..errors import ConfigError

__all__ = ["DEFAULT_LEVEL", "LEVELS", "install_logging", "log_level"]

#: The level when ``JURYBOX_LOG_LEVEL`` is unset or empty.
DEFAULT_LEVEL = "WARNING"
#: The levels ``JURYBOX_LOG_LEVEL`` takes (any case).
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: Their numbers, as :mod:`logging` defines them.
_NUMBERS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}


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
    return _NUMBERS[name]


def install_logging(level: int) -> None:
    """Log to stderr at ``level``, each line made safe for the terminal
    (:class:`~jurybox.cli._log_format.SafeFormatter`)."""
    import logging

    from ._log_format import SafeFormatter

    handler = logging.StreamHandler()
    handler.setFormatter(SafeFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
