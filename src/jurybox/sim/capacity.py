"""A simulated server's capacity: at most N requests answered at once, the rest queued in order.

A GPU inference server (vLLM, TGI, a hosted endpoint's replica) decodes a bounded number of
requests at once; requests beyond that wait. :class:`Capacity` plays this for the simulated
judge's online endpoints: a request holds one of ``max_concurrency`` slots while it is answered
(its service time, ``--latency-ms``, included), and requests arriving when every slot is taken
wait in a first-in, first-out queue. A freed slot goes straight to the longest-waiting request,
so a request arriving later never overtakes one already queued. ``None`` (the default) is
unlimited: nothing waits, and the counters still record how many were in flight.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

__all__ = ["Capacity"]


class Capacity:
    """At most ``max_concurrency`` holders of a slot at once; the others wait, first in, first
    out. Used from one event loop (not thread-safe).

    Args:
        max_concurrency: slots, at least 1; ``None`` for unlimited.

    Raises:
        ValueError: ``max_concurrency`` below 1.
    """

    def __init__(self, max_concurrency: int | None = None) -> None:
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1 (or None for unlimited), "
                             f"got {max_concurrency}")
        self.max_concurrency = max_concurrency
        self.in_flight = 0        # slots held now
        self.max_in_flight = 0    # peak of in_flight
        self.queued = 0           # requests waiting for a slot now
        self.queued_max = 0       # peak of queued
        self._waiters: deque[asyncio.Future[None]] = deque()

    def stats(self) -> dict[str, Any]:
        """The counters as JSON-ready values: ``max_concurrency`` (int, or None when
        unlimited), ``in_flight`` and ``queued`` (now), ``max_in_flight`` and ``queued_max``
        (peaks since the server started); all counts of requests."""
        return {"max_concurrency": self.max_concurrency, "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight, "queued": self.queued,
                "queued_max": self.queued_max}

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one slot for the body of the ``async with``, waiting for it (in arrival
        order) when all are taken. A request cancelled while queued leaves the queue; one
        cancelled while holding its slot frees it."""
        await self._acquire()
        try:
            yield
        finally:
            self._release()

    async def _acquire(self) -> None:
        limit = self.max_concurrency
        if limit is None or (self.in_flight < limit and not self._waiters):
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self.queued += 1
        self.queued_max = max(self.queued_max, self.queued)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # the slot was handed over just before the cancel: pass it on
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
                self.queued -= 1
            raise
        # the releasing request handed its slot over: in_flight already counts this one

    def _release(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            self.queued -= 1
            if not waiter.done():  # a cancelled waiter is skipped
                waiter.set_result(None)
                return
        self.in_flight -= 1
