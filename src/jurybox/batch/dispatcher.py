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
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..cache import cache_key
from ..errors import (BatchRejectedError, BatchUnavailableError, ProviderError,
                      RetryableProviderError)
from ..providers import ChatRequest, ChatResponse, Provider
from ..rundir.batches import BatchJournal, JournalBatch
from .api import BatchAPI, BatchResult, BatchStatus
from .options import BatchOptions

__all__ = ["BatchEvent", "BatchProvider", "BatchStats"]

log = logging.getLogger(__name__)

#: Attempts at creating one batch (upload and create) before its requests fail retryably.
SUBMIT_ATTEMPTS = 5
#: Attempts at looking up a batch journalled without its id, on transient failures.
LOOKUP_ATTEMPTS = 4


@dataclass(frozen=True)
class BatchEvent:
    """A batch changed state (the CLI prints a line).

    Attributes:
        batch: the journal's id; batch_id: the provider's.
        state: the provider's word (``validating``, ``in_progress``, ``completed``...), or
            ``submitted``, ``reattached``, ``rejected``.
        done / failed / total: request counts the provider reported.
    """

    batch: str
    batch_id: str | None
    state: str
    done: int = 0
    failed: int = 0
    total: int = 0


@dataclass
class BatchStats:
    """What batch mode did this session (run.json's session ``batch``)."""

    batches: int = 0
    requests: int = 0
    reattached: int = 0
    rejected: int = 0
    not_answered: int = 0
    unknown_results: int = 0
    online: int = 0

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if v}


