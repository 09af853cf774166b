"""What the batch dispatcher knows and shares between its parts: :class:`BatchEvent` (a batch
changed state), :class:`BatchStats` (what batch mode did this session), and
:class:`DispatchState`, the state of one :class:`~jurybox.batch.BatchProvider` (who waits for
which request, which batch answers it, the room left for enqueued tokens, its tasks) with the
bookkeeping every part uses.

The dispatcher is built in layers, each a subclass of the one below, each using only what is
below it: this state; reading results (:mod:`.results`); re-attaching after a restart
(:mod:`.reattach`); sending rounds (:mod:`.sending`); the provider interface
(:mod:`.dispatcher`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import BatchUnavailableError
from ..providers import ChatRequest, ChatResponse, Provider
from ..rundir.batches import BatchJournal, JournalBatch
from .api import BatchAPI, BatchStatus
from .options import BatchOptions

__all__ = ["BatchEvent", "BatchStats", "DispatchState", "LOOKUP_ATTEMPTS", "SUBMIT_ATTEMPTS"]

log = logging.getLogger("jurybox.batch.dispatcher")

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
    """What batch mode did this session (run.json's session ``batch``; counters that are 0
    are left out)."""

    #: Batches created at the provider.
    batches: int = 0
    #: Requests sent in those batches.
    requests: int = 0
    #: Batches of an earlier session found in flight and followed again.
    reattached: int = 0
    #: Requests in batches the provider refused.
    rejected: int = 0
    #: Requests a batch ended without answering (expired, canceled, failed): asked again.
    not_answered: int = 0
    #: Results naming a request that no batch of this run holds (ignored).
    unknown_results: int = 0
    #: Requests sent online instead (the batch fallback ``online``).
    online: int = 0

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if v}



class DispatchState:
    """The state of a :class:`~jurybox.batch.BatchProvider` (its arguments: see there), and
    the bookkeeping its layers share: room for enqueued tokens, batch events, tasks."""

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
