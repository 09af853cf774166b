import math

import pytest

from jurybox.stats import bucket_accuracy, judgebench_counts, judgebench_vote


@pytest.mark.parametrize("verdicts, better, outcome", [
    (("A", "A"), "A", "correct"),      # +1 +1
    (("A", "tie"), "A", "correct"),    # +1  0
    (("A", None), "A", "correct"),     # +1, missing counts 0
    (("A", "B"), "A", "tie"),          # +1 -1
    (("tie", "tie"), "A", "tie"),
    ((None, None), "B", "tie"),
    (("B", "tie"), "A", "incorrect"),  # -1  0
    (("B", "B"), "A", "incorrect"),
])
def test_judgebench_rule(verdicts, better, outcome):
    assert judgebench_vote(verdicts, better) == outcome


def test_counts_and_accuracy_treat_ties_as_not_correct():
    c = judgebench_counts(["correct", "tie", "incorrect", "correct"])
    assert (c.correct, c.incorrect, c.tie, c.n) == (2, 1, 1, 4) and c.accuracy == 0.5


def test_bucket_macro_average_by_hand():
    # mmlu-pro: 1, 1, 0 -> 2/3; livecodebench: 0 -> 0; livebench-math: 0.5 (a tie credit)
    # micro = (1+1+0+0+0.5)/5 = 0.5; macro = (2/3 + 0 + 0.5)/3 = 7/18
    credits = {"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.0, "e": 0.5, "f": None}
    buckets = {"a": "mmlu-pro", "b": "mmlu-pro", "c": "mmlu-pro", "d": "livecodebench",
               "e": "livebench-math", "f": "livebench-math"}
    res = bucket_accuracy(credits, buckets, order=("mmlu-pro", "livebench-math"))
    assert list(res.by_bucket) == ["mmlu-pro", "livebench-math", "livecodebench"]
    assert res.by_bucket["mmlu-pro"] == (pytest.approx(2 / 3), 3)
    assert res.by_bucket["livebench-math"] == (0.5, 1)
    assert res.micro == pytest.approx(0.5) and res.macro == pytest.approx(7 / 18)
    assert res.n == 5


def test_empty_buckets_are_nan():
    res = bucket_accuracy({"x": None}, {"x": "mmlu-pro"})
    assert math.isnan(res.micro) and math.isnan(res.macro) and res.by_bucket == {}
