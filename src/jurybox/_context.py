"""A context variable set for the length of a ``with`` block (the answer budget of a parse,
the decimals of a table), and put back however the block ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

__all__ = ["scoped"]

T = TypeVar("T")


@contextmanager
def scoped(var: ContextVar[T], value: T) -> Iterator[None]:
    """Within the block, ``var`` holds ``value`` (for this thread or task, and the worker
    threads :func:`asyncio.to_thread` starts from it); its earlier value after, even when the
    block raises.

    >>> from contextvars import ContextVar
    >>> v = ContextVar("v", default=1)
    >>> with scoped(v, 2):
    ...     inside = v.get()
    >>> inside, v.get()
    (2, 1)
    """
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)
