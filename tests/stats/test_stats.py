import json
import math

import numpy as np
import pytest

from jurybox.stats import (ConfidenceInterval, accuracy, bootstrap_mean_ci, order_diagnostics,
                           paired_comparison)


def test_accuracy_with_tie_credit_and_coverage():
    res = accuracy([1.0, 0.5, 0.0, None])
    assert res.accuracy == pytest.approx(0.5)  # (1 + 0.5 + 0) / 3
    assert (res.n, res.n_total) == (3, 4)
    assert res.coverage == pytest.approx(0.75)
    lo, hi = res.confidence_interval
    assert 0.0 <= lo <= 0.5 <= hi <= 1.0


def test_accuracy_of_nothing_is_nan():
    res = accuracy([None, None])
    assert math.isnan(res.accuracy) and res.coverage == 0.0


def test_sign_test_matches_hand_computed_binomial():
    # 9 improvements, 2 regressions, 3 ties. Two-sided exact sign test:
    # P(X <= 2 | n=11, p=.5) = (C(11,0)+C(11,1)+C(11,2)) / 2^11 = (1+11+55)/2048 = 67/2048
    # p = 2 * 67/2048 = 134/2048 = 0.0654296875
    a = {f"i{j}": 0.0 for j in range(9)} | {"r1": 1.0, "r2": 1.0} | {f"t{j}": 1.0 for j in range(3)}
    b = {f"i{j}": 1.0 for j in range(9)} | {"r1": 0.0, "r2": 0.0} | {f"t{j}": 1.0 for j in range(3)}
    res = paired_comparison(a, b)
    assert (res.n, res.improvements, res.regressions, res.ties) == (14, 9, 2, 3)
    assert res.p_value == pytest.approx(134 / 2048, rel=1e-12)
    assert res.difference == pytest.approx(7 / 14)
    lo, hi = res.confidence_interval
    assert lo < 0.5 < hi
    assert paired_comparison(a, b).confidence_interval == res.confidence_interval  # seeded


def test_paired_comparison_uses_only_items_both_judged():
    res = paired_comparison({"x": 1.0, "y": None, "z": 0.0}, {"x": 0.5, "y": 1.0, "w": 1.0})
    assert res.n == 1 and res.regressions == 1 and res.difference == -0.5


def test_no_non_ties_gives_nan_p_with_a_reason():
    res = paired_comparison({"x": 1.0}, {"x": 1.0})
    assert math.isnan(res.p_value) and res.ties == 1
    assert res.reason == "no discordant pairs: no test possible"
    # every item tied: difference 0, and the paired bootstrap of all-zero differences is the
    # degenerate interval [0, 0] with standard error 0 (no resampling can move it)
    a = {f"i{j}": j % 2 for j in range(10)}
    res = paired_comparison(a, dict(a))
    assert (res.n, res.ties, res.difference) == (10, 10, 0.0) and math.isnan(res.p_value)
    assert res.reason == "no discordant pairs: no test possible"
    ci = res.confidence_interval
    assert isinstance(ci, ConfidenceInterval) and tuple(ci) == (0.0, 0.0)
    assert ci.degenerate and ci.standard_error == 0.0


def test_a_sign_test_has_no_reason():
    assert paired_comparison({"x": 0.0, "y": 1.0}, {"x": 1.0, "y": 1.0}).reason is None


@pytest.mark.parametrize("a, b, judged", [
    ({}, {}, (0, 0)),
    ({"x": 1.0}, {"y": 1.0}, (1, 1)),                 # no item in common
    ({"x": None, "y": 1.0}, {"x": 1.0, "z": 0.0}, (1, 2)),  # x shared, but a failed it
])
def test_paired_comparison_of_nothing_raises(a, b, judged):
    # it returned n = 0 with NaN statistics, silently
    with pytest.raises(ValueError, match=rf"at least one item judged by both; got none \(a "
                                         rf"judged {judged[0]} items, b judged {judged[1]}\)"):
        paired_comparison(a, b)


