"""Every CLI option's words from one table, ``options.toml`` beside this module: its ``--help``
text, metavar, ``--help`` panel and environment variable. The code keeps what is code: an
option's type (the ``Annotated`` alias or parameter), range and parser::

    Seed = Annotated[int, declared("--seed", min=0, max=MAX_SEED)]

A key is ``--flag`` for an option several commands share, ``command --flag`` for one command's
own and ``command param`` for a command's argument. The table is read once, when the first
command module is imported (``jurybox --help`` alone does not read it).
"""

from __future__ import annotations

import functools
import tomllib
from importlib.resources import files
from typing import Any

import typer

from . import _panels
from ._panels import envvar_by_rule

__all__ = ["argument", "declared", "help_of", "used_keys"]

#: The entries declared so far in this process (a test checks every entry is used).
_USED: set[str] = set()


@functools.cache
def _table() -> dict[str, dict[str, str]]:
    return tomllib.loads(files(__package__).joinpath("options.toml").read_text("utf-8"))


def _entry(key: str) -> dict[str, str]:
    try:
        return _table()[key]
    except KeyError:
        raise KeyError(f"{key!r} is not in jurybox/cli/options.toml") from None


def help_of(key: str, fill: dict[str, Any] | None = None) -> str:
    """The help text of ``key`` (``help_as``: another entry's), its ``{NAME}`` fields filled
    from ``fill`` when given (str.format: ``{MAX:,}`` groups thousands).

    Raises:
        KeyError: no such entry (a typo in the code: the tests import every command).
    """
    entry = _entry(key)
    text = _entry(entry["help_as"])["help"] if "help_as" in entry else entry["help"]
    return text.format_map(fill) if fill is not None else text


def used_keys() -> frozenset[str]:
    """The table's entries the imported command modules declared."""
    return frozenset(_USED)


def _words(key: str, fill: dict[str, Any] | None) -> dict[str, Any]:
    entry = _entry(key)
    _USED.add(key)
    words: dict[str, Any] = {"help": help_of(key, fill)}
    if "metavar" in entry:
        words["metavar"] = entry["metavar"]
    if "panel" in entry:
        words["rich_help_panel"] = getattr(_panels, f"PANEL_{entry['panel'].upper()}")
    return words


def declared(key: str, *aliases: str, fill: dict[str, Any] | None = None,
             **settings: Any) -> Any:
    """The typer option of table entry ``key`` (``--seed`` or ``bench --protocols``): its
    flags are the key's last word (``--texts/--no-texts`` for a flag pair) and ``aliases``
    (``-o``), its variable by the rule (``--sim-seed``: ``JURYBOX_SIM_SEED``) unless the
    entry names one; ``settings``: typer's own (``min``, ``parser``, ...).

    Raises:
        KeyError: no such entry.
    """
    flags = key.rsplit(" ", 1)[-1]
    envvar = _entry(key).get("envvar", envvar_by_rule(flags.split("/")[0]))
    return typer.Option(flags, *aliases, envvar=envvar, **_words(key, fill), **settings)


def argument(key: str, *, fill: dict[str, Any] | None = None, **settings: Any) -> Any:
    """The typer argument of table entry ``command param`` (``rank path``).

    Raises:
        KeyError: no such entry.
    """
    envvar = _entry(key).get("envvar")
    if envvar:
        settings["envvar"] = envvar
    return typer.Argument(**_words(key, fill), **settings)
