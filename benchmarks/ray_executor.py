"""The Ray executor against the local executor on one simulated endpoint, and killed actors.

The simulated judge runs in its own process (``python -m jurybox serve-sim --dataset
truthfulqa``) on 127.0.0.1, answering each call after ``--latency-ms``. Ray starts once in
this process (``ray.init(num_cpus=<cores>, include_dashboard=False)``, timed apart) after the
local run, so Ray's own threads do not count in the local run's CPU. Each run
is ``jurybox bench truthfulqa`` (protocols direct and pcf, K orders) through the library
(``run_bench``) with ``--model vllm/judge --base-url <the server>``, no cache, the same
``--concurrency``:

- **local**: the ordinary executor (the calls made in this process);
- **ray**: ``executor="ray"`` with ``--actors`` actors (default 2).

Printed per run: wall time (the Ray run includes starting its actors), calls/s over the
judging (first to last answered call), this process's CPU per call (ms; for Ray the driver's
share, the actors' CPU is not counted; from the first answered call to the last, so the run's
fixed work, loading the data and writing the report, is left out), and for Ray the latency
each call gains on its way through Ray (ms: the driver's wait minus the endpoint's own
latency, measured in the actor; mean, p50, p95). Then whether the decisions (items.jsonl) are
identical.

Kill trials (``--kill-trials``): a Ray run in which actor 0 is killed (``ray.kill``, Ray
restarts it) after call ``M`` (spread over the run); reported: whether the decisions equal the
local run's, answers received (calls.jsonl, not cached) vs the local run's, prompts the server
answered (``/v1/sim/stats``) vs the local run's, calls lost in flight with the actor.

Usage: python benchmarks/ray_executor.py [--items 300] [--k 3] [--latency-ms 50]
       [--concurrency 64] [--actors 2] [--kill-trials 3]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from jurybox.compare import BenchConfig, run_bench
from jurybox.ray import RayProvider
from jurybox.run import RunHooks, RunOptions


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sim_prompts(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url}/sim/stats", timeout=10) as resp:
        return int(json.load(resp)["prompts"])


def decisions(run: Path) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for line in (run / "items.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        out[(record["item_id"], record["protocol"])] = record
    return out


def paid(run: Path) -> int:
    calls = [json.loads(line) for line in
             (run / "calls.jsonl").read_text(encoding="utf-8").splitlines()]
    return sum(1 for c in calls if not c["cached"] and c.get("error") is None)


class Trace:
    """Call timestamps (on_call) and, for Ray, each call's added latency."""

    def __init__(self) -> None:
        self.stamps: list[float] = []
        self.added: list[float] = []

        self.cpu: list[float] = []  # process CPU time at the first and the last call

    def hooks(self) -> RunHooks:
        def on_call(record: Any) -> None:
            self.stamps.append(time.perf_counter())
            cpu = time.process_time()
            self.cpu[1:] = [cpu]
            if not self.cpu or len(self.stamps) == 1:
                self.cpu[:1] = [cpu]
        return RunHooks(on_call=on_call)


