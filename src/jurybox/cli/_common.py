"""Shared CLI plumbing: error handling, exit codes, the command classes, default paths."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from ..errors import BatchFilesWritten, JuryboxError
from ._compose import option_groups
from ._console import console, err_console
from ._environment import bad_parameter_message, name_variables
from ._panels import PANEL_ORDER, PANEL_START, envvar_by_rule
from ..terminal import safe_text

__all__ = ["CONTEXT_SETTINGS", "EXIT_BAD_INPUT", "EXIT_INTERRUPTED", "EXIT_NOTHING_JUDGED",
           "EXIT_PARTIAL", "JuryboxCommand", "OneLineErrors", "console", "default_cache",
           "default_out", "envvar_by_rule", "err_console", "exit_for_status", "fail_cleanly",
           "grouped_command",
           "judged_by", "print_warnings", "warn", "warning_lines"]

try:  # typer >= 0.2x vendors click; older versions use click itself
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
    from typer._click.globals import get_current_context
except ImportError:  # pragma: no cover
    from click.exceptions import ClickException, NoArgsIsHelpError  # type: ignore[no-redef,assignment,unused-ignore]
    from click.globals import get_current_context  # type: ignore[no-redef,assignment,unused-ignore]


#: Exit codes of every judging command (the README lists them).
EXIT_NOTHING_JUDGED = 1  # every call failed
EXIT_BAD_INPUT = 2  # a bad file, option or endpoint: one line on stderr, before any call
EXIT_PARTIAL = 3  # finished, but some items have no decision (run.json status "partial")
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGTERM: 143); rerun the same command to resume


def fail_cleanly(fn: Callable) -> Callable:
    """Run a command; a JuryboxError or bad value becomes one line on stderr and exit 2
    (naming the ``JURYBOX_`` variable that set an option it is about), Ctrl-C or SIGTERM a
    note on how to resume and exit 130 or 143."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with warning_lines():
                return fn(*args, **kwargs)
        except BatchFilesWritten as exc:  # --batch-files: the round waits outside jurybox
            print(f"\n{exc}", file=sys.stderr)
            raise typer.Exit(0) from None
        except (JuryboxError, ValueError) as exc:  # naming a variable that set the value
            _error(name_variables(_validation_message(exc) or str(exc),
                                  get_current_context(silent=True)))
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except KeyboardInterrupt as exc:
            signum = getattr(exc, "signum", signal.SIGINT)
            print(f"\ninterrupted ({signal.Signals(signum).name}): everything finished so far "
                  f"is saved; run the same command again to resume.", file=sys.stderr)
            raise typer.Exit(EXIT_INTERRUPTED + signum - signal.SIGINT) from None
    return wrapper


def grouped_command(fn: Callable) -> Callable:
    """A command whose parameters include option groups (:func:`._compose.option_groups`),
    failing cleanly (:func:`fail_cleanly`): bench, judge, personalize, rank, score."""
    return fail_cleanly(option_groups(fn))


@contextlib.contextmanager
def warning_lines() -> Iterator[None]:
    """Inside: the library's warnings a command's user acts on, each one ``warning:`` line
    on stderr as it happens, in the command's words (``OrdersCappedWarning``: ``--k 7
    asks for more orders than 3 candidates have ...``), once per command; other warnings
    as Python shows them."""
    from ..protocols.permutations import OrdersCappedWarning

    with warnings.catch_warnings():
        warnings.simplefilter("default", OrdersCappedWarning)  # once per text and place
        shown, said = warnings.showwarning, set()  # a jury's judges warn alike: once

        def show(message: Warning | str, category: type[Warning], *args: Any,
                 **kwargs: Any) -> None:
            if isinstance(message, OrdersCappedWarning):
                if (text := message.text(f"--k {message.k}")) not in said:
                    said.add(text)
                    warn(text)
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = show
        yield


def _validation_message(exc: BaseException) -> str | None:
    """A pydantic ValidationError (a ValueError) as one line, or None for any other error.
    pydantic is only consulted when something has imported it already: an error cannot come
    from a module that was never loaded (and ``jurybox --help`` does not load pydantic)."""
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(exc, pydantic.ValidationError):
        return None
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}"
                         for e in exc.errors())
    return f"invalid {exc.title} setting: {problems}"


