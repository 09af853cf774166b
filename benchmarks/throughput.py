"""Throughput of jurybox's runner against the simulated judge, next to a plain AsyncOpenAI loop.

The simulated judge runs in its own process (`python -m jurybox serve-sim`) on 127.0.0.1 and
answers every call after `--latency-ms` (default 200). For each concurrency c, each client first
sends one untimed round of c calls (opening its connection pool, as a long evaluation has it
open), then c x rounds distinct timed requests with at most c in flight; the ideal rate is
c / latency. Printed per client and concurrency: calls/s, % of ideal, and client CPU per call
(process CPU time of this process during the timed phase / calls; the server's CPU is not
counted). On 2 cores the server and the client share the machine, so even the bare aiohttp
loop stays below 100%: it is the ceiling to compare with. The process applies
`jurybox.runner.tune_gc()` first, as the `jurybox` CLI does (every client benefits alike;
`--default-gc` measures without it).

Clients:
- jurybox runner: `Runner` over `OpenAICompatibleProvider` (aiohttp transport, the default),
  no cache, trivial parse;
- jurybox runner (sdk transport): the same runner over the official openai SDK;
- plain AsyncOpenAI: a bare `asyncio.Semaphore` loop over `AsyncOpenAI.chat.completions.create`;
- bare aiohttp: a bare semaphore loop of aiohttp POSTs, the ceiling any Python client reaches
  against this server on this machine (no retries, no bookkeeping).

Target: jurybox runner >= 90% of ideal at c=128 and >= 70% at c=512.

Usage: python benchmarks/throughput.py [--latency-ms 200] [--rounds 10] [--concurrency 32,128,512]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

import aiohttp
import openai

from jurybox.providers import ChatRequest, Message, OpenAICompatibleProvider
from jurybox.runner import Job, RetryPolicy, Runner, tune_gc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, latency_ms: float) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "jurybox", "serve-sim", "--dataset", "none",
                             "--port", str(port), "--latency-ms", str(latency_ms)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("simulated judge did not start")


def requests(n: int, tag: str) -> list[ChatRequest]:
    return [ChatRequest(messages=(Message(role="user", content=f"{tag} call {i}: which is best?"),),
                        max_tokens=64) for i in range(n)]


class Timer:
    """Wall and process-CPU time of the timed phase only."""

    def __enter__(self) -> "Timer":
        self.cpu0, self.t0 = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.t0
        self.cpu = time.process_time() - self.cpu0


async def run_jurybox(base_url: str, c: int, warm: list[ChatRequest], reqs: list[ChatRequest],
                      timer: Timer, *, transport: str) -> None:
    provider = OpenAICompatibleProvider("sim", "judge", base_url, transport=transport,
                                        timeout_s=60)
    runner = Runner(provider, cache=None, concurrency=c, retry=RetryPolicy(attempts=1))
    try:
        await asyncio.gather(*(runner.run(Job(r, str)) for r in warm))
        with timer:
            outcomes = await asyncio.gather(*(runner.run(Job(r, str)) for r in reqs))
    finally:
        await provider.aclose()
    failed = sum(not o.ok for o in outcomes)
    if failed:
        print(f"  ({failed} failed calls)")


async def run_plain_openai(base_url: str, c: int, warm: list[ChatRequest],
                           reqs: list[ChatRequest], timer: Timer) -> None:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=60)
    slots = asyncio.Semaphore(c)

    async def one(r: ChatRequest) -> str:
        async with slots:
            out = await client.chat.completions.create(
                model="judge", messages=[m.model_dump() for m in r.messages],
                max_tokens=r.max_tokens, temperature=r.temperature)
            return out.choices[0].message.content or ""

    try:
        await asyncio.gather(*(one(r) for r in warm))
        with timer:
            await asyncio.gather(*(one(r) for r in reqs))
    finally:
        await client.close()


async def run_bare_aiohttp(base_url: str, c: int, warm: list[ChatRequest],
                           reqs: list[ChatRequest], timer: Timer) -> None:
    slots = asyncio.Semaphore(c)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1024)) as session:
        async def one(r: ChatRequest) -> str:
            async with slots:
                async with session.post(f"{base_url}/chat/completions", json={
                        "model": "judge", "messages": [m.model_dump() for m in r.messages],
                        "max_tokens": r.max_tokens}) as resp:
                    return (await resp.json())["choices"][0]["message"]["content"]
        await asyncio.gather(*(one(r) for r in warm))
        with timer:
            await asyncio.gather(*(one(r) for r in reqs))


def measure(name: str, run, n: int, c: int, latency_s: float) -> dict:
    timer = Timer()
    asyncio.run(run(timer))
    rate, ideal = n / timer.wall, c / latency_s
    return {"client": name, "c": c, "calls": n, "rate": rate, "pct": 100 * rate / ideal,
            "cpu_ms": 1000 * timer.cpu / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--latency-ms", type=float, default=200.0)
    ap.add_argument("--rounds", type=int, default=20, help="timed calls per client = c x rounds")
    ap.add_argument("--repeat", type=int, default=3,
                    help="measurements per (client, c); the median is summarised")
    ap.add_argument("--default-gc", action="store_true",
                    help="keep CPython's default GC settings instead of jurybox.runner.tune_gc "
                         "(which the jurybox CLI applies)")
    ap.add_argument("--concurrency", default="32,128,512")
    ap.add_argument("--clients", default="jurybox,jurybox-sdk,openai,aiohttp")
    args = ap.parse_args()
    if not args.default_gc:
        tune_gc()  # as the jurybox CLI does; applies to every client alike
    port = free_port()
    server = start_server(port, args.latency_ms)
    base_url = f"http://127.0.0.1:{port}/v1"
    latency_s = args.latency_ms / 1000
    clients = args.clients.split(",")
    rows = []
    try:
        for c in map(int, args.concurrency.split(",")):
            n = c * args.rounds
            for name in [cl for _ in range(args.repeat) for cl in clients]:
                tag = f"{name}-{c}-{time.time_ns()}"
                warm, reqs = requests(c, f"warm-{tag}"), requests(n, tag)
                run = {
                    "jurybox": functools.partial(run_jurybox, transport="aiohttp"),
                    "jurybox-sdk": functools.partial(run_jurybox, transport="sdk"),
                    "openai": run_plain_openai,
                    "aiohttp": run_bare_aiohttp,
                }[name]
                row = measure(name, functools.partial(run, base_url, c, warm, reqs), n, c,
                              latency_s)
                rows.append(row)
                print(f"c={c:4d}  {name:12s} {row['calls']:6d} calls  {row['rate']:8.1f} calls/s  "
                      f"{row['pct']:5.1f}% of ideal  {row['cpu_ms']:.2f} ms CPU/call", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"\nlatency {args.latency_ms:g} ms, ideal = c / latency; median of {args.repeat} "
          f"runs, % of ideal and client CPU per call:")
    for name in clients:
        cells = []
        for c in map(int, args.concurrency.split(",")):
            mine = [r for r in rows if r["client"] == name and r["c"] == c]
            cells.append(f"c={c}: {statistics.median(r['pct'] for r in mine):5.1f}% "
                         f"{statistics.median(r['cpu_ms'] for r in mine):.2f} ms")
        print(f"  {name:12s} " + "   ".join(cells))


if __name__ == "__main__":
    main()
