"""The ``Calls`` a protocol gets for one item: judgments through the runner, shared across
the protocols judging the same item."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ..protocols import PlannedCall
from ..providers import ChatRequest
from ..runner import Job, Outcome, Runner
from .structured import AnswerFormats

__all__ = ["ItemCalls", "ProtocolCalls"]


class ItemCalls:
    """One item's calls, shared by every protocol judging it.

    Identical requests (``direct`` and PCF's permutation 0, APOC's direct call and
    ``pairwise``'s) are sent once; each call record lists every ``protocol/call`` that asked
    for the request before its answer was logged.

    Args:
        runner: obtains judgments (cache, endpoint, retries, re-ask).
        item_id: the unit key, copied into every call record.
        formats: the run's structured-output mode (None: free text).
    """

    def __init__(self, runner: Runner, item_id: str,
                 formats: AnswerFormats | None = None) -> None:
        self.runner, self.item_id, self.formats = runner, item_id, formats
        self._asked: dict[ChatRequest, tuple[asyncio.Task[Outcome[Any]], list[str]]] = {}

    def for_protocol(self, name: str) -> ProtocolCalls:
        """The view a protocol named ``name`` calls through."""
        return ProtocolCalls(self, name)

    def ask(self, protocol: str, call: PlannedCall) -> asyncio.Task[Outcome[Any]]:
        """Start (or join) the judgment of ``call`` for ``protocol``."""
        asked = f"{protocol}/{call.call_id}"
        if call.request in self._asked:
            task, askers = self._asked[call.request]
            askers.append(asked)
            return task
        askers = [asked]
        meta = {"item_id": self.item_id, "calls": askers, "order": list(call.order),
                **call.meta}
        request = (call.request if self.formats is None
                   else self.formats.apply(call.request, call.schema))
        job = (Job(request, call.parse, meta) if call.reask is None
               else Job(request, call.parse, meta, reask=call.reask))
        task = asyncio.ensure_future(self.runner.run(job))
        self._asked[call.request] = (task, askers)
        return task


class ProtocolCalls:
    """What :class:`~jurybox.protocols.Calls` a protocol receives: ask, gather."""

    def __init__(self, item: ItemCalls, protocol: str) -> None:
        self._item, self._protocol = item, protocol

    async def ask(self, call: PlannedCall) -> Outcome[Any]:
        return await self._item.ask(self._protocol, call)

    async def gather(self, calls: Sequence[PlannedCall]) -> list[Outcome[Any]]:
        tasks = [self._item.ask(self._protocol, c) for c in calls]
        return list(await asyncio.gather(*tasks))
