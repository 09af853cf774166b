import math

import pytest

from jurybox.ranking import Comparison, Comparisons, OrderVerdict, order_effects
from jurybox.stats import wilson_interval


def both(prompt: str, a: str, b: str, a_first: float, b_first: float) -> Comparison:
    """A comparison judged in both orders: the outcome for ``a`` with a shown first, then
    with b shown first."""
    return Comparison(prompt, a, b, (a_first + b_first) / 2,
                      orders=(OrderVerdict(a, a_first), OrderVerdict(b, b_first)))


def test_hand_computed_rates():
    rows = [
        both("p1", "x", "y", 1.0, 1.0),  # x both times: consistent; first wins 1 of 2
        both("p2", "x", "y", 1.0, 0.0),  # first shown wins both: a reversal (flip)
        both("p3", "x", "y", 0.5, 1.0),  # tie then x: a flip, not a reversal; 1 decided
        both("p4", "y", "x", 0.0, 0.0),  # x both times (x is b here): consistent
        Comparison("p5", "x", "y", 1.0),  # no orders recorded
    ]
    effects = order_effects(Comparisons.of(rows))
    (pair,) = effects.pairs
    assert (pair.a, pair.b, pair.n, pair.n_orders) == ("x", "y", 5, 4)
    assert (pair.flips, pair.reversals) == (2, 1)
    assert pair.flip_rate == 50.0 and pair.reversal_rate == 25.0
    # decided verdicts: p1 2 (first wins 1), p2 2 (first wins 2), p3 1 (x second: first
    # loses), p4 2 (y shown first loses, then x shown first wins: 1) -> 4 of 7
    assert (pair.n_decided, pair.first_wins) == (7, 4)
    assert pair.first_shown_rate == pytest.approx(400 / 7)
    low, high = wilson_interval(4 / 7, 7)
    assert tuple(pair.first_shown_ci) == pytest.approx((100 * low, 100 * high))
    low, high = wilson_interval(0.5, 4)
    assert tuple(pair.flip_ci) == pytest.approx((100 * low, 100 * high))
    assert effects.overall.n == 5 and effects.overall.flips == 2
    assert effects.pair("y", "x") is pair


def test_pairs_are_separate_and_pooled():
    rows = [both("p1", "x", "y", 1.0, 0.0), both("p1", "x", "z", 1.0, 1.0),
            both("p2", "z", "x", 0.0, 0.0)]
    effects = order_effects(Comparisons.of(rows))
    assert [(p.a, p.b) for p in effects.pairs] == [("x", "y"), ("x", "z")]
    assert effects.pair("x", "y").flip_rate == 100.0
    xz = effects.pair("x", "z")
    assert xz.flip_rate == 0.0 and xz.n_orders == 2
    assert xz.first_shown_rate == 50.0
    assert effects.overall.flip_rate == pytest.approx(100 / 3)
    with pytest.raises(KeyError):
        effects.pair("y", "z")


def test_no_orders_gives_nan_rates():
    effects = order_effects(Comparisons.of([Comparison("p1", "x", "y", 0.5)]))
    pair = effects.pairs[0]
    assert pair.n_orders == 0 and math.isnan(pair.flip_rate) and math.isnan(pair.flip_ci.low)
    assert pair.n_decided == 0 and math.isnan(pair.first_shown_rate)


def test_fractional_verdicts_and_a_bad_first():
    rows = [Comparison("p1", "x", "y", 0.5, orders=(OrderVerdict("x", 0.7),
                                                    OrderVerdict("y", 0.3)))]
    pair = order_effects(Comparisons.of(rows)).pairs[0]
    # 0.7: x, shown first, wins; 0.3: y, shown first, wins -> a reversal
    assert (pair.reversals, pair.first_wins, pair.n_decided) == (1, 2, 2)
    bad = [Comparison("p1", "x", "y", 1.0, orders=(OrderVerdict("z", 1.0),))]
    with pytest.raises(ValueError, match="shows 'z' first"):
        order_effects(Comparisons.of(bad))
