"""Option groups: typed bundles of options, declared once and composed into any command.

A group is a frozen dataclass deriving from :class:`OptionGroup` whose fields are typer
options (``Annotated`` aliases) with their defaults. A command names a group once, as a
keyword-only parameter annotated with the class::

    @fail_cleanly
    @option_groups
    def bench(dataset: ..., *, run: RunFlags, endpoint: EndpointOptions) -> None:
        run.concurrency, endpoint.base_url, ...

and :func:`option_groups` puts the group's fields into the signature typer reads (in the
group's field order, at the place of the parameter), then hands the function one instance
per group. The options keep their names, so ``--help``, environment variables and error
messages are those of options listed one by one.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["OptionGroup", "group_fields", "option_groups"]

F = TypeVar("F", bound=Callable[..., Any])


class OptionGroup:
    """Base class of an option group (a frozen dataclass of typer options with defaults)."""


def group_fields(group: type[OptionGroup]) -> list[inspect.Parameter]:
    """The keyword-only parameters a group adds to a command: one per field, annotated with
    the field's typer option and defaulting to the field's default.

    Raises:
        TypeError: ``group`` is not a dataclass, or a field has no default.
    """
    if not dataclasses.is_dataclass(group):
        raise TypeError(f"option group {group.__name__} must be a dataclass")
    hints = typing.get_type_hints(group, include_extras=True)
    params = []
    for field in dataclasses.fields(group):
        if field.default is dataclasses.MISSING:
            raise TypeError(f"option group {group.__name__}: {field.name} needs a default")
        params.append(inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY,
                                        default=field.default, annotation=hints[field.name]))
    return params


def _is_group(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, OptionGroup)


def option_groups(fn: F) -> F:
    """``fn`` with each parameter annotated by an :class:`OptionGroup` subclass replaced, in
    the signature typer reads (``__signature__``), by that group's options; called with
    those options, it calls ``fn`` with one group instance in their place.

    Raises:
        TypeError: two parameters (a command's own or a group's) share a name.
    """
    signature = inspect.signature(fn, eval_str=True)
    params: list[inspect.Parameter] = []
    groups: dict[str, tuple[type[OptionGroup], tuple[str, ...]]] = {}
    for param in signature.parameters.values():
        if _is_group(param.annotation):
            fields = group_fields(param.annotation)
            groups[param.name] = (param.annotation, tuple(f.name for f in fields))
            params.extend(fields)
        else:
            params.append(param.replace(kind=inspect.Parameter.KEYWORD_ONLY))
    names = [p.name for p in params]
    if clash := sorted({n for n in names if names.count(n) > 1} | (set(groups) & set(names))):
        raise TypeError(f"{fn.__name__}: parameter names used twice: {', '.join(clash)}")

    @functools.wraps(fn)
    def command(**kwargs: Any) -> Any:
        for name, (group, fields) in groups.items():
            kwargs[name] = group(**{field: kwargs.pop(field) for field in fields})
        return fn(**kwargs)

    command.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__annotations__["return"] = signature.return_annotation
    return command  # type: ignore[return-value]
