"""Judge items with several protocols, sharing identical calls, writing as it goes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar
from dataclasses import asdict

from ..datasets import ListwiseItem, PairwiseItem
from ..protocols import JudgingProtocol, PlannedCall
from ..providers import ChatRequest
from ..reports import RunDir
from ..runner import Job, Outcome, Runner

__all__ = ["judge_items", "run_pool"]

T = TypeVar("T")

Item = ListwiseItem | PairwiseItem


async def _judge_item(item: Item, protocols: Sequence[JudgingProtocol], runner: Runner,
                      rundir: RunDir) -> None:
    plans = {p.name: p.plan(item) for p in protocols
             if (item.item_id, p.name) not in rundir.done}
    unique: dict[ChatRequest, tuple[PlannedCall, list[str]]] = {}
    for name, calls in plans.items():
        for call in calls:
            unique.setdefault(call.request, (call, []))[1].append(f"{name}/{call.call_id}")
    jobs = [Job(call.request, call.parse,
                meta={"item_id": item.item_id, "calls": ids, "order": list(call.order)})
            for call, ids in unique.values()]
    results: list[Outcome] = await asyncio.gather(*(runner.run(job) for job in jobs))
    by_request = {job.request: outcome for job, outcome in zip(jobs, results)}
    for protocol in protocols:
        if protocol.name not in plans:
            continue
        calls = plans[protocol.name]
        decision = protocol.decide(item, calls, [by_request[c.request] for c in calls])
        rundir.append_item(asdict(decision))


async def judge_items(items: Sequence[Item], protocols: Sequence[JudgingProtocol],
                      runner: Runner, rundir: RunDir, *, workers: int = 16,
                      on_item: Callable[[Item], None] | None = None) -> int:
    """Judge every item not already finished in ``rundir``, ``workers`` items at a time.

    Identical requests across protocols (``direct`` and PCF's permutation 0) are sent once.
    Each finished (item, protocol) decision is appended to items.jsonl at once, so an
    interrupted run loses at most the items in flight.

    Returns:
        How many items were judged now (resumed items are not counted).
    """
    todo = [it for it in items if any((it.item_id, p.name) not in rundir.done for p in protocols)]

    async def judge(item: Item) -> None:
        await _judge_item(item, protocols, runner, rundir)
        if on_item is not None:
            on_item(item)

    await run_pool(todo, judge, workers=workers)
    return len(todo)


async def run_pool(jobs: Sequence[T], handle: Callable[[T], Awaitable[None]], *,
                   workers: int) -> None:
    """Run ``handle`` on every job, ``workers`` at a time, in order of the list.

    On cancellation (Ctrl-C) or an error, the other workers are cancelled and awaited before
    the exception propagates, so no task is left pending.
    """
    queue: asyncio.Queue[T] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def worker() -> None:
        while not queue.empty():
            await handle(queue.get_nowait())

    tasks = [asyncio.create_task(worker()) for _ in range(max(1, min(workers, len(jobs))))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
