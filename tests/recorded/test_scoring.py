"""Scores of tiny recordings, computed by hand."""

import math

import pytest

from jurybox.recorded.model import RecordedItem, Recording
from jurybox.recorded.scoring import score_recording
from jurybox.stats import judgebench_vote


def _rec(rows, orders=("AB", "BA")):
    items = tuple(RecordedItem(f"i{k}", label, tuple(v)) for k, (label, v) in enumerate(rows))
    return Recording("s", "j", "v", orders, items)


ROWS = [("A", ["A", "A"]),     # right in both
        ("A", ["A", "B"]),     # picks the first shown both times: net tie, wrong
        ("B", ["A", "A"]),     # consistently wrong
        ("B", [None, "B"]),    # one unparsed: net B (right), strict not scored
        ("tie", ["tie", "tie"]),  # a tie label, right only for a tie verdict
        ("tie", ["A", "A"])]   # consistently wrong on a tie label


def test_hand_computed():
    s = score_recording(_rec(ROWS), n_resamples=200)
    assert s.n == 6
    # order 1: i0, i1, i4 right of the 5 parsed (i3 unparsed); order 2: i0, i3, i4 of 6
    assert s.by_order[0].accuracy == pytest.approx(3 / 5) and s.by_order[0].n == 5
    assert s.by_order[1].accuracy == pytest.approx(3 / 6)
    assert s.net.accuracy == pytest.approx(3 / 6) and s.net.n == 6
    assert s.strict.accuracy == pytest.approx(2 / 5) and s.strict.n == 5
    # fully parsed: i0, i1, i2, i4, i5; agreeing: i0, i2, i4, i5 (right: i0, i4)
    assert s.consistency == pytest.approx(4 / 5) and s.n_consistency == 5
    assert s.agree_only.accuracy == pytest.approx(2 / 4) and s.agree_only.n == 4
    assert s.agree_only.coverage == pytest.approx(4 / 6)
    # decisive verdicts: i0 A,A  i1 A,B  i2 A,A  i3 B  i5 A,A -> 9; first shown (A in AB,
    # B in BA): i0 1, i1 2, i2 1, i3 1, i5 1 -> 6
    assert s.n_decisive == 9 and s.first_shown_rate == pytest.approx(6 / 9)
    assert (s.parse_failures, s.failed_items) == (1, 1)
    assert s.net_decisions == {"i0": "A", "i1": "tie", "i2": "A", "i3": "B", "i4": "tie",
                               "i5": "A"}
    # order 2 vs order 1 on the 5 items both scored: only i1 changes (right -> wrong)
    t = s.vs_order1["order 2"]
    assert (t.n, t.improvements, t.regressions) == (5, 0, 1)
    assert s.llmbar is not None and (s.llmbar.correct_False, s.llmbar.correct_True,
                                     s.llmbar.correct_both, s.llmbar.equal) == (3, 3, 2, 4)
    assert s.reference_mismatches is None


def test_net_rule_is_judgebench_vote_on_decisive_labels():
    for v in (["A", "B"], ["A", None], [None, "tie"], ["B", "B"], ["tie", "A"]):
        s = score_recording(_rec([("A", v)]), n_resamples=10)
        expected = judgebench_vote(v, "A") == "correct"
        assert s.net_credits["i0"] == float(expected)


def test_all_unparsed_is_a_failure_not_a_score():
    s = score_recording(_rec([("A", [None, None]), ("A", ["A", "A"])]), n_resamples=10)
    assert s.net.n == 1 and s.net.accuracy == 1.0 and s.parse_failures == 2
    assert math.isnan(score_recording(_rec([("A", [None, None])]), n_resamples=10)
                      .first_shown_rate)


def test_one_order_only():
    s = score_recording(_rec([("A", ["A"]), ("B", ["A"])], orders=("AB",)), n_resamples=10)
    assert len(s.by_order) == 1 and s.llmbar is None and s.first_shown_rate == 1.0


def test_first_shown_ci_resamples_items():
    import numpy as np

    from jurybox.stats import bootstrap_ratio_ci

    s = score_recording(_rec(ROWS), n_resamples=300)
    # per item (first shown, decisive): i0 (1, 2), i1 (2, 2), i2 (1, 2), i3 (1, 1), i4 (0, 0:
    # not drawn), i5 (1, 2)
    expected = bootstrap_ratio_ci(np.array([1, 2, 1, 1, 1]), np.array([2, 2, 2, 1, 2]),
                                  confidence=0.95, n_resamples=300, seed=0)
    assert tuple(s.first_shown_ci) == tuple(expected)
    assert s.first_shown_ci.low <= 6 / 9 <= s.first_shown_ci.high
    # always the first shown: the degenerate point 100%
    first = score_recording(_rec([("A", ["A", "B"]), ("B", ["A", "B"])]), n_resamples=50)
    assert tuple(first.first_shown_ci) == (1.0, 1.0) and first.first_shown_ci.degenerate


def test_position_intervals_only_compute_what_the_default_table_shows():
    full = score_recording(_rec(ROWS), n_resamples=200)
    light = score_recording(_rec(ROWS), n_resamples=200, intervals="position")
    assert tuple(light.net.confidence_interval) == tuple(full.net.confidence_interval)
    assert tuple(light.first_shown_ci) == tuple(full.first_shown_ci)
    for a, b in zip((*light.by_order, light.strict, light.agree_only),
                    (*full.by_order, full.strict, full.agree_only)):
        assert (a.accuracy, a.n, a.n_total, a.coverage) == (b.accuracy, b.n, b.n_total,
                                                            b.coverage)
        assert all(math.isnan(v) for v in a.confidence_interval)
    assert light.vs_order1 == {} and set(full.vs_order1) == {"order 2", "net", "strict",
                                                             "agree-only"}
    with pytest.raises(ValueError, match="intervals"):
        score_recording(_rec(ROWS), intervals="some")
