"""Batch mode as a provider: :class:`BatchProvider` takes ``complete(request)`` calls from the
runner like any endpoint, but sends them as provider batches.

- **Rounds.** A request waits in a queue; once no request has been added for
  ``quiet_s`` (every item in the window has asked what its current stage needs), the queue
  is sent, split by the provider's limits, as one or more batches. A protocol that asks in
  stages (APOC's keyed call after both orders, adaptive PCF's later orders, rubric gating, a
  re-ask of an unusable answer) asks its next stage when its answers come back: that is the
  next round.
- **Durable.** Before a batch is sent its requests' cache keys (the ``custom_id``) are
  journalled (:mod:`jurybox.rundir.batches`); the provider's ids are journalled as soon as
  they are known. A rerun after a kill reads the journal: batches still in flight are polled
  again and their requests are never sent twice; a batch whose id was never written is
  looked up at the provider (:meth:`~.api.BatchAPI.find`) before anything is sent again.
- **Answers** go back to the runner, which caches, parses, re-asks and logs them exactly as
  online answers (``ChatResponse.batch`` is True); a cached answer that cannot be used is
  asked again in the next round (an ended batch is never re-read for a cached request). A
  request a batch did not answer (expired, canceled, errored) raises a retryable error: the
  runner's next attempt sends it in the next round, or online with ``fallback="online"``;
  never a score.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..cache import cache_key
from ..errors import ProviderError
from ..providers import ChatRequest, ChatResponse
from .sending import Sending
from .state import BatchEvent, BatchStats

__all__ = ["BatchEvent", "BatchProvider", "BatchStats"]


class BatchProvider(Sending):
    """A :class:`~jurybox.providers.Provider` that answers through a batch API.

    Args:
        inner: the online endpoint (its cache identity is this provider's: a batch answer
            and an online one share a cache key).
        api: the provider's batch API.
        journal: the run directory's batch journal.
        options: polling, limits, fallback.
        answered: whether a cache key's answer is already cached (a batch that ended before
            a kill is read again only for requests not cached).
        on_event: called for each batch state change.
        online_concurrency: calls in flight at once for ``fallback="online"``.
        on_waiting: batch files mode: called once every request asked for waits on a batch
            written to a file (the run can go no further this session).
    """

    # --- the Provider interface -------------------------------------------------------
    def cache_identity(self) -> dict[str, Any]:
        return dict(self._identity)

    async def check(self) -> None:
        await self.inner.check()
        self._identity = self.inner.cache_identity()  # check() may learn more (serve-sim)
        await self.api.check()

    async def stop(self) -> None:
        """Stop polling and sending (batches in flight stay at the provider, journalled)."""
        tasks: list[asyncio.Future[Any]] = list(self._tasks)
        if self._start is not None and not self._start.done():
            tasks.append(self._start)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def aclose(self) -> None:
        await self.stop()
        await self.api.aclose()
        await self.inner.aclose()

    def in_flight(self) -> dict[str, int]:
        """Batches created and not ended, by journal id: their request counts."""
        return {b.batch: len(b.custom_ids) for b in self.journal.batches.values()
                if not b.ended and b.batch_id is not None}

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """The answer to ``request`` from a batch (waiting for it to end).

        Raises:
            RetryableProviderError: the batch did not answer it (expired, canceled, a
                transient error): the runner's next attempt sends it again.
            BatchRejectedError: the provider refused its batch.
            BatchUnavailableError: the batch API refused this run (the run stops).
            ProviderError: the provider's error for this request.
        """
        if self._fatal is not None:
            raise self._fatal
        await self.start()
        key = cache_key(self._identity, request)
        if key in self._ready:
            return self._ready.pop(key)
        if key in self._unresolved:
            entry = self._unresolved[key]
            raise ProviderError(f"batch {entry.batch} may hold this request, and the provider "
                                f"could not be asked whether it was created; rerun the command "
                                f"to ask again (nothing is sent twice)")
        if self.options.fallback == "online" and key in self._retry_online:
            self.stats.online += 1
            async with self._online:
                return await self.inner.complete(request)
        future: asyncio.Future[ChatResponse] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(key, []).append(future)
        if key in self._live:
            pass  # a batch in flight will answer it: never sent twice
        elif key in self._collectable:
            self._reread(self._collectable[key])
        elif key not in self._pending:
            self._pending[key] = request
            self._last_add = asyncio.get_running_loop().time()
            if len(self._pending) >= self._max_requests():
                self._spawn(self._flush())
            elif self._flusher is None or self._flusher.done():
                self._flusher = self._spawn(self._flush_when_quiet())
        return await future
