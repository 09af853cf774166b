"""Throughput of 1 versus several capped simulated judge replicas, driven round-robin.

Each replica is a simulated judge with a capacity (`--max-concurrency`, default 4: that many
chat completions answered at once, the rest queued first in, first out) and a service time
(`--latency-ms`, default 200, held while a request occupies its slot), as a GPU server serving
a judge model: one replica answers at most max_concurrency / latency calls per second (20/s
with the defaults), whatever the client sends. The client is a plain aiohttp loop with
`--concurrency` calls in flight (default 64, well above the replicas' total capacity) sending
call i to replica i mod n. For 1 and then `--replicas` (default 3) replicas it prints calls/s,
the ideal (n x max_concurrency / latency) and % of it, and each replica's counters from
`/v1/sim/stats` (max_in_flight should equal max_concurrency, queued_max shows the backlog),
then the ratio of the two rates (ideal: the replica count).

The replicas run in this process, each a `SimServer` on its own thread and event loop
(`--processes`: each a `python -m jurybox serve-sim` process instead). `start_replicas` starts
N of them and yields their base URLs, for other benchmarks to drive (jurybox's endpoint pool).

Usage: python benchmarks/replicas.py [--replicas 3] [--max-concurrency 4] [--latency-ms 200]
       [--concurrency 64] [--calls 480] [--processes]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import aiohttp

from jurybox.sim import SimConfig, SimJudge, SimServer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(base_url: str, proc: subprocess.Popen) -> None:
    for _ in range(400):
        try:
            urllib.request.urlopen(f"{base_url}/models", timeout=1)
            return
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    raise RuntimeError(f"simulated judge at {base_url} did not start")


@contextlib.contextmanager
def start_replicas(n: int, *, max_concurrency: int | None = 4, latency_ms: float = 200.0,
                   processes: bool = False) -> Iterator[list[str]]:
    """Start ``n`` simulated judges on free 127.0.0.1 ports, each answering at most
    ``max_concurrency`` chat completions at once (None: unlimited) with a service time of
    ``latency_ms`` milliseconds; yield their base URLs (``http://127.0.0.1:PORT/v1``) and stop
    them on exit. They know no items (``--dataset none``). In this process (one thread and
    event loop each), or with ``processes`` as ``python -m jurybox serve-sim`` processes."""
    config = SimConfig(latency_ms=latency_ms)
    with contextlib.ExitStack() as stack:
        urls = []
        for _ in range(n):
            if processes:
                port = free_port()
                cmd = [sys.executable, "-m", "jurybox", "serve-sim", "--dataset", "none",
                       "--port", str(port), "--latency-ms", str(latency_ms)]
                if max_concurrency is not None:
                    cmd += ["--max-concurrency", str(max_concurrency)]
                proc = stack.enter_context(subprocess.Popen(
                    cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                stack.callback(proc.terminate)  # runs before Popen's exit waits for it
                urls.append(f"http://127.0.0.1:{port}/v1")
                _wait_until_up(urls[-1], proc)
            else:
                server = stack.enter_context(SimServer(SimJudge([], config),
                                                       max_concurrency=max_concurrency))
                urls.append(server.base_url)
        yield urls


def sim_stats(base_url: str) -> dict:
    """A replica's counters (``GET /v1/sim/stats``)."""
    with urllib.request.urlopen(f"{base_url}/sim/stats", timeout=10) as resp:
        return json.loads(resp.read())


def _body(tag: str, i: int) -> dict:
    return {"model": "judge", "max_tokens": 64,
            "messages": [{"role": "user", "content": f"{tag} call {i}: which is best?"}]}


async def drive(urls: list[str], *, calls: int, concurrency: int, tag: str) -> float:
    """Send ``calls`` distinct chat completions, call i to ``urls[i % len(urls)]``, with
    ``concurrency`` in flight; after one untimed call per replica (opening connections),
    return the timed phase's wall time, seconds. Raises RuntimeError on a non-200 answer."""
    next_call = iter(range(calls))
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as http:
        async def post(i: int) -> None:
            url = urls[i % len(urls)] + "/chat/completions"
            async with http.post(url, json=_body(tag, i)) as resp:
                if resp.status != 200:
                    raise RuntimeError(f"{url} answered {resp.status}: {await resp.text()}")
                await resp.read()

        async def worker() -> None:
            for i in next_call:
                await post(i)

        await asyncio.gather(*(post(-1 - r) for r in range(len(urls))))  # untimed warm-up
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=3, help="compared with 1 replica")
    ap.add_argument("--max-concurrency", type=int, default=4, help="capacity of each replica")
    ap.add_argument("--latency-ms", type=float, default=200.0, help="service time per call")
    ap.add_argument("--concurrency", type=int, default=64, help="client calls in flight")
    ap.add_argument("--calls", type=int, default=480, help="timed calls per measurement")
    ap.add_argument("--processes", action="store_true",
                    help="run each replica as a `python -m jurybox serve-sim` process")
    args = ap.parse_args()
    latency_s = args.latency_ms / 1000
    print(f"each replica: --max-concurrency {args.max_concurrency}, --latency-ms "
          f"{args.latency_ms:g} ({'processes' if args.processes else 'threads'}); client: "
          f"{args.concurrency} in flight, {args.calls} calls round-robin")
    print(f"{'replicas':>8} {'capacity':>8} {'ideal/s':>8} {'calls/s':>8} {'% ideal':>8}  "
          f"max_in_flight  queued_max")
    rates = {}
    for n in (1, args.replicas):
        with start_replicas(n, max_concurrency=args.max_concurrency,
                            latency_ms=args.latency_ms, processes=args.processes) as urls:
            wall = asyncio.run(drive(urls, calls=args.calls, concurrency=args.concurrency,
                                     tag=f"r{n}-{time.time_ns()}"))
            stats = [sim_stats(u) for u in urls]
        rates[n] = args.calls / wall
        ideal = n * args.max_concurrency / latency_s
        print(f"{n:>8} {n * args.max_concurrency:>8} {ideal:>8.1f} {rates[n]:>8.1f} "
              f"{100 * rates[n] / ideal:>7.1f}%  "
              f"{','.join(str(s['max_in_flight']) for s in stats):>13}  "
              f"{','.join(str(s['queued_max']) for s in stats):>10}", flush=True)
    print(f"{args.replicas} replicas / 1 replica: {rates[args.replicas] / rates[1]:.2f}x "
          f"(ideal {args.replicas}.00x)")


if __name__ == "__main__":
    main()
