"""How long the caller's event loop is held up by a judge call made on it.

A heartbeat task on the loop wakes every millisecond and records how late each wake-up is.
The run is ``jurybox.judge`` / ``await jurybox.ajudge`` of N in-memory items (3 candidates,
PCF K = 3, the simulated judge with ``--latency-ms`` per call) into a fresh folder, made
inside a running loop as a notebook cell or an async web handler would make it:

- ``judge`` (blocking; its engine runs on a worker thread): the loop is held for the whole call;
- ``ajudge``: the judging runs on the loop, the file work (writing and checking the items,
  the summary, judgments and report.html) in the loop's default executor;
- two ``ajudge`` calls at once (different folders): the wall time of both against one.

Prints, per form, the call's wall time and the longest and 99th-percentile heartbeat delay.

Usage: python benchmarks/loop_stall.py [--items 300] [--latency-ms 2] [--out runs/loop-stall]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time
from pathlib import Path

import jurybox
from jurybox.sim import SimConfig


def _items(n: int, first: int = 0) -> list[dict]:
    return [{"id": f"q{i}", "prompt": f"Question {i}?",
             "candidates": [f"answer {i}.{j}" for j in range(3)]} for i in range(first, first + n)]


async def _measured(make_calls) -> tuple[float, list[float]]:
    delays: list[float] = []
    stop = asyncio.Event()

    async def heartbeat() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            delays.append(time.perf_counter() - t - 0.001)

    beat = asyncio.ensure_future(heartbeat())
    await asyncio.sleep(0.01)
    t0 = time.perf_counter()
    await make_calls()
    wall = time.perf_counter() - t0
    stop.set()
    await beat
    return wall, delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--latency-ms", type=float, default=2.0)
    parser.add_argument("--out", type=Path, default=Path("runs/loop-stall"))
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    sim = SimConfig(latency_ms=args.latency_ms)
    n = args.items

    async def blocking() -> None:
        jurybox.judge(_items(n), model="sim", k=3, sim=sim, out=args.out / "judge")

    async def awaited() -> None:
        await jurybox.ajudge(_items(n), model="sim", k=3, sim=sim, out=args.out / "ajudge")

    async def two() -> None:
        await asyncio.gather(jurybox.ajudge(_items(n), model="sim", k=3, sim=sim,
                                            out=args.out / "two-a"),
                             jurybox.ajudge(_items(n, 10_000), model="sim", k=3, sim=sim,
                                            out=args.out / "two-b"))

    jurybox.judge(_items(5), model="sim", k=3, out=args.out / "warm-up")  # imports, first report
    print(f"{n} items, 3 candidates, PCF K = 3, simulated judge {args.latency_ms:g} ms a call")
    print("| form | wall s | longest loop delay ms | p99 delay ms |")
    print("|---|---:|---:|---:|")
    for name, calls in (("judge (blocking, in the loop)", blocking), ("await ajudge", awaited),
                        ("two ajudge at once", two)):
        wall, delays = asyncio.run(_measured(calls))
        p99 = statistics.quantiles(delays, n=100)[98] if len(delays) > 100 else max(delays)
        print(f"| {name} | {wall:.2f} | {max(delays) * 1e3:.0f} | {p99 * 1e3:.1f} |")


if __name__ == "__main__":
    main()
