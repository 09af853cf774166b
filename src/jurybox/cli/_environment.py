"""Errors about a value that came from a ``JURYBOX_`` environment variable name that variable.

An option's value may come from its flag or from its variable; the checks are the same
(click's type and range checks, the command's own), and so is the message, with the
variable named when the value came from it: a user who never typed ``--k`` is told to look
at ``JURYBOX_K``. A variable the command does not read is never consulted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["FLAG_VALUES", "bad_parameter_message", "name_variables"]

#: What an on/off flag's variable takes (the flag's own parser, any case).
FLAG_VALUES = "1, true, yes, on or 0, false, no, off"


def _environment_params(ctx: Any) -> Iterator[tuple[Any, str, str]]:
    """``(param, variable, raw value)`` of each option of ``ctx`` whose value came from its
    environment variable (the first non-empty one, as click reads them)."""
    for param in getattr(getattr(ctx, "command", None), "params", ()):
        variable = _source_variable(ctx, param)
        if variable is not None:
            yield param, variable, os.environ[variable]


def _source_variable(ctx: Any, param: Any) -> str | None:
    """The variable ``param``'s value came from in ``ctx``, or None (a flag, a default)."""
    try:
        source = ctx.get_parameter_source(param.name or "")
    except (AttributeError, KeyError):  # pragma: no cover - a context without sources
        return None
    if getattr(source, "name", None) != "ENVIRONMENT":  # typer may carry its own click
        return None
    names = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar or ())
    return next((v for v in names if os.environ.get(v)), None)


def bad_parameter_message(exc: Any) -> str | None:
    """A click ``BadParameter`` (a value of the wrong type or out of range) whose value came
    from an environment variable, as one message naming the variable and its value (for an
    on/off flag, the values it takes); None for any other error."""
    ctx, param = getattr(exc, "ctx", None), getattr(exc, "param", None)
    if ctx is None or param is None or not getattr(exc, "message", None):
        return None
    variable = _source_variable(ctx, param)
    if variable is None:
        return None
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")] or [param.name]
    message = f"Invalid value for '{opts[0]}' (from {variable}={os.environ[variable]!r}): " \
              f"{exc.message}"
    if getattr(param, "is_flag", False):
        message += f"; {variable} takes {FLAG_VALUES} (or empty for unset)"
    return message


def name_variables(message: str, ctx: Any) -> str:
    """``message`` (a command's error) with ``(from JURYBOX_X)`` appended for each option
    of ``ctx`` set from its variable that the message is about: it names the option's flag
    (``--sim-bias must be ...``) or shows the variable's value (``unknown protocol
    'garbage'``, ``garbage: jury file not found``). A message naming the variable already,
    or about no such option, is unchanged."""
    named = []
    for param, variable, raw in _environment_params(ctx):
        if variable in message:
            continue
        flags = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
        if any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", message) for f in flags) or \
                _shows(message, raw.strip()):
            named.append(variable)
    return message if not named else f"{message} (from {', '.join(named)})"


def _shows(message: str, value: str) -> bool:
    """``value`` is shown in ``message``: quoted (``'garbage'``), or, holding a letter and
    three characters or more, as a word of its own (a path, ``garbage: not found``; a number
    such as ``1`` or ``10`` is too common in messages to say)."""
    if not value:
        return False
    if repr(value) in message:
        return True
    return len(value) >= 3 and re.search(r"[^\W\d_]", value) is not None and re.search(
        rf"(?<![\w/.-]){re.escape(value)}(?![\w/-]|\.\w)", message) is not None
