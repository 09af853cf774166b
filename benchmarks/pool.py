"""jurybox's endpoint pool against capped simulated judge replicas: scaling, item affinity, and
a replica killed mid-run and restarted.

Every replica is a `python -m jurybox serve-sim --dataset truthfulqa --max-concurrency 4
--latency-ms 200` process of its own (4 answers at once, 200 ms each, the rest queued first
in, first out: 20 calls/s at most per replica, as a GPU server's batch slots). Every run is

    python -m jurybox bench truthfulqa --model vllm/judge --base-url URL [--base-url URL ...]
        --limit N --k 7 --no-cache --concurrency 64 --out DIR

in a child process (direct and PCF, K = 7: about 6.6 calls per item, the direct call being
PCF's first order). Three measurements:

1. **Scaling**: 1 replica, then ``--replicas`` (3) at the same per-replica capacity; calls/s
   is run.json's model calls / the session's seconds, next to the ideal (replicas x
   max_concurrency / latency); the ratio of the two rates (target >= 2.7x); CPU per call of
   the bench process (all of it: start-up, statistics and report included) and of the
   replicas; the decisions (winners, C_i, top picks per item and protocol, from
   items.jsonl) identical to the 1-replica run's.
2. **Item affinity**, from the 3-replica run's session: items whose every call went to one
   replica / items (target >= 95%), and each replica's calls, share and mean latency.
3. **A replica killed**: 2 replicas; ``--kill-after`` s after the run's first call the second
   replica's process is SIGKILLed, ``--down`` s later it is started again on the same port.
   The run must exit 0 with 0 failed judgments, items x protocols judgments, run.json's
   totals equal to those recomputed from calls.jsonl, and decisions identical to an
   uninterrupted 2-replica run's. Prints each replica's calls, failures and cooldowns, the
   run's retries, and the calls the restarted replica answered (its `/v1/sim/stats`).

The machine's load average is printed first and last: the replicas, the bench and anything
else running share its cores.

Usage: python benchmarks/pool.py [--limit 90] [--replicas 3] [--max-concurrency 4]
       [--latency-ms 200] [--kill-after 4] [--down 3] [--only scaling|kill] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from jurybox.rundir import read_jsonl  # noqa: E402
from jurybox.runner import Totals  # noqa: E402
from replicas import _wait_until_up, free_port, sim_stats  # noqa: E402

PROTOCOLS = ("direct", "pcf")


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


class Replica:
    """One `serve-sim` process on a fixed port, which can be SIGKILLed and started again."""

    def __init__(self, port: int, *, max_concurrency: int, latency_ms: float) -> None:
        self.port, self.url = port, f"http://127.0.0.1:{port}/v1"
        self.cmd = [sys.executable, "-m", "jurybox", "serve-sim", "--dataset", "truthfulqa",
                    "--port", str(port), "--latency-ms", str(latency_ms),
                    "--max-concurrency", str(max_concurrency)]
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(self.cmd, env=env(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        _wait_until_up(self.url, self.proc)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the running process has used."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


@contextlib.contextmanager
def replicas(n: int, args: argparse.Namespace) -> Iterator[list[Replica]]:
    """``n`` started replicas, stopped on exit."""
    started: list[Replica] = []
    try:
        for _ in range(n):
            started.append(Replica(free_port(), max_concurrency=args.max_concurrency,
                                   latency_ms=args.latency_ms))
            started[-1].start()
        yield started
    finally:
        for r in started:
            r.stop()


def start_bench(urls: list[str], out: Path, args: argparse.Namespace) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "jurybox", "bench", "truthfulqa", "--model", "vllm/judge"]
    for url in urls:
        cmd += ["--base-url", url]
    cmd += ["--limit", str(args.limit), "--k", "7", "--no-cache", "--concurrency", "64",
            "--out", str(out)]
    with open(out.with_suffix(".log"), "w") as log:  # the child keeps its own copy
        return subprocess.Popen(cmd, env=env(), stdout=log, stderr=subprocess.STDOUT)


def finish(proc: subprocess.Popen) -> tuple[int, float]:
    """Wait for the bench: its exit code and CPU seconds (user + system)."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


def decisions(out: Path) -> dict[tuple[str, str], tuple]:
    """Per (item, protocol): winners, C_i and top picks of its latest decision."""
    return {(r["item_id"], r["protocol"]): (r["winners"], r["combined"], r["top_picks"])
            for r in read_jsonl(out / "items.jsonl")}


def session(out: Path) -> dict:
    return json.loads((out / "run.json").read_text())["sessions"][-1]


def run(urls: list[str], out: Path, args: argparse.Namespace) -> dict:
    """One bench to the end: exit code, CPU seconds, the session and the decisions."""
    code, cpu = finish(start_bench(urls, out, args))
    return {"code": code, "cpu": cpu, "session": session(out), "decisions": decisions(out)}


