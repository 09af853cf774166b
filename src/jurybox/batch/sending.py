"""Sending rounds: the queued requests are sent once no request has been added for
``quiet_s``, split by the provider's limits (requests, bytes, enqueued tokens) into batches,
each journalled before it is created and created with retries (a create that may have reached
the provider is looked up before it is sent again).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ..errors import (BatchRejectedError, BatchUnavailableError, ProviderError,
                      RetryableProviderError)
from ..rundir.batches import JournalBatch
from .api import BatchStatus
from .reattach import Reattaching
from .state import SUBMIT_ATTEMPTS, log

__all__ = ["Sending"]


class Sending(Reattaching):
    """The dispatcher's layer that sends the queue as batches."""

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
