"""Names of a package loaded on first use, so importing one small module of a package does not
import the whole package (``jurybox --help`` reads option defaults without the engine, the
HTTP client or scipy).

A package's ``__init__`` lists what it exports and where each name lives::

    __getattr__, __dir__ = lazy_exports(__name__, {"Engine": ".engine", ...})

and imports the same names under ``if TYPE_CHECKING:`` for type checkers. ``from jurybox.run
import Engine`` then imports ``jurybox.run.engine`` at that moment (PEP 562 module
``__getattr__``); the value is stored in the package, so later lookups are plain attribute reads.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: dict[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``.

    Args:
        package: the package's ``__name__``.
        exports: exported name -> the submodule defining it, relative (``".engine"``), or
            ``".module:attribute"`` when the name is exported under another name.

    Raises (from the returned ``__getattr__``):
        AttributeError: a name the package does not export (as a plain module would).
    """
    def __getattr__(name: str) -> Any:
        try:
            where = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        module, _, attribute = where.partition(":")
        value = getattr(importlib.import_module(module, package), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