def scaling(root: Path, args: argparse.Namespace) -> None:
    latency_s = args.latency_ms / 1000
    print(f"\n1. scaling: each replica --max-concurrency {args.max_concurrency} --latency-ms "
          f"{args.latency_ms:g}; bench truthfulqa --limit {args.limit} --k 7 --concurrency 64")
    print(f"{'replicas':>8} {'ideal/s':>8} {'calls':>6} {'seconds':>8} {'calls/s':>8} "
          f"{'% ideal':>8} {'bench CPU ms/call':>18} {'sim CPU ms/call':>16}  "
          f"decisions as 1 replica")
    results = {}
    for n in (1, args.replicas):
        with replicas(n, args) as pool:
            cpu0 = [r.cpu_s() for r in pool]
            res = run([r.url for r in pool], root / f"scaling-{n}", args)
            sim_cpu = sum(r.cpu_s() for r in pool) - sum(cpu0)
        results[n] = res
        calls, seconds = res["session"]["totals"]["model_calls"], res["session"]["seconds"]
        rate, ideal = calls / seconds, n * args.max_concurrency / latency_s
        res["rate"] = rate
        same = res["decisions"] == results[1]["decisions"]
        print(f"{n:>8} {ideal:>8.1f} {calls:>6} {seconds:>8.2f} {rate:>8.1f} "
              f"{100 * rate / ideal:>7.1f}% {1000 * res['cpu'] / calls:>18.2f} "
              f"{1000 * sim_cpu / calls:>16.2f}  {same} (exit {res['code']}, "
              f"{len(res['decisions'])} decisions)", flush=True)
    ratio = results[args.replicas]["rate"] / results[1]["rate"]
    print(f"{args.replicas} replicas / 1 replica: {ratio:.2f}x (ideal {args.replicas}.00x, "
          f"target >= 2.7x)")

    pooled = results[args.replicas]["session"]
    items, kept = pooled["items"], pooled["items_on_one_replica"]
    print(f"\n2. item affinity ({args.replicas}-replica run): {kept} of {items} items had every "
          f"call on one replica: {100 * kept / items:.1f}% (target >= 95%)")
    print(f"{'replica':>26} {'calls':>6} {'share':>6} {'failures':>8} {'mean latency s':>14}")
    for r in pooled["replicas"]:
        print(f"{r['url']:>26} {r['calls']:>6} {r['share']:>6.3f} {r['failures']:>8} "
              f"{r['mean_latency_s']:>14}")


def killed(root: Path, args: argparse.Namespace) -> None:
    print(f"\n3. a replica killed: 2 replicas; the second SIGKILLed {args.kill_after:g} s after "
          f"the run's first call, restarted on its port {args.down:g} s later")
    with replicas(2, args) as pool:
        reference = run([r.url for r in pool], root / "uninterrupted", args)
    with replicas(2, args) as pool:
        out = root / "killed"
        proc = start_bench([r.url for r in pool], out, args)
        calls = out / "calls.jsonl"
        while proc.poll() is None and not (calls.exists() and calls.stat().st_size):
            time.sleep(0.01)
        time.sleep(args.kill_after)
        pool[1].kill()
        down_at = time.monotonic()
        time.sleep(args.down)
        pool[1].start()
        up_after = time.monotonic() - down_at
        code, _ = finish(proc)
        after_restart = sim_stats(pool[1].url)["prompts"]  # answered by the new process
    sess, manifest = session(out), json.loads((out / "run.json").read_text())
    rows = read_jsonl(out / "items.jsonl")
    keys = {(r["item_id"], r["protocol"]) for r in rows}
    failed = sum(r["failed"] for r in rows)
    logged = Totals.of_records(read_jsonl(calls)).as_dict()
    same = decisions(out) == reference["decisions"]
    print(f"replica down {up_after:.1f} s (SIGKILL to answering again); exit {code}; "
          f"status {sess['status']}; {len(rows)} judgments ({len(keys)} distinct, expected "
          f"{args.limit} items x {len(PROTOCOLS)} protocols = {args.limit * len(PROTOCOLS)}); "
          f"{failed} failed")
    t, ref = sess["totals"], reference["session"]
    print(f"model calls {t['model_calls']} (uninterrupted: {ref['totals']['model_calls']}), "
          f"retries {t['retries']}, failed calls {t['failures']}; seconds {sess['seconds']:.1f} "
          f"(uninterrupted: {ref['seconds']:.1f})")
    print(f"decisions identical to the uninterrupted run: {same}; run.json totals equal "
          f"calls.jsonl recomputed: {manifest['totals'] == logged}; items on one replica "
          f"{sess['items_on_one_replica']} of {sess['items']}; calls the killed replica "
          f"answered after its restart: {after_restart}")
    print(f"{'replica':>26} {'calls':>6} {'share':>6} {'failures':>8} {'cooldowns':>9} "
          f"{'gone':>5}")
    for r in sess["replicas"]:
        print(f"{r['url']:>26} {r['calls']:>6} {r['share']:>6.3f} {r['failures']:>8} "
              f"{r['cooldowns']:>9} {str(r['gone']):>5}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=90, help="TruthfulQA items per run")
    ap.add_argument("--replicas", type=int, default=3, help="compared with 1 replica")
    ap.add_argument("--max-concurrency", type=int, default=4, help="capacity of each replica")
    ap.add_argument("--latency-ms", type=float, default=200.0, help="service time per call")
    ap.add_argument("--kill-after", type=float, default=4.0,
                    help="seconds after the first call to SIGKILL a replica")
    ap.add_argument("--down", type=float, default=3.0,
                    help="seconds before the killed replica is started again")
    ap.add_argument("--only", choices=("scaling", "kill"), help="one measurement only")
    ap.add_argument("--keep", type=Path, help="keep the run directories here")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with contextlib.ExitStack() as stack:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            root = args.keep
        else:
            root = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        if args.only != "kill":
            scaling(root, args)
        if args.only != "scaling":
            killed(root, args)
    print(f"\nload average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
