import math

import pytest

from jurybox.stats import accuracy, order_diagnostics, paired_comparison


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


def test_no_non_ties_gives_nan_p():
    res = paired_comparison({"x": 1.0}, {"x": 1.0})
    assert math.isnan(res.p_value) and res.ties == 1


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