class OneLineErrors(TyperGroup):
    """The app's command group: a usage error that typer would draw in a box (an option out
    of range such as ``--k 0``, a bad choice, a missing argument, an unknown command or
    option) is the one-line ``error:`` form with its exit code (2), like every other bad
    input; ``--help``, ``--version`` and the commands' own exits are unchanged."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        except NoArgsIsHelpError as exc:  # the help was printed; exit as typer does
            sys.exit(exc.exit_code)
        except ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            _error(f"{bad_parameter_message(exc) or exc.format_message()}{hint}")
            sys.exit(exc.exit_code)
        except typer.Abort:
            print("aborted", file=sys.stderr)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)  # an Exit's code, or 0 when done


#: ``-h`` is ``--help`` in every command (the app's context settings; subcommands inherit them).
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


class JuryboxCommand(TyperCommand):
    """Every command's class: its ``--help`` draws the option panels in one order
    (``_panels.PANEL_ORDER``), shows an option's environment variable only
    when it is not named by the rule (:func:`envvar_by_rule`, stated in the help's epilog),
    and no ``<bool>`` type beside a flag such as ``-h, --help`` (a flag takes no value)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rank = {panel: i for i, panel in enumerate(PANEL_ORDER)}
        # panels in the same order in every command (typer draws them in the order of their
        # first option); arguments keep their order, options keep theirs within a panel
        self.params.sort(key=lambda p: -2 if p.param_type_name == "argument" else rank.get(
            getattr(p, "rich_help_panel", None) or "", -1))
        for param in self.params:
            if getattr(param, "is_flag", False) and param.metavar is None:
                param.metavar = ""  # a flag takes no value: no "<bool>" beside it
            names = [o for o in param.opts if o.startswith("--")]
            if names and param.envvar == envvar_by_rule(names[0]):
                param.show_envvar = False  # type: ignore[attr-defined]

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
            if any(getattr(p, "rich_help_panel", None) == PANEL_START for p in self.params):
                # the first panel a judging command shows holds what a first run needs, and
                # --help with it (typer would draw a panel of --help alone above it)
                option.rich_help_panel = PANEL_START
        return option


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


def default_out(kind: str, config: dict) -> Path:
    """``runs/<kind>-<dataset>-<model>-<hash of config>``: the same command reuses (and
    resumes) the same folder, a changed one gets a new folder."""
    import hashlib
    import json

    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()
    name = f"{kind}-{Path(str(config.get('dataset', 'data'))).stem}-" \
           f"{str(config.get('model', 'model')).replace('/', '_')}-{digest[:8]}"
    return Path("runs") / name


def judged_by(result: Any, model: str) -> str:
    """Who judged a run, as its summary line says: ``SIMULATED (model)`` for the simulated
    judge, else the run's judge (``result.judge``)."""
    return f"SIMULATED ({model})" if result.simulated else result.judge


def print_warnings(result: Any) -> None:
    """A run's warnings (``RunReport.warnings``: what its results cannot be trusted for), one
    ``warning:`` line each on stderr."""
    for warning in getattr(result, "warnings", ()):
        warn(warning)


def exit_for_status(result: Any, *, strict: bool = True,
                    nothing_judged: bool | None = None) -> None:
    """After the summary is shown: exit 1 when nothing was judged (every call failed), and
    say how many units have no decision when the run is partial (exit 3 when ``strict``).

    ``result`` is a RunReport; ``nothing_judged`` None: a bench summary with no judged
    protocol counts as nothing judged (a summary whose accuracy counts every decided item;
    a judge run, whose accuracy counts only labelled items, says it itself)."""
    protocols = getattr(result.summary, "protocols", None)
    if nothing_judged is None:
        nothing_judged = isinstance(protocols, dict) and bool(protocols) and all(
            getattr(s, "accuracy", None) is not None and s.accuracy.n == 0
            for s in protocols.values())
    if nothing_judged:
        _error(f"no item was judged: every call failed; the raw answers and errors are in "
               f"{result.out / 'calls.jsonl'}")
        raise typer.Exit(EXIT_NOTHING_JUDGED)
    failed = result.failed_units
    if failed.units:
        from ..reports.notes import partial_note  # the report says it in the same words

        print(safe_text(partial_note(failed.units, failed.api, result.n_units)),
              file=sys.stderr)
        if strict:
            raise typer.Exit(EXIT_PARTIAL)

