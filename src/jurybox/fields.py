"""Type checks of configuration fields, in one place, naming the field.

The library's settings objects (:class:`~jurybox.JudgeConfig`, :class:`~jurybox.BenchConfig`,
:class:`~jurybox.PersonalizeConfig`, :class:`~jurybox.run.RunOptions`) are dataclasses whose
annotations say what each field takes. :func:`check_fields` holds every field to its
annotation when the object is made, so ``judge(items, k=2.5)`` or ``criteria=5`` is one
:class:`~jurybox.errors.ConfigError` naming the field, not a TypeError or AttributeError from
deep inside a run. ``bool`` is not accepted where an integer or a number is (``k=True``), and
text must be encodable as UTF-8 (:func:`text_problem`: a command-line argument that is not
UTF-8 arrives as lone surrogates, which no file could hold).

What a field's value may be (its range, its choices beyond a ``Literal``) is checked where it
is used; this module checks only the kind of value.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from .errors import ConfigError

__all__ = ["check_arguments", "check_fields", "text_problem"]


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be written as UTF-8 (None when it can): the first lone surrogate,
    with its place. A surrogate U+DC80-U+DCFF is how Python carries a byte that was not
    UTF-8 (a command-line argument, an environment variable): it is named as that byte.

    >>> text_problem("caf\\udce9 au lait")
    'is not UTF-8 text: byte 0xe9 at byte offset 3 (line 1)'
    >>> text_problem("a\\nb\\ud800")
    'holds a lone surrogate U+D800 (UTF-8 cannot encode it) at character 3 (line 2)'
    >>> text_problem("plain"), text_problem("日本語")
    (None, None)
    """
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as exc:
        start = exc.start
    prefix, char = text[:start], ord(text[start])
    line = prefix.count("\n") + 1
    if 0xDC80 <= char <= 0xDCFF:
        return (f"is not UTF-8 text: byte 0x{char - 0xDC00:02x} at byte offset "
                f"{len(prefix.encode('utf-8'))} (line {line})")
    return (f"holds a lone surrogate U+{char:04X} (UTF-8 cannot encode it) at character "
            f"{start} (line {line})")


def check_fields(obj: Any) -> None:
    """Hold every field of the dataclass ``obj`` to its annotation (see the module
    docstring); a list given for a ``tuple[...]`` field is stored as a tuple.

    Raises:
        ConfigError: the first field whose value is of another kind, naming the field, what
            it takes and what it got (``k must be an integer, got 2.5 (float)``).
    """
    cls: Any = type(obj)
    for name, hint in _hints(cls).items():
        value = getattr(obj, name)
        fixed = _check(name, hint, value)
        if fixed is not value:
            object.__setattr__(obj, name, fixed)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _options(hint: Any) -> tuple[Any, ...]:
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return get_args(hint)
    return (hint,)


def _check(name: str, hint: Any, value: Any) -> Any:
    """``value`` (a list made a tuple for a tuple field) when it fits ``hint``, else a
    ConfigError naming ``name``."""
    for option in _options(hint):
        fitted = _fit(name, option, value)
        if fitted is not _NO:
            return fitted
    raise ConfigError(f"{name} must be {' or '.join(_describe(o) for o in _options(hint))}, "
                      f"got {_shown(value)}")


class _No:
    pass


_NO: Any = _No()


def _fit(name: str, hint: Any, value: Any) -> Any:
    if hint is type(None):
        return value if value is None else _NO
    if hint is Any:
        return value
    origin = get_origin(hint)
    if origin is Literal:  # the kind only: which choices are allowed is checked where used
        return value if any(type(value) is type(a) for a in get_args(hint)) else _NO
    if origin is tuple:
        if not isinstance(value, (tuple, list)):
            return _NO
        args = get_args(hint)
        element = args[0] if len(args) == 2 and args[1] is Ellipsis else None
        if element is None:
            return value if isinstance(value, tuple) else tuple(value)
        items = []
        for i, item in enumerate(value):
            fitted = _fit(f"{name}[{i}]", element, item)
            if fitted is _NO:
                raise ConfigError(f"{name}[{i}] must be {_describe(element)}, got "
                                  f"{_shown(item)}")
            items.append(fitted)
        return tuple(items)
    if hint is bool:
        return value if isinstance(value, bool) else _NO
    if hint is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _NO
    if hint is float:
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else _NO
    if hint is str:
        if not isinstance(value, str):
            return _NO
        problem = text_problem(value)
        if problem is not None:
            raise ConfigError(f"{name} {problem}")
        return value
    if hint is Path:
        return value if isinstance(value, (str, os.PathLike)) else _NO
    if isinstance(hint, type):
        return value if isinstance(value, hint) else _NO
    return value  # an annotation this module does not know: not checked


def _describe(hint: Any) -> str:
    origin = get_origin(hint)
    if hint is type(None):
        return "None"
    if origin is Literal:
        return " or ".join(sorted({_describe(type(a)) for a in get_args(hint)}))
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a tuple of {_plural(args[0])}"
        return "a tuple"
    names = {bool: "True or False", int: "an integer", float: "a number", str: "text (a str)",
             Path: "a path"}
    if hint in names:
        return names[hint]
    return f"a {getattr(hint, '__name__', str(hint))}"


def _plural(hint: Any) -> str:
    plural = {int: "integers", float: "numbers", str: "texts"}.get(hint)
    if plural is None and isinstance(hint, type):
        plural = f"{hint.__name__} values"  # "a tuple of Replica values"
    return plural or f"{_describe(hint)} values"


def _shown(value: Any) -> str:
    if value is None:
        return "None"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def check_arguments(function: str, **arguments: tuple[Any, type | tuple[type, ...]]) -> None:
    """The arguments of a library entry point are of the kinds it takes (``name=(value,
    kinds)``); a wrong kind is a ConfigError naming the function and the argument, not a
    TypeError or AttributeError from deep inside.

    >>> from pathlib import Path
    >>> check_arguments("run_bench", out=(5, (str, Path)))
    Traceback (most recent call last):
    ...
    jurybox.errors.ConfigError: run_bench: out must be str or Path, got 5 (int)
    """
    for name, (value, kinds) in arguments.items():
        if not isinstance(value, kinds) or isinstance(value, bool) and bool not in (
                kinds if isinstance(kinds, tuple) else (kinds,)):
            names = " or ".join(k.__name__ for k in (kinds if isinstance(kinds, tuple)
                                                      else (kinds,)))
            raise ConfigError(f"{function}: {name} must be {names}, got {_shown(value)}")
