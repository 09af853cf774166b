"""Auto-J's published pairwise figures, reproduced through jurybox's generic recorded format
(issue 33's check that the format and its counting rules are right on data nobody here wrote).

Auto-J (GAIR-NLP/auto-j, Li et al. 2023, "Generative Judge for Evaluating Alignment") ships
its test set (``data/test/testdata_pairwise.jsonl``: 1,392 pairs, label 0, 1 or 2 = tie) and
its judge's verdicts in both orders (``data/outputs/pairwise_example_output.jsonl`` and
``pairwise_exchange_example_output.jsonl``, the second with the responses swapped). Its
README reports: agreement 54.96 (both orders must agree with the label), consistency 83.41,
per order 59.99 and 60.63. Those files carry no licence, so they are not bundled: pass a
checkout of the repository (the three files at their paths).

Run: ``PYTHONPATH=src python benchmarks/autoj_generic.py PATH/TO/auto-j``
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from jurybox.recorded.jsonl import read_recorded_jsonl
from jurybox.recorded.scoring import score_recording

PUBLISHED = {"n": 1392, "agreement (strict)": 54.96, "consistency": 83.41,
             "order 1": 59.99, "order 2": 60.63}
_LABEL = {0: "A", 1: "B", 2: "tie"}
_SWAPPED = {0: "B", 1: "A", 2: "tie"}  # a verdict on the swapped pair, in original terms


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def generic_lines(repo: Path) -> list[dict]:
    """Auto-J's test set and verdicts as generic recorded lines (one judge, two orders)."""
    test = _lines(repo / "data/test/testdata_pairwise.jsonl")
    first = _lines(repo / "data/outputs/pairwise_example_output.jsonl")
    swapped = _lines(repo / "data/outputs/pairwise_exchange_example_output.jsonl")
    return [{"id": str(i), "label": _LABEL[t["label"]], "subset": "auto-j",
             "judges": {"Auto-J-13B": [_LABEL[a["output"]], _SWAPPED[b["output"]]]}}
            for i, (t, a, b) in enumerate(zip(test, first, swapped))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path, help="a checkout of GAIR-NLP/auto-j")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "auto-j.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in generic_lines(args.repo)))
        (recording,) = read_recorded_jsonl(path)
        score = score_recording(recording, n_resamples=200)
    ours = {"n": score.n, "agreement (strict)": 100 * score.strict.accuracy,
            "consistency": 100 * score.consistency,
            "order 1": 100 * score.by_order[0].accuracy,
            "order 2": 100 * score.by_order[1].accuracy}
    print(f"{'figure':20} {'jurybox':>8} {'Auto-J README':>14}")
    for name, value in ours.items():
        print(f"{name:20} {value:8.2f} {PUBLISHED[name]:14.2f}")
    # measured 2026-12-04 on GAIR-NLP/auto-j's files: all five equal to two decimals


if __name__ == "__main__":
    main()
