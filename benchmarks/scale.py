"""Memory and speed of a bench as the dataset grows: peak RSS of the jurybox process, calls/s.

For each N, writes N generic listwise items (4 candidates each, seeded) to a temporary JSONL
file, starts the simulated judge in its own process (`python -m jurybox serve-sim --latency-ms 0
--dataset FILE`, so it knows the items), and runs, in another process,

    python -m jurybox bench FILE --model vllm/judge --base-url http://127.0.0.1:PORT/v1
        --protocols direct --concurrency 64 --out TMP/run --cache TMP/cache.sqlite

with a fresh cache. Printed per N: peak RSS of the bench process (its own `ru_maxrss` from
`os.wait4`, the server's not counted), wall seconds of the judging session (run.json), model
calls, calls/s (calls / session seconds) and the bench process's CPU time per call (whole
process: start-up, dataset check and summary included).

Targets: peak RSS under 500 MB at 50,000 items and within 25% of the 5,000-item
figure; calls/s no lower than before the run engine (877 calls/s at 50,000, concurrency 64).

Usage: python benchmarks/scale.py [--n 5000,50000] [--concurrency 64] [--repeats 1]
Another jurybox (an older checkout) is measured with PYTHONPATH=/path/to/checkout/src.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

WORDS = ("the river crosses seven old bridges before it reaches a quiet harbour where "
         "fishermen mend nets and tell stories about storms long past").split()


def write_items(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            cands = [" ".join(rng.choices(WORDS, k=18)) + f" ({i}.{j})" for j in range(4)]
            fh.write(json.dumps({"id": f"item-{i}", "prompt": f"Question {i}: "
                                 + " ".join(rng.choices(WORDS, k=12)) + "?",
                                 "candidates": cands, "gold": rng.randrange(4)}) + "\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, dataset: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "jurybox", "serve-sim", "--dataset",
                             str(dataset), "--port", str(port), "--latency-ms", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
            return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("serve-sim exited before answering") from None
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("serve-sim did not answer within 600 s")


def run_bench(dataset: Path, port: int, out: Path, concurrency: int) -> dict:
    cmd = [sys.executable, "-m", "jurybox", "bench", str(dataset), "--model", "vllm/judge",
           "--base-url", f"http://127.0.0.1:{port}/v1", "--protocols", "direct",
           "--concurrency", str(concurrency), "--out", str(out / "run"),
           "--cache", str(out / "cache.sqlite")]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        tail = proc.stderr.read().decode()[-2000:] if proc.stderr else ""
        raise SystemExit(f"bench failed: {tail}")
    manifest = json.loads((out / "run" / "run.json").read_text())
    seconds = manifest["sessions"][-1]["seconds"]
    calls = manifest["totals"]["model_calls"]
    return {"peak_rss_mb": usage.ru_maxrss / 1024, "wall_s": wall, "session_s": seconds,
            "calls": calls, "calls_per_s": calls / seconds,
            "cpu_ms_per_call": 1000 * (usage.ru_utime + usage.ru_stime) / calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="5000,50000", help="item counts, comma list")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print(f"{'items':>9} {'peak RSS MB':>12} {'session s':>10} {'calls':>8} {'calls/s':>8} "
          f"{'CPU ms/call':>12}")
    for n in (int(x) for x in args.n.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / f"items-{n}.jsonl"
            write_items(data, n)
            port = free_port()
            server = start_server(port, data)
            try:
                for r in range(args.repeats):
                    res = run_bench(data, port, Path(tmp) / f"r{r}", args.concurrency)
                    print(f"{n:>9,} {res['peak_rss_mb']:>12.0f} {res['session_s']:>10.1f} "
                          f"{res['calls']:>8,} {res['calls_per_s']:>8.0f} "
                          f"{res['cpu_ms_per_call']:>12.3f}", flush=True)
            finally:
                server.terminate()
                server.wait()


if __name__ == "__main__":
    main()
