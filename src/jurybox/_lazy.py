"""Names of a package loaded on first use, so importing one small module of a package does not
import the whole package (``jurybox --help`` reads option defaults without the engine, the
HTTP client or scipy).

A package's ``__init__`` imports what it exports under ``if TYPE_CHECKING:`` (for type
checkers, and as the one list of where each name lives), and then::

    __getattr__, __dir__ = lazy_exports(__name__)

``from jurybox.run import Engine`` then imports ``jurybox.run.engine`` at that moment (PEP 562
module ``__getattr__``), the module the ``TYPE_CHECKING`` block imports ``Engine`` from; the
value is stored in the package, so later lookups are plain attribute reads. The block is read
from the package's source (:mod:`ast`, once, on the first lookup), so the names are declared
once.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports", "type_checking_exports"]


def type_checking_exports(source: str) -> dict[str, str]:
    """The names a package's source imports under ``if TYPE_CHECKING:`` (or
    ``typing.TYPE_CHECKING``): exported name -> its relative module (``".engine"``), or
    ``".module:attribute"`` for ``from .module import attribute as name``."""
    exports: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for item in node.body:
                if isinstance(item, ast.ImportFrom) and item.level == 1 and item.module:
                    for alias in item.names:
                        where = "." + item.module
                        exports[alias.asname or alias.name] = where + (
                            f":{alias.name}" if alias.asname else "")
    return exports


def lazy_exports(package: str, exports: dict[str, str] | None = None
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``.

    Args:
        package: the package's ``__name__``.
        exports: exported name -> the submodule defining it, relative (``".engine"``), or
            ``".module:attribute"`` when the name is exported under another name; None (the
            rule): read from the package's ``if TYPE_CHECKING:`` imports
            (:func:`type_checking_exports`) on first use.

    Raises (from the returned ``__getattr__``):
        AttributeError: a name the package does not export (as a plain module would).
    """
    found: dict[str, str] | None = exports

    def names() -> dict[str, str]:
        nonlocal found
        if found is None:
            source = Path(sys.modules[package].__file__ or "").read_text(encoding="utf-8")
            found = type_checking_exports(source)
        return found

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # __path__, __wrapped__, ...: never a lazy export
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            where = names()[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        module, _, attribute = where.partition(":")
        value = getattr(importlib.import_module(module, package), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names()))

    return __getattr__, __dir__
