"""SIGKILL a bench at random moments, resume it, and check nothing was lost or double-counted.

Each trial runs, in a child process,

    python -m jurybox bench truthfulqa --model sim --limit 120 --k 5 --protocols direct,pcf
        --sim-latency-ms 20 --sim-faults rate_429=0.03,rate_500=0.02,rate_malformed=0.05
        --concurrency 4 --out TMP/trial-I --cache TMP/trial-I.sqlite

kills it with SIGKILL at a random moment (0-100 ms after items.jsonl reaches a random number
of decisions, drawn from the first half of the work still to do), ``--kills`` times in a row
(each restart resumes the killed one), then runs it to the end. A trial passes when

- the latest decision of every (item, protocol) equals that of one uninterrupted run of the
  same command (its own folder and cache), and
- run.json's totals equal the totals recomputed from calls.jsonl (every logged call counted
  once, in the session that made it), and every session before the last says ``killed``.

Usage: python benchmarks/kill_resume.py [--trials 10] [--kills 1] [--seed 0]
The ten-kill scenario (10 kills, then a resume) is ``--trials 1 --kills 10``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from jurybox.rundir import read_jsonl  # noqa: E402
from _killing import kill_when  # noqa: E402
from jurybox.runner import Totals  # noqa: E402


def bench_args(out: Path, cache: Path) -> list[str]:
    return [sys.executable, "-m", "jurybox", "bench", "truthfulqa", "--model", "sim",
            "--limit", "120", "--k", "5", "--protocols", "direct,pcf", "--sim-latency-ms", "20",
            "--sim-faults", "rate_429=0.03,rate_500=0.02,rate_malformed=0.05",
            "--concurrency", "4", "--out", str(out), "--cache", str(cache)]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


def run_to_end(out: Path, cache: Path) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(bench_args(out, cache), env=env(), capture_output=True, text=True)
    if done.returncode not in (0, 3):
        raise SystemExit(f"bench failed ({done.returncode}): {done.stderr}")
    return time.perf_counter() - t0


def lines(path: Path) -> int:
    return len(path.read_bytes().splitlines()) if path.exists() else 0


def kill_at(out: Path, cache: Path, target: int, jitter: float) -> bool:
    """Start the bench and SIGKILL it ``jitter`` s after items.jsonl reaches ``target`` lines
    (so the kill lands mid-run, mid-call); False if it finished first."""
    return kill_when(bench_args(out, cache), env(),
                     lambda: lines(out / "items.jsonl") >= target, jitter)


def decisions(out: Path) -> dict[tuple[str, str], dict]:
    return {(r["item_id"], r["protocol"]): r for r in read_jsonl(out / "items.jsonl")}


def check(out: Path, reference: dict) -> tuple[bool, bool, list[str]]:
    manifest = json.loads((out / "run.json").read_text())
    logged = Totals.of_records(read_jsonl(out / "calls.jsonl")).as_dict()
    statuses = [s["status"] for s in manifest["sessions"]]
    return decisions(out) == reference, manifest["totals"] == logged, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--kills", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        wall = run_to_end(root / "clean", root / "clean.sqlite")
        reference = decisions(root / "clean")
        print(f"uninterrupted run: {wall:.1f} s, {len(reference)} decisions")
        passed = 0
        for trial in range(args.trials):
            out, cache = root / f"trial-{trial}", root / f"trial-{trial}.sqlite"
            moments = []
            for _ in range(args.kills):  # each kill somewhere in the work still to do
                written = lines(out / "items.jsonl")
                target = rng.randint(written + 1, max(written + 1, written
                                                      + (len(reference) - written) // 2))
                moments.append((target, round(rng.uniform(0, 0.1), 3)))
                kill_at(out, cache, *moments[-1])
            killed = len(json.loads((out / "run.json").read_text())["sessions"]) if (
                out / "run.json").exists() else 0
            run_to_end(out, cache)
            same, exact, statuses = check(out, reference)
            # a kill before the run directory opened leaves no session behind
            ok = (same and exact and set(statuses[:-1]) <= {"killed"}
                  and statuses[-1] in ("complete", "partial"))
            passed += ok
            print(f"trial {trial}: killed {killed}x at (decisions written, s after) {moments}; "
                  f"decisions identical: {same}; "
                  f"totals equal logged calls: {exact}; sessions: {statuses}")
        print(f"{passed} of {args.trials} trials passed")


if __name__ == "__main__":
    main()