def one_run(args: argparse.Namespace, base_url: str, out: Path, executor: str,
            kill_at: int | None = None) -> dict[str, Any]:
    trace = Trace()
    lost: list[dict[str, Any]] = []
    original = RayProvider.complete
    sent = [0]

    async def traced(self: RayProvider, request: Any) -> Any:
        sent[0] += 1
        if kill_at is not None and sent[0] == kill_at:
            import ray

            ray.kill(self.handles[0], no_restart=False)
        if not lost:
            lost.append({"provider": self})
        start = time.perf_counter()
        response = await original(self, request)
        trace.added.append(time.perf_counter() - start - response.latency_s)
        return response

    RayProvider.complete = traced  # type: ignore[method-assign]
    try:
        config = BenchConfig(dataset="truthfulqa", model="vllm/judge", base_url=base_url,
                             limit=args.items, k=args.k)
        options = RunOptions(concurrency=args.concurrency, cache_path=None,
                             executor=executor,  # type: ignore[arg-type]
                             ray_actors=args.actors)
        cpu, wall = time.process_time(), time.perf_counter()
        result = run_bench(config, out, options=options, hooks=trace.hooks())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        RayProvider.complete = original  # type: ignore[method-assign]
    calls = result.totals.model_calls
    span = trace.stamps[-1] - trace.stamps[0] if len(trace.stamps) > 1 else wall
    judging_cpu = trace.cpu[-1] - trace.cpu[0] if len(trace.cpu) == 2 else cpu
    row: dict[str, Any] = {"executor": executor, "calls": calls, "wall_s": wall,
                           "calls_per_s": (len(trace.stamps) - 1) / span if span else 0.0,
                           "cpu_ms_per_call": 1000 * judging_cpu / max(1, len(trace.stamps) - 1)}
    if trace.added:
        added = sorted(1000 * a for a in trace.added)
        row.update(added_ms_mean=statistics.fmean(added), added_ms_p50=added[len(added) // 2],
                   added_ms_p95=added[int(len(added) * 0.95)])
    if lost:
        row["actors"] = lost[0]["provider"].actor_stats()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--kill-trials", type=int, default=3)
    args = parser.parse_args()

    import ray

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "jurybox", "serve-sim", "--dataset",
                               "truthfulqa", "--port", str(port), "--latency-ms",
                               str(args.latency_ms)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(100):
            try:
                sim_prompts(base_url)
                break
            except OSError:
                time.sleep(0.1)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            before = sim_prompts(base_url)
            local = one_run(args, base_url, root / "local", "local")  # before Ray's threads
            local_prompts = sim_prompts(base_url) - before
            start = time.perf_counter()
            ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False,
                     logging_level="WARNING")
            print(f"machine: {os.cpu_count()} cores; ray {ray.__version__}; ray.init "
                  f"{time.perf_counter() - start:.1f} s")
            print(f"bench truthfulqa: {args.items} items, direct + pcf K={args.k}, simulated "
                  f"judge at {args.latency_ms:g} ms a call, concurrency {args.concurrency}, "
                  f"{args.actors} Ray actors")
            on_ray = one_run(args, base_url, root / "ray", "ray")
            same = decisions(root / "ray") == decisions(root / "local")
            for row in (local, on_ray):
                extra = (f"  added latency per call: mean {row['added_ms_mean']:.2f} ms, p50 "
                         f"{row['added_ms_p50']:.2f}, p95 {row['added_ms_p95']:.2f}"
                         if "added_ms_mean" in row else "")
                print(f"  {row['executor']:5}: {row['calls']} calls, wall {row['wall_s']:.2f} s, "
                      f"{row['calls_per_s']:.0f} calls/s, driver CPU "
                      f"{row['cpu_ms_per_call']:.3f} ms/call{extra}")
            print(f"  identical decisions: {'yes' if same else 'NO'} "
                  f"({len(decisions(root / 'local'))} decisions)")
            print(f"  overhead per call (driver CPU, ray - local): "
                  f"{on_ray['cpu_ms_per_call'] - local['cpu_ms_per_call']:+.3f} ms")
            for trial in range(args.kill_trials):
                kill_at = max(2, local["calls"] * (trial + 1) // (args.kill_trials + 1))
                out = root / f"kill{trial}"
                before = sim_prompts(base_url)
                row = one_run(args, base_url, out, "ray", kill_at=kill_at)
                prompts = sim_prompts(base_url) - before
                lost = sum(a["lost_calls"] for a in row["actors"])
                print(f"  kill trial {trial + 1}: actor 0 killed at call {kill_at}: "
                      f"identical decisions: "
                      f"{'yes' if decisions(out) == decisions(root / 'local') else 'NO'}; "
                      f"answers received {paid(out)} (local {paid(root / 'local')}); server "
                      f"prompts {prompts} (local {local_prompts}); calls lost in flight "
                      f"{lost}; wall {row['wall_s']:.2f} s; actors {row['actors']}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