class BatchProvider:
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

    def __init__(self, inner: Provider, api: BatchAPI, journal: BatchJournal,
                 options: BatchOptions, *, answered: Callable[[str], bool] = lambda k: False,
                 on_event: Callable[[BatchEvent], None] | None = None,
                 online_concurrency: int = 16,
                 on_waiting: Callable[[], None] | None = None) -> None:
        self.inner, self.api, self.journal, self.options = inner, api, journal, options
        self.name, self.model = inner.name, inner.model
        self.simulated = inner.simulated
        self.label = getattr(inner, "label", None)
        self.max_concurrency: int | None = None
        self._identity = inner.cache_identity()
        self._answered, self._on_event, self._on_waiting = answered, on_event, on_waiting
        self.stats = BatchStats()
        self._waiters: dict[str, list[asyncio.Future[ChatResponse]]] = {}
        self._pending: dict[str, ChatRequest] = {}
        self._live: dict[str, JournalBatch] = {}  # key -> the batch that will answer it
        self._collectable: dict[str, JournalBatch] = {}  # key -> ended batch, not re-read
        self._ready: dict[str, ChatResponse] = {}  # answers read before anyone asked
        self._retry_online: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._flusher: asyncio.Task[None] | None = None
        self._last_add = 0.0
        self._enqueued = 0
        self._tokens: dict[str, int] = {}  # journal id -> its enqueued tokens (estimated)
        self._room = asyncio.Condition()
        self._online = asyncio.Semaphore(online_concurrency)
        self._start: asyncio.Task[None] | None = None
        self._unresolved: dict[str, JournalBatch] = {}  # key -> a batch not found, not lost
        self._fatal: BatchUnavailableError | None = None

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

    # --- re-attaching after a restart ---------------------------------------------------
    async def start(self) -> None:
        """Read the journal once: batches in flight are polled again, batches whose id was
        never written are looked up, ended ones are re-read only when asked for. Every
        caller waits for it to finish (no request is queued before its batch is known)."""
        if self._start is None:
            self._start = asyncio.ensure_future(self._reattach())
        await asyncio.shield(self._start)

    async def _reattach(self) -> None:
        for entry in list(self.journal.batches.values()):
            if not entry.ended and entry.batch_id is None:
                await self._find(entry)
                if entry.batch_id is None and not entry.ended:
                    continue  # not found, not lost: its requests fail this session
            if entry.ended:
                if entry.state not in ("rejected", "lost") and entry.batch_id:
                    for key in entry.custom_ids:
                        if not self._answered(key):
                            self._collectable[key] = entry
                continue
            self.stats.reattached += 1
            self._attach(entry)
            self._event(entry, "reattached", BatchStatus("reattached", False,
                                                         total=len(entry.custom_ids)))

    async def _find(self, entry: JournalBatch) -> None:
        """Settle a batch journalled without its id: found at the provider, or lost. A
        transient failure (429, 5xx, a dropped connection) is asked again
        (:data:`LOOKUP_ATTEMPTS` in all); if the provider still cannot say, the batch is
        unknown: its requests are not sent this session (never twice), and fail."""
        try:
            found = await self._find_with_retries(entry)
        except ProviderError as error:
            log.warning("batch %s: could not look it up (%s); its %d requests wait for the "
                        "next run", entry.batch, error, len(entry.custom_ids))
            for key in entry.custom_ids:
                self._unresolved[key] = entry
            return
        if found is None:
            self.journal.write("lost", entry.batch, reason="no batch was created for it")
        else:
            self.journal.write("created", entry.batch, batch_id=found)

    async def _find_with_retries(self, entry: JournalBatch) -> str | None:
        """:meth:`_find_id`, asked again after a transient failure.

        Raises:
            ProviderError: the last failure (or one asking again will not help: a body that
                is not JSON)."""
        delay = min(self.options.poll_s, 1.0)
        for attempt in range(LOOKUP_ATTEMPTS - 1):
            try:
                return await self._find_id(entry)
            except RetryableProviderError:
                await asyncio.sleep(delay * 2 ** attempt)
        return await self._find_id(entry)

    async def _find_id(self, entry: JournalBatch) -> str | None:
        """The provider's id of ``entry``'s batch, looked up; never one the journal already
        gives another batch (Anthropic's lookup by request count would match a sibling of
        the same size created seconds before).

        Raises:
            ProviderError: the provider could not be asked."""
        found = await self.api.find(entry.batch, entry.file_id, len(entry.custom_ids),
                                    entry.at)
        taken = {b.batch_id for b in self.journal.batches.values() if b is not entry}
        return None if found in taken else found

    def _attach(self, entry: JournalBatch) -> None:
        for key in entry.custom_ids:
            self._live[key] = entry
        self._spawn(self._poll(entry))

    # --- sending ------------------------------------------------------------------------
    def _max_requests(self) -> int:
        limit = self.api.limits.max_requests
        return min(limit, self.options.max_requests or limit)

    async def _flush_when_quiet(self) -> None:
        """Send the queue once no request has been added for ``quiet_s``; again while
        requests were queued during a send (one waiting for room, for instance)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.options.quiet_s)
            if loop.time() - self._last_add < self.options.quiet_s:
                continue
            await self._flush()
            if not self._pending:
                return

    async def _flush(self) -> None:
        """Send every queued request, in batches within the limits."""
        queued, self._pending = self._pending, {}
        chunk: list[tuple[str, dict[str, Any], int]] = []
        size = tokens = 0
        for key, request in queued.items():
            line = self.api.line(key, request)
            n = len(json.dumps(line, ensure_ascii=False).encode()) + 1
            t = sum(len(m.content) for m in request.messages) // 4 + 1
            if chunk and (len(chunk) >= self._max_requests()
                          or size + n > self.api.limits.max_bytes
                          or (self.options.max_enqueued_tokens is not None
                              and tokens + t > self.options.max_enqueued_tokens)):
                await self._submit(chunk)
                chunk, size, tokens = [], 0, 0
            chunk.append((key, line, t))
            size, tokens = size + n, tokens + t
        if chunk:
            await self._submit(chunk)

    async def _wait_for_room(self, tokens: int) -> None:
        """Wait until the batches in flight leave room for ``tokens`` more enqueued tokens."""
        limit = self.options.max_enqueued_tokens
        if limit is None:
            return
        async with self._room:
            await self._room.wait_for(lambda: self._enqueued == 0
                                      or self._enqueued + tokens <= limit)
            self._enqueued += tokens

    async def _release_room(self, tokens: int) -> None:
        if self.options.max_enqueued_tokens is None:
            return
        async with self._room:
            self._enqueued -= tokens
            self._room.notify_all()

    async def _submit(self, chunk: list[tuple[str, dict[str, Any], int]]) -> None:
        """Journal, then create, one batch; its poller answers its requests."""
        keys = [key for key, _, _ in chunk]
        tokens = sum(t for _, _, t in chunk)
        await self._wait_for_room(tokens)
        entry = self.journal.intent(self.api.provider, keys)
        for key in keys:
            self._live[key] = entry
        try:
            batch_id = await self._create(entry, [line for _, line, _ in chunk])
        except BaseException:
            await self._release_room(tokens)
            raise
        if batch_id is None:  # refused or never created: its requests were answered
            await self._release_room(tokens)
            return
        self.stats.batches += 1
        self.stats.requests += len(keys)
        self._tokens[entry.batch] = tokens
        self._event(entry, "submitted", BatchStatus("submitted", False, total=len(keys)))
        self._spawn(self._poll(entry))

    async def _create(self, entry: JournalBatch, lines: list[dict[str, Any]]) -> str | None:
        """The provider's id of the created batch; None when it was refused or could not be
        created (its requests' waiters have their errors)."""
        delay = 1.0
        for attempt in range(SUBMIT_ATTEMPTS):
            try:
                made = await self.api.submit(
                    lines, entry.batch,
                    on_file=lambda fid: self.journal.write("file", entry.batch, file_id=fid))
            except BatchRejectedError as exc:
                self.journal.write("rejected", entry.batch, reason=str(exc))
                self.stats.rejected += len(entry.custom_ids)
                self._event(entry, "rejected", BatchStatus("rejected", True))
                self._settle(entry, BatchRejectedError(f"batch {entry.batch}: {exc}"))
                return None
            except RetryableProviderError as exc:
                log.warning("batch %s: %s (attempt %d of %d)", entry.batch, exc, attempt + 1,
                            SUBMIT_ATTEMPTS)
                await asyncio.sleep(delay)
                delay *= 2
                # the create may have reached the provider before the connection failed
                found = await self._lookup(entry)
                if found is not None:
                    self.journal.write("created", entry.batch, batch_id=found)
                    return found
                continue
            except ProviderError as exc:
                self.journal.write("lost", entry.batch, reason=str(exc))
                self._fatal = BatchUnavailableError(f"the batch API refused the run: {exc}")
                self._settle(entry, self._fatal)
                return None
            self.journal.write("created", entry.batch, batch_id=made.batch_id)
            return made.batch_id
        self.journal.write("lost", entry.batch, reason="could not be created")
        self._settle(entry, RetryableProviderError(
            f"batch {entry.batch} could not be created after {SUBMIT_ATTEMPTS} attempts"))
        return None

    async def _lookup(self, entry: JournalBatch) -> str | None:
        try:
            return await self._find_id(entry)
        except ProviderError:
            return None

    # --- waiting and reading ---------------------------------------------------------------
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

    # --- bookkeeping ---------------------------------------------------------------------
    def _event(self, entry: JournalBatch, state: str, status: BatchStatus) -> None:
        if state not in ("submitted", "reattached", "rejected") and state != entry.state:
            self.journal.write("state", entry.batch, state=state)
        if self._on_event is not None:
            self._on_event(BatchEvent(entry.batch, entry.batch_id, state, status.done,
                                      status.failed, status.total or len(entry.custom_ids)))

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:  # a bug in the dispatcher: fail what waits, never hang
            log.error("batch mode failed: %s: %s", type(exc).__name__, exc)
            self._fatal = BatchUnavailableError(f"batch mode failed: {type(exc).__name__}: "
                                                f"{exc}")
            for key, waiters in list(self._waiters.items()):
                for w in waiters:
                    if not w.done():
                        w.set_exception(self._fatal)
                del self._waiters[key]
