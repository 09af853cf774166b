"""The Ray actor that makes a judge's calls: :class:`JudgeActor`, and how its errors travel.

A plain class (no Ray import): :class:`~jurybox.ray.RayProvider` makes it a Ray actor with
``ray.remote``. Each actor builds its own provider from a
:class:`~jurybox.ray.recipe.ProviderRecipe` and runs its calls on its event loop (an async
actor: many calls in flight at once). An error is returned, not raised, as a
:class:`RemoteError` naming the jurybox error class, so the driver raises the same error
(a retryable 429 stays retryable, with its Retry-After) without Ray's exception wrapping.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .. import errors
from ..providers.base import ChatRequest, ChatResponse
from ..providers.pool import AFFINITY
from .recipe import ProviderRecipe

__all__ = ["JudgeActor", "RemoteError"]

#: The provider errors that travel back as themselves; any other exception becomes a
#: ProviderError saying "unexpected <class>".
_ERRORS: dict[str, type[errors.ProviderError]] = {
    cls.__name__: cls for cls in (errors.ProviderError, errors.RetryableProviderError,
                                  errors.RateLimitError, errors.ServerError,
                                  errors.TimeoutError_, errors.FormatRefusedError,
                                  errors.EndpointGoneError)}


@dataclass(frozen=True)
class RemoteError:
    """An error raised in an actor, as data.

    Attributes:
        kind: the jurybox error class name (``RateLimitError``, ``ConfigError`` ...), or
            ``unexpected`` for any other exception.
        message: its message.
        status: the HTTP status, if any.
        retry_after: the server's Retry-After, seconds, if any.
    """

    kind: str
    message: str
    status: int | None = None
    retry_after: float | None = None

    @classmethod
    def of(cls, exc: BaseException) -> RemoteError:
        """The data of ``exc``."""
        name = type(exc).__name__
        if name in _ERRORS or isinstance(exc, errors.ConfigError):
            return cls("ConfigError" if isinstance(exc, errors.ConfigError) else name,
                       str(exc), getattr(exc, "status", None), getattr(exc, "retry_after", None))
        return cls("unexpected", f"unexpected {name}: {exc}")

    def error(self) -> errors.JuryboxError:
        """The jurybox error to raise in the driver."""
        if self.kind == "ConfigError":
            return errors.ConfigError(self.message)
        cls = _ERRORS.get(self.kind, errors.ProviderError)
        if issubclass(cls, errors.RetryableProviderError):
            return cls(self.message, status=self.status, retry_after=self.retry_after)
        return cls(self.message, status=self.status)


class JudgeActor:
    """One Ray actor's judge: a provider built from ``recipe`` in the actor's process.

    Args:
        recipe: how to build the provider.
        index: the actor's number in its pool (0-based), for messages.
    """

    def __init__(self, recipe: ProviderRecipe, index: int = 0) -> None:
        self.index = index
        self.provider = recipe.build()
        self.calls = 0

    async def complete(self, request: ChatRequest, item: str | None
                       ) -> ChatResponse | RemoteError:
        """One call, with ``item`` as the call's item (an endpoint pool in the actor keeps an
        item's calls on one replica); an error comes back as a :class:`RemoteError`."""
        self.calls += 1
        token = AFFINITY.set(item)
        try:
            return await self.provider.complete(request)
        except Exception as exc:  # noqa: BLE001 - every error travels back as data
            return RemoteError.of(exc)
        finally:
            AFFINITY.reset(token)

    async def check(self) -> RemoteError | None:
        """``provider.check()`` from the actor's node (it reaches the endpoint too)."""
        try:
            await self.provider.check()
        except Exception as exc:  # noqa: BLE001
            return RemoteError.of(exc)
        return None

    async def ping(self) -> dict[str, Any]:
        """Alive: the actor's process id and calls made since it (re)started."""
        return {"index": self.index, "pid": os.getpid(), "calls": self.calls}

    async def pool_stats(self) -> dict[str, Any] | None:
        """The actor's endpoint pool's counts since the actor started (``replicas``,
        ``items``, ``items_on_one_replica``: see
        :meth:`jurybox.providers.pool.PoolProvider.pool_stats`); None: not a pool."""
        stats = getattr(self.provider, "pool_stats", None)
        return None if stats is None else dict(stats())

    async def aclose(self) -> None:
        """Release the provider's connections."""
        await self.provider.aclose()
