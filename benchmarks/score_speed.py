"""How long ``jurybox score llmbar`` takes, and how many lines it prints.

Runs ``python -m jurybox score llmbar [ARGS]`` in fresh interpreters (``--runs`` times, after
one warm-up run that fills the file cache and the bytecode; the best taken: the run least
disturbed by other work on the machine) with ``COLUMNS`` set (80 by default, as a terminal
of 80 columns), and prints the best and every wall time in seconds, the lines printed and
how many are wider than ``COLUMNS``. The must-show of issue 33: the default output under 3 s
on 2 cores, under 150 lines, none wider than 80 columns (``--check`` exits 1 otherwise).
No timed assertion lives in the tests; this is where the time is measured.

    python benchmarks/score_speed.py [--runs 3] [--columns 80] [--check] [-- --detail ...]

The jurybox imported is the one beside this script (``src/``), whatever is installed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
SECONDS, LINES = 3.0, 150


def run(command: list[str], env: dict[str, str]) -> tuple[float, list[str]]:
    """Seconds one run of ``command`` takes, and its stdout lines (a failure raises)."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, done.stdout.splitlines()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs (best taken)")
    parser.add_argument("--columns", type=int, default=80, help="COLUMNS for the runs")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 at {SECONDS:g} s or more, {LINES} lines or more, or a "
                             f"line wider than --columns")
    parser.add_argument("extra", nargs="*", help="more arguments for jurybox score llmbar")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
        "COLUMNS": str(args.columns)}
    env.pop("JURYBOX_LOG_LEVEL", None)
    command = [sys.executable, "-m", "jurybox", "score", "llmbar", *args.extra]
    run(command, env)  # warm-up
    times, lines = [], []
    for _ in range(args.runs):
        seconds, lines = run(command, env)
        times.append(seconds)
    best = min(times)
    wide = sum(len(line) > args.columns for line in lines)
    shown = " ".join(command[2:])
    print(f"{shown} (best of {args.runs}): {best:.2f} s wall "
          f"(runs: {', '.join(f'{t:.2f}' for t in times)})")
    print(f"lines printed: {len(lines)}; wider than {args.columns} columns: {wide}")
    ok = best < SECONDS and len(lines) < LINES and wide == 0
    if args.check:
        print(f"must show (under {SECONDS:g} s, under {LINES} lines, none wider): "
              f"{'yes' if ok else 'NO'}")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
