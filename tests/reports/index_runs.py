"""Real runs for the index tests: a bench, a judge, a jury (its judges below it), an
agreement folder and a damaged run, all small, with the simulated judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from tests.conftest import FAST_RETRY

#: Krippendorff (2011) data "C": 4 observers x 12 units, None = missing; nominal alpha 0.743.
DATA_C = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
          [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
          [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
          [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]


class IndexRuns(NamedTuple):
    root: Path
    results: dict[str, Any]  # name -> what the library returned for it


def make_runs(folder: Path) -> IndexRuns:
    """``folder/runs`` holding bench, judge, jury (judges a, b), agree and broken."""
    from jurybox import judge
    from jurybox.agreement import run_agreement
    from jurybox.compare import BenchConfig, run_bench
    from jurybox.run import RunOptions

    root = folder / "runs"
    options = RunOptions(cache_path=None, retry=FAST_RETRY, concurrency=4)
    results: dict[str, Any] = {
        "bench": run_bench(BenchConfig(dataset="truthfulqa", limit=4, k=2), root / "bench",
                           options=options)}
    pairs = folder / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"id": f"p{i}", "prompt": f"Better answer {i}?",
                                         "candidates": [f"first {i}", f"second {i}"]}) + "\n"
                             for i in range(4)))
    results["judge"] = judge(pairs, model="sim", protocol="both-orders", out=root / "judge",
                             options=options)
    results["jury"] = judge(pairs, protocol="both-orders", out=root / "jury", options=options,
                            jury=[{"model": "sim", "name": "a", "sim": {"bias": "primacy"}},
                                  {"model": "sim", "name": "b", "sim": {"bias": "recency"}}])
    ratings = folder / "c.csv"
    ratings.write_text("item_id,rater_id,dimension,score\n" + "".join(
        f"u{unit},r{rater},c,{score}\n" for rater, row in enumerate(DATA_C)
        for unit, score in enumerate(row) if score is not None))
    results["agree"] = run_agreement(ratings, level="nominal", resamples=0, out=root / "agree",
                                     plots=False)
    (root / "broken").mkdir()
    (root / "broken" / "run.json").write_text("{")
    return IndexRuns(root, results)
