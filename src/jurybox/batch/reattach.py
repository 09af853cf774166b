"""Re-attaching after a restart: the batch journal is read once; batches still in flight are
polled again, batches journalled without the provider's id are looked up at the provider
(never sent twice), ended ones are re-read only for requests asked again.
"""

from __future__ import annotations

import asyncio

from ..errors import ProviderError, RetryableProviderError
from ..rundir.batches import JournalBatch
from .api import BatchStatus
from .results import ResultReading
from .state import LOOKUP_ATTEMPTS, log

__all__ = ["Reattaching"]


class Reattaching(ResultReading):
    """The dispatcher's layer that reads the journal and finds batches journalled without an
    id."""

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

    async def _lookup(self, entry: JournalBatch) -> str | None:
        try:
            return await self._find_id(entry)
        except ProviderError:
            return None