def test_constant_data_give_a_degenerate_interval_not_a_bare_tuple():
    res = accuracy([1.0, 1.0, 1.0, None])
    ci = res.confidence_interval
    assert type(ci) is ConfidenceInterval and tuple(ci) == (1.0, 1.0)
    assert ci.degenerate and ci.standard_error == 0.0
    assert json.dumps(ci) == "[1.0, 1.0]"  # summaries still write [low, high]
    # too few values: undefined, not degenerate
    ci = bootstrap_mean_ci(np.array([0.5]), confidence=0.95, n_resamples=100, seed=0)
    assert type(ci) is ConfidenceInterval and not ci.degenerate
    assert all(math.isnan(v) for v in (*ci, ci.standard_error))


def test_bootstrap_interval_carries_scipy_standard_error():
    # 50 zeros and 50 ones: the bootstrap SE of the mean is the population sd over sqrt(n),
    # 0.5 / sqrt(100) = 0.05; with 2000 resamples its Monte Carlo error is about
    # 0.05 / sqrt(2 * 2000) ~ 0.0008, so 5% is ample
    res = accuracy([0.0, 1.0] * 50, n_resamples=2000, seed=3)
    ci = res.confidence_interval
    assert ci.standard_error == pytest.approx(0.05, rel=0.05) and not ci.degenerate
    assert ci.low < 0.5 < ci.high
    # the percentile interval is about +-1.96 SE around the mean
    assert (ci.high - ci.low) / 2 == pytest.approx(1.96 * ci.standard_error, rel=0.1)


def test_confidence_interval_is_a_two_tuple_with_defaults():
    import copy
    import pickle

    ci = ConfidenceInterval(0.1, 0.9)
    assert math.isnan(ci.standard_error) and ci.degenerate is False
    low, high = ci
    assert (low, high) == (0.1, 0.9) and len(ci) == 2 and ci == (0.1, 0.9)
    full = ConfidenceInterval(0.2, 0.2, standard_error=0.0, degenerate=True)
    for back in (pickle.loads(pickle.dumps(full)), copy.deepcopy(full)):
        assert back == full and back.degenerate and back.standard_error == 0.0
    assert ci._replace(low=0.0) == (0.0, 0.9)
    with pytest.raises(AttributeError):
        full.degenerate = False  # type: ignore[misc]


def test_order_diagnostics():
    # item 1 (n=4): picks (0, 0, 1) -> flips, disagreement 1/3; item 2 (n=4): (2, 2) -> no
    # flip, 0; item 3 (n=2): one run, left out of the flip rate.
    # Positions, n=4 runs: 0,1,0 | 1,3 -> (2/5, 2/5, 0, 1/5); n=2 runs: 1 -> (0, 1)
    res = order_diagnostics([[0, 0, 1], [2, 2], [1]], [[0, 1, 0], [1, 3], [1]], [4, 4, 2])
    assert res.n_items == 2
    assert res.flip_rate == 0.5
    assert res.mean_disagreement == pytest.approx(1 / 6)
    assert res.win_rate_by_position == {4: pytest.approx((2 / 5, 2 / 5, 0, 1 / 5)),
                                        2: pytest.approx((0, 1))}
    assert res.n_runs == {2: 1, 4: 5}
    with pytest.raises(ValueError):
        order_diagnostics([[0]], [[3]], [2])


def test_order_tally_does_not_depend_on_the_order_items_arrive_in():
    import random

    from jurybox.stats import OrderTally

    rng = random.Random(3)
    items = [([rng.randrange(4) for _ in range(7)], [rng.randrange(4) for _ in range(7)], 4)
             for _ in range(500)]
    results = []
    for _ in range(3):
        rng.shuffle(items)
        tally = OrderTally()
        for picks, positions, n in items:
            tally.add(picks, positions, n)
        results.append(tally.result())
    assert results[0] == results[1] == results[2]  # bit for bit, mean_disagreement included
