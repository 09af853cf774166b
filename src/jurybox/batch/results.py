"""Waiting for a batch and reading it: a batch sent or re-attached is polled until it ends,
then each of its results goes to the requests waiting for it; a request it did not answer
fails (retryably when asking again may help), never a score.
"""

from __future__ import annotations

import asyncio

from ..errors import (BatchRejectedError, BatchUnavailableError, ProviderError,
                      RetryableProviderError)
from ..rundir.batches import JournalBatch
from .api import BatchResult, BatchStatus
from .state import LOOKUP_ATTEMPTS, DispatchState, log

__all__ = ["ResultReading"]


class ResultReading(DispatchState):
    """The dispatcher's layer that polls batches and hands their results to their waiters."""

    async def _poll(self, entry: JournalBatch) -> None:
        """Poll ``entry`` until it ends, then hand its results to their waiters; its
        enqueued tokens are freed however that ends."""
        try:
            await self._watch(entry)
        finally:
            await self._release_room(self._tokens.pop(entry.batch, 0))

    async def _watch(self, entry: JournalBatch) -> None:
        assert entry.batch_id is not None
        delay, last = self.options.poll_s, None
        while True:
            await asyncio.sleep(delay if last is not None else min(delay, 1.0))
            try:
                status = await self.api.status(entry.batch_id)
            except RetryableProviderError as exc:
                log.warning("batch %s: polling failed (%s); polling again", entry.batch, exc)
                last = last or BatchStatus("unknown", False)
                continue
            except ProviderError as exc:
                if exc.status == 404:  # gone (the embedded simulated judge's, after a kill)
                    self.journal.write("lost", entry.batch, reason=f"the provider no longer "
                                       f"knows batch {entry.batch_id}: {exc}")
                    self._settle(entry, RetryableProviderError(
                        f"batch {entry.batch} ({entry.batch_id}) is gone: {exc}"))
                    return
                self._fatal = BatchUnavailableError(f"batch {entry.batch} ({entry.batch_id}) "
                                                    f"cannot be polled: {exc}")
                self._settle(entry, self._fatal)
                return
            if last is None or (status.state, status.done) != (last.state, last.done):
                self._event(entry, status.state, status)
            last = status
            if status.ended:
                break
            if self._on_waiting is not None and self._stuck():
                self._on_waiting()
                return
            delay = min(delay * 1.5, self.options.poll_max_s)
        if last.rejected is not None:
            self.journal.write("rejected", entry.batch, reason=last.rejected)
            self.stats.rejected += len(entry.custom_ids)
            self._settle(entry, BatchRejectedError(f"batch {entry.batch} was refused: "
                                                   f"{last.rejected}"))
        else:
            await self._collect(entry, last)

    async def _collect(self, entry: JournalBatch, status: BatchStatus) -> None:
        """Read an ended batch's results; every request of it is answered or failed."""
        assert entry.batch_id is not None
        seen = await self._read(entry)
        if seen is None:
            return
        self.journal.write("ended", entry.batch, state=status.state,
                           counts={"done": status.done, "failed": status.failed,
                                   "total": status.total})
        missing = sum(1 for k in entry.custom_ids if k not in seen and self._live.get(k) is entry)
        if missing and status.state in ("completed", "ended"):
            log.warning("batch %s (%s) ended %s with no result for %d of its %d requests; "
                        "they are sent again", entry.batch, entry.batch_id, status.state,
                        missing, len(entry.custom_ids))
        self._settle(entry, RetryableProviderError(
            f"batch {entry.batch} ({entry.batch_id}) ended {status.state} without an answer "
            f"for this request"), skip=seen)

    async def _read(self, entry: JournalBatch) -> set[str] | None:
        """Hand every result of ``entry`` to its waiters (or keep it for a later ask); the
        custom ids seen. None when the results cannot be read (the waiters were failed)."""
        assert entry.batch_id is not None
        ids, seen = set(entry.custom_ids), set()
        delay = min(self.options.poll_s, 1.0)
        for attempt in range(LOOKUP_ATTEMPTS):
            try:
                async for result in self.api.results(entry.batch_id):
                    if result.custom_id not in ids:
                        self.stats.unknown_results += 1
                        continue
                    seen.add(result.custom_id)
                    self._deliver(entry, result)
                return seen
            except RetryableProviderError as exc:
                error: ProviderError = exc
                await asyncio.sleep(delay * 2 ** attempt)  # a transient failure: read again
            except ProviderError as exc:  # gone (a 404 for its output file): asking won't help
                error = exc
                break
        log.warning("batch %s: its results could not be read: %s", entry.batch, error)
        # ended for good: a rerun does not wait on it; its requests unanswered are sent again
        self.journal.write("lost", entry.batch, reason=f"its results could not be read: {error}")
        self._settle(entry, RetryableProviderError(
            f"the results of batch {entry.batch} could not be read: {error}"))
        return None

    def _reread(self, entry: JournalBatch) -> None:
        """Read again a batch that ended before a restart (its answers were not cached):
        its keys wait on it from now (a second ask does not read it twice)."""
        for key in [k for k, e in self._collectable.items() if e is entry]:
            del self._collectable[key]
            self._live[key] = entry
        self._spawn(self._read_again(entry))

    async def _read_again(self, entry: JournalBatch) -> None:
        seen = await self._read(entry)
        if seen is not None:
            self._settle(entry, RetryableProviderError(
                f"batch {entry.batch} ({entry.batch_id}) has no answer for this request"),
                skip=seen)

    def _deliver(self, entry: JournalBatch, result: BatchResult) -> None:
        key = result.custom_id
        if self._live.get(key) is entry:
            del self._live[key]
        elif self._answered(key):  # cached: asked again only for a new answer, not this one
            return
        waiters = self._waiters.pop(key, [])
        if result.kind == "succeeded" and result.response is not None:
            if not any(not w.done() for w in waiters):
                self._ready[key] = result.response  # asked for later (or never)
            for w in waiters:
                if not w.done():
                    w.set_result(result.response)
            return
        self.stats.not_answered += 1
        self._retry_online.add(key)
        error = (RetryableProviderError if result.retryable else ProviderError)(
            f"batch {entry.batch} ({entry.batch_id}): request {result.kind}: "
            f"{result.error or 'no reason given'}")
        for w in waiters:
            if not w.done():
                w.set_exception(error)

    def _settle(self, entry: JournalBatch, error: ProviderError,
                skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        """Fail every request of ``entry`` not in ``skip`` that ``entry`` was to answer."""
        for key in entry.custom_ids:
            if key in skip or self._live.get(key) is not entry:
                continue
            del self._live[key]
            if isinstance(error, RetryableProviderError):
                self._retry_online.add(key)
                self.stats.not_answered += 1
            for w in self._waiters.pop(key, []):
                if not w.done():
                    w.set_exception(error)

    def _stuck(self) -> bool:
        """Nothing queued or being sent, and every request asked for waits on a batch."""
        if self._pending or (self._flusher is not None and not self._flusher.done()):
            return False
        waiting = [k for k, ws in self._waiters.items() if any(not w.done() for w in ws)]
        return bool(waiting) and all(k in self._live for k in waiting)
