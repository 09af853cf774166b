"""How long ``jurybox report`` takes as a run grows, while the page holds the same items.

For each N, writes N generic listwise items (4 candidates each, seeded; the item shape of
:mod:`benchmarks.scale`), judges them with the embedded simulated judge (protocols direct
and pcf at ``--k`` orders: K calls per item, direct shares PCF's first), then times

    python -m jurybox report RUN --force

in a fresh process (imports included, as a user waits for it) ``--repeats`` times and prints
the best and the median, with the run's size (items, calls.jsonl) and the page's size. The
runs are kept under ``--keep DIR`` when given (a rerun reuses them), else in a temporary
folder.

Target: under 2 s at 10,000 items on a 2-core machine; the item browser holds
300 items whatever the run's size, so the time should follow the page, not the run.

Usage: python benchmarks/report_speed.py [--n 2000,10000] [--k 2] [--repeats 3] [--keep DIR]
Another jurybox (an older checkout) is measured with PYTHONPATH=/path/to/checkout/src.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from scale import write_items  # noqa: E402


def build_run(folder: Path, n: int, k: int) -> Path:
    """A finished bench run of ``n`` items in ``folder/run`` (reused when it is there)."""
    from jurybox.compare import BenchConfig, run_bench
    from jurybox.run import RunOptions

    out = folder / "run"
    if (out / "summary.json").is_file():
        return out
    data = folder / f"items-{n}.jsonl"
    write_items(data, n)
    run_bench(BenchConfig(dataset=str(data), model="sim", k=k, protocols=("direct", "pcf")),
              out,
              options=RunOptions(cache_path=None, concurrency=64))
    return out


def time_report(run: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``python -m jurybox report RUN --force`` in
    a fresh process. On a shared machine the wall time waits for other processes; the CPU
    time is what the command itself spent."""
    env = {**os.environ, "PYTHONPATH": os.environ.get(
        "PYTHONPATH", str(Path(__file__).resolve().parents[1] / "src"))}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "jurybox", "report", str(run), "--force"],
                            stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"jurybox report {run} failed")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="2000,10000", help="item counts, comma list")
    parser.add_argument("--k", type=int, default=2, help="PCF orders per item")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep (and reuse) the runs under this folder")
    args = parser.parse_args()
    print(f"{'items':>7} {'calls.jsonl MB':>15} {'report.html MB':>15} {'best s':>7} "
          f"{'median s':>9} {'CPU s (best)':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        for n in (int(x) for x in args.n.split(",")):
            folder = root / f"n{n}-k{args.k}"
            folder.mkdir(parents=True, exist_ok=True)
            run = build_run(folder, n, args.k)
            walls, cpus = zip(*(time_report(run) for _ in range(args.repeats)))
            calls = (run / "calls.jsonl").stat().st_size / 1e6
            page = (run / "report.html").stat().st_size / 1e6
            print(f"{n:>7,} {calls:>15.1f} {page:>15.2f} {min(walls):>7.2f} "
                  f"{statistics.median(walls):>9.2f} {min(cpus):>13.2f}", flush=True)


if __name__ == "__main__":
    main()
