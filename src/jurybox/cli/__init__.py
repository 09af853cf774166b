"""The ``jurybox`` command line: thin commands over the library.

The commands load lazily (:class:`._lazy.LazyGroup`): ``jurybox --help`` and ``jurybox
--version`` import no command's module, and ``jurybox CMD`` imports CMD's alone; command
modules import the library inside the command functions.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from .._version import __version__
from ..errors import ConfigError
from ._common import CONTEXT_SETTINGS, EXIT_BAD_INPUT, _error
from ._lazy import LazyGroup
from ._logging import DEFAULT_LEVEL, install_logging, log_level
from ._panels import ENV_EPILOG

__all__ = ["app", "main"]

app = typer.Typer(help="jurybox: robust, reproducible LLM-as-a-judge evaluation.",
                  rich_markup_mode="markdown", cls=LazyGroup, epilog=ENV_EPILOG,
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  context_settings=CONTEXT_SETTINGS)


def _version(value: bool) -> None:
    if value:
        print(f"jurybox {__version__}")
        raise typer.Exit()


# The root's one option is declared here, not in options.toml: `jurybox --help` reads no table.
@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the jurybox version and exit.")] = False) -> None:
    """jurybox: robust, reproducible LLM-as-a-judge evaluation."""


# The commands are not registered here: LazyGroup (cli/_lazy.py) lists them and imports a
# command's module only when that command runs or shows its help.


def main() -> None:
    """Console-script entry point (garbage-collector tuning happens when a run starts).

    A bad ``JURYBOX_LOG_LEVEL`` is one ``error:`` line and exit 2; ``--help`` and
    ``--version`` still answer (after a ``warning:`` line, at the default level)."""
    try:
        level = log_level(os.environ.get("JURYBOX_LOG_LEVEL"))
    except ConfigError as exc:
        if not {"-h", "--help", "--version"} & set(sys.argv[1:]) and len(sys.argv) > 1:
            _error(str(exc))
            sys.exit(EXIT_BAD_INPUT)
        print(f"warning: {exc}; using {DEFAULT_LEVEL}", file=sys.stderr)
        level = log_level(None)
    _printable_streams()
    if not set(sys.argv[1:]) <= {"-h", "--help", "--version"}:  # the help logs nothing
        install_logging(level)
    try:
        app()
    except OSError as exc:  # stdout gone (a closed pipe) or full (/dev/full): not a traceback
        _silence_stdout()
        if not isinstance(exc, BrokenPipeError):
            _error(f"cannot write the output: {exc.strerror or exc}")
        sys.exit(EXIT_OUTPUT_FAILED)


#: Exit code when the output itself cannot be written (a closed pipe, a full device); what the
#: command did (a run directory, the cache) is kept as usual.
EXIT_OUTPUT_FAILED = 1


def _printable_streams() -> None:
    """Standard output and error that cannot encode every character (``LANG=C``,
    ``PYTHONIOENCODING=ascii``) write an escape for what they cannot show instead of failing
    with UnicodeEncodeError; a closed one (``>&-``) is replaced by /dev/null."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
            continue
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding not in ("utf8", "utf16", "utf32") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
