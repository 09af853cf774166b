"""How long ``jurybox --help`` takes against importing typer and rich alone.

Runs, in fresh interpreters on this machine, ``python -m jurybox --help`` and ``python -c
"import typer, rich.console"`` (each ``--runs`` times, interleaved, best taken: the least
disturbed by other work on the machine) and prints both wall times, seconds, and their
ratio. The must-show of issue 30: the ratio at most 2 (``--check`` exits 1 above it).

    python benchmarks/help_speed.py [--runs 5] [--check]

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
HELP = [sys.executable, "-m", "jurybox", "--help"]
BASELINE = [sys.executable, "-c", "import typer, rich.console"]
LIMIT = 2.0


def wall(command: list[str], env: dict[str, str]) -> float:
    """Seconds one run of ``command`` takes (output discarded; a failure raises)."""
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each (best taken)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 above {LIMIT}x")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(SRC), os.environ.get("PYTHONPATH")])), "COLUMNS": "100"}
    env.pop("JURYBOX_LOG_LEVEL", None)
    wall(HELP, env), wall(BASELINE, env)  # warm the file cache and the bytecode
    helps, bases = [], []
    for _ in range(args.runs):
        helps.append(wall(HELP, env))
        bases.append(wall(BASELINE, env))
    best_help, best_base = min(helps), min(bases)
    ratio = best_help / best_base
    print(f"jurybox --help (best of {args.runs}): {best_help:.3f} s")
    print(f'python -c "import typer, rich.console" (best of {args.runs}): {best_base:.3f} s')
    print(f"ratio: {ratio:.2f} (must show: at most {LIMIT:g})")
    return 1 if args.check and ratio > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
