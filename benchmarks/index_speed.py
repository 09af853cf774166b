"""How long listing runs takes: ``list_runs``, ``write_index`` (reports left as they are) and
the ``jurybox runs`` command, on a folder of ``--runs`` copies of real run directories.

The runs copied are those under ``--source`` (default: a bench run of 200 TruthfulQA items,
direct vs PCF K=7 with the simulated judge, made first in a temporary folder; ``runs/demo``
after ``jurybox demo`` is a good source too), taken in turn until there are ``--runs``. The
listing reads run.json and summary.json only, so its time should not follow the size of
items.jsonl and calls.jsonl, which is printed beside it.

Usage: python benchmarks/index_speed.py [--runs 50] [--source runs/demo] [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from jurybox.reports import list_runs, write_index  # noqa: E402


def _source(folder: Path) -> Path:
    from jurybox.compare import BenchConfig, run_bench
    from jurybox.run import RunOptions

    out = folder / "source" / "truthfulqa"
    run_bench(BenchConfig(dataset="truthfulqa", limit=200, k=7), out,
              options=RunOptions(cache_path=None, concurrency=16))
    return out.parent


def _median_s(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--source", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = args.source or _source(folder)
        runs = [e.path for e in list_runs(source) if e.status != "unreadable"]
        target = folder / "many"
        for i in range(args.runs):
            run = runs[i % len(runs)]
            shutil.copytree(run, target / f"{i:03d}-{run.name}", ignore=shutil.ignore_patterns(
                "judges", "rescored"))
        unread = sum(p.stat().st_size for p in target.rglob("*.jsonl"))
        found = list_runs(target)
        listing = _median_s(lambda: list_runs(target), args.repeat)
        page = _median_s(lambda: write_index(target, update_reports=False), args.repeat)
        command = _median_s(lambda: subprocess.run(
            [sys.executable, "-m", "jurybox", "runs", str(target)], capture_output=True,
            check=True), max(1, args.repeat // 2))
        print(f"{len(found)} runs (copies of {len(runs)} under {source}); items.jsonl and "
              f"calls.jsonl not read: {unread / 1e6:.1f} MB")
        print(f"list_runs: {1000 * listing:.1f} ms ({1000 * listing / len(found):.2f} ms a run)")
        print(f"write_index (reports as they are): {1000 * page:.1f} ms; index.html "
              f"{(target / 'index.html').stat().st_size / 1000:.1f} kB")
        print(f"jurybox runs (a new interpreter, imports included): {command:.2f} s")


if __name__ == "__main__":
    main()
