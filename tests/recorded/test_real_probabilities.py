"""A real model's pairwise recording with token probabilities
(examples/pairwise-smollm2-logprobs.jsonl: the local SmolLM2-135M judge on 100 JudgeBench
pairs, both orders, --logprobs 5; examples/ATTRIBUTION.md): every figure is counted from
the file's lines here, then checked against what jurybox computes from them."""

import json
import math
from pathlib import Path

import numpy as np

from jurybox.recorded.confidence import signal_table
from jurybox.recorded.jsonl import read_recorded_jsonl
from jurybox.recorded.selective import selective_split

FILE = Path(__file__).resolve().parents[2] / "examples" / "pairwise-smollm2-logprobs.jsonl"
JUDGE = "local:SmolLM2-135M-Instruct.Q4_1"


def _rows():
    return [json.loads(line) for line in FILE.open()]


def test_the_files_counts():
    rows = _rows()
    assert len(rows) == 100
    entries = [r["judges"][JUDGE] for r in rows]
    assert all(len(e["verdicts"]) == len(e["probabilities"]) == 2 for e in entries)
    assert all(p is not None and 0 <= p <= 1 for e in entries for p in e["probabilities"])
    # every order gave A or B; the first shown won 141 of 200 (70.5%: position bias)
    firsts = sum(v == ("A" if o == "AB" else "B") for r, e in zip(rows, entries)
                 for v, o in zip(e["verdicts"], r["orders"]))
    assert firsts == 141
    # llama-cpp-python reports probabilities before its repeat penalty: in 59 of the 200
    # orders the token probability favours the other response than the verdict written
    against = sum((v == "A") != (p > 0.5) for e in entries
                  for v, p in zip(e["verdicts"], e["probabilities"]))
    assert against == 59


def test_the_probability_signal_on_the_real_judge():
    rows = _rows()
    nets = [sum({"A": 1, "B": -1}[v] for v in r["judges"][JUDGE]["verdicts"]) for r in rows]
    decided = [i for i, n in enumerate(nets) if n != 0]
    assert len(decided) == 31  # 69 pairs: the two orders disagree (a net tie)
    right = [i for i in decided if ("A" if nets[i] > 0 else "B") == rows[i]["label"]]
    assert len(right) == 16
    (rec,) = read_recorded_jsonl(FILE)
    table = signal_table([rec])
    sig = table.signals[f"probability:{JUDGE}"]
    has = ~np.isnan(sig.confidence)
    assert has.sum() == 31 and sig.agree[has].sum() == 16
    # the mean probability each decided pair's orders gave its verdict, by hand for one
    i = decided[0]
    e = rows[i]["judges"][JUDGE]
    verdict = "A" if nets[i] > 0 else "B"
    given = [p if verdict == "A" else 1 - p for p in e["probabilities"]]
    assert math.isclose(sig.confidence[i], sum(given) / 2)
    # no better than chance at telling right from wrong: mean 0.544 on the 16 right, 0.548
    # on the 15 wrong
    assert round(float(sig.confidence[has & sig.agree].mean()), 3) == 0.544
    assert round(float(sig.confidence[has & ~sig.agree].mean()), 3) == 0.548
    # so nothing can be certified, not even 60% agreement
    result = selective_split(table, target=0.6, delta=0.1, seed=0)
    assert result.signal is None and result.test.n_accepted == 0
