import math

import numpy as np
import pytest
from scipy.optimize import minimize

from jurybox.ranking import (ELO_PER_LOGIT, Comparison, Comparisons, OrderVerdict,
                             fit_bradley_terry,
                             rank_intervals)
from jurybox.stats.interval import ConfidenceInterval

from .helpers import of, series

ELO_3_TO_1 = 400 * math.log10(3)  # 190.85


def test_three_to_one_is_190_85_points_and_75_percent():
    data = of(series("x", "base", [1, 1, 1, 0] * 5))
    bt = fit_bradley_terry(data, "base", rounds=50)
    assert ELO_3_TO_1 == pytest.approx(190.849, abs=1e-3)
    assert bt["x"].score == pytest.approx(1000 + ELO_3_TO_1, abs=1e-3)
    assert bt["base"].score == 1000.0
    assert bt["x"].win_rate == pytest.approx(75.0, abs=1e-4)
    assert bt["base"].win_rate == 50.0
    assert [s.system for s in bt.scores] == ["x", "base"]
    assert (bt["x"].rank, bt["base"].rank) == (1, 2)
    assert bt["x"].n == 20


def test_ties_count_half_and_baseline_side_flips():
    # 1, 0.5 repeated: share 0.75 for x, written with x as b
    data = of(series("base", "x", [0, 0.5] * 8))
    bt = fit_bradley_terry(data, "base", rounds=20)
    assert bt["x"].score == pytest.approx(1000 + ELO_3_TO_1, abs=1e-3)


def test_three_consistent_systems():
    # x beats y 2:1, y beats z 2:1, x beats z 4:1: exactly BT with odds 2 per step
    data = of(series("x", "y", [1, 1, 0] * 4), series("y", "z", [1, 1, 0] * 4, start=12),
              series("z", "x", [0, 0, 0, 0, 1] * 3, start=24))
    bt = fit_bradley_terry(data, "y", rounds=20)
    step = 400 * math.log10(2)
    assert bt["x"].score == pytest.approx(1000 + step, abs=1e-3)
    assert bt["z"].score == pytest.approx(1000 - step, abs=1e-3)
    assert bt["z"].win_rate == pytest.approx(100 / 3, abs=1e-4)
    mean = fit_bradley_terry(data, None, rounds=20)
    assert [s.score for s in mean.scores] == pytest.approx([1000 + step, 1000, 1000 - step],
                                                          abs=1e-3)
    assert mean["x"].win_rate is None and mean["x"].win_rate_ci is None


def _direct_mle(data: Comparisons) -> np.ndarray:
    k = len(data.systems)

    def nll(free):
        beta = np.concatenate([[0.0], free])
        d = beta[data.a] - beta[data.b]
        y = data.outcome
        return -np.sum(y * -np.logaddexp(0, -d) + (1 - y) * -np.logaddexp(0, d))

    res = minimize(nll, np.zeros(k - 1), method="BFGS", options={"gtol": 1e-10})
    return np.concatenate([[0.0], res.x])


def test_matches_a_direct_maximum_likelihood_fit():
    rng = np.random.default_rng(11)
    names = ["s0", "s1", "s2", "s3", "s4"]
    strength = rng.normal(0, 1, 5)
    rows = []
    for p in range(120):
        i, j = rng.choice(5, 2, replace=False)
        win = 1 / (1 + math.exp(strength[j] - strength[i]))
        y = float(rng.choice([0.0, 0.5, 1.0, 0.25], p=[1 - win - 0.1, 0.05, win - 0.05, 0.1]))
        rows.append(Comparison(f"p{p}", names[i], names[j], y))
    data = Comparisons.of(rows)
    beta = _direct_mle(data)
    bt = fit_bradley_terry(data, "s0", rounds=10)
    for i, name in enumerate(data.systems):
        assert bt[name].score == pytest.approx(1000 + ELO_PER_LOGIT * beta[i], abs=1e-4)


def test_cis_contain_the_point_shrink_and_are_seeded():
    rng = np.random.default_rng(2)
    small = of(series("x", "base", list((rng.random(40) < 0.7).astype(float))))
    big = of(series("x", "base", list((rng.random(640) < 0.7).astype(float))))
    s = fit_bradley_terry(small, "base", rounds=100, seed=4)["x"]
    b = fit_bradley_terry(big, "base", rounds=100, seed=4)["x"]
    for score in (s, b):
        assert score.ci.low <= score.score <= score.ci.high
        assert score.win_rate_ci.low <= score.win_rate <= score.win_rate_ci.high
    assert b.ci.high - b.ci.low < 0.5 * (s.ci.high - s.ci.low)
    again = fit_bradley_terry(small, "base", rounds=100, seed=4)
    assert again["x"].ci == s.ci
    assert np.array_equal(again.samples, fit_bradley_terry(small, "base", rounds=100,
                                                       seed=4).samples)
    assert fit_bradley_terry(small, "base", rounds=100, seed=5)["x"].ci != s.ci


def test_disconnected_system_is_named():
    data = of(series("x", "base", [1, 0]), series("y", "z", [1, 0], start=2))
    with pytest.raises(ValueError, match=r"'y', 'z' to the baseline 'base'"):
        fit_bradley_terry(data, "base", rounds=5)
    lone = of(series("x", "base", [1, 0]), series("x", "y", [1, 0], start=2),
              series("w", "v", [1, 0], start=4))
    with pytest.raises(ValueError, match=r"'v', 'w' to the other systems"):
        fit_bradley_terry(lone, None, rounds=5)


def test_a_round_missing_a_system_gives_nan_not_a_score():
    # y meets the others on a single prompt: rounds that do not draw it leave y out
    data = of(series("x", "base", [1, 0, 1, 0, 1, 0, 1, 0]), series("y", "base", [1], start=8))
    bt = fit_bradley_terry(data, "base", rounds=100, seed=0)
    column = bt.samples[:, bt.systems.index("y")]
    assert np.isnan(column).any() and np.isfinite(column).any()
    assert np.isfinite(bt.samples[:, bt.systems.index("x")]).all()


def test_rank_intervals_hand_example():
    cis = [ConfidenceInterval(1100, 1200), ConfidenceInterval(1050, 1150),
           ConfidenceInterval(990, 1010), ConfidenceInterval(1000, 1020),
           ConfidenceInterval(math.nan, math.nan)]
    # 0: nobody's low above 1200 -> best 1; surely worse than 2 and 3 (highs 1010, 1020 <
    #    1100) -> worst 5 - 2 = 3 (the NaN one is never surely worse)
    # 1: best 1; surely worse: 2, 3 -> worst 3
    # 2: surely better: 0, 1 (lows 1100, 1050 > 1010) -> best 3; worst 5
    # 3: surely better: 0, 1 -> best 3; worst 5
    # 4: NaN: best 1, worst 5
    assert rank_intervals(cis) == [(1, 3), (1, 3), (3, 5), (3, 5), (1, 5)]


def test_rank_intervals_of_a_fit():
    data = of(series("x", "base", [1] * 30 + [0] * 10),
              series("y", "base", [1] * 20 + [0] * 20, start=40),
              series("x", "y", [1] * 30 + [0] * 10, start=80))
    bt = fit_bradley_terry(data, "base", rounds=100, seed=0)
    assert bt["x"].rank_ci == (1, 1)
    assert bt["x"].rank == 1
    assert {bt["y"].rank_ci, bt["base"].rank_ci} <= {(2, 3)}


def _ordered_pairs() -> Comparisons:
    # A shown first: A wins 9 of 10; B shown first: A wins 5 of 10
    rows = []
    for p in range(10):
        y1, y2 = float(p < 9), float(p < 5)
        rows.append(Comparison(f"p{p}", "A", "B", (y1 + y2) / 2,
                               orders=(OrderVerdict("A", y1), OrderVerdict("B", y2))))
    return Comparisons.of(rows)


def test_first_shown_term_hand_computed():
    # sigmoid(d + g) = 0.9 and sigmoid(-d + g) = 0.5 (B first, B wins half): d = g = ln(9)/2
    fit = fit_bradley_terry(_ordered_pairs(), "B", rounds=20, first_shown=True)
    assert fit.first_shown == pytest.approx(math.log(9) / 2, abs=1e-5)
    assert fit["A"].score == pytest.approx(1000 + ELO_PER_LOGIT * math.log(9) / 2, abs=1e-3)
    assert fit.first_shown_ci is not None and fit.first_shown_ci.low < fit.first_shown
    # plain BT: A's mean share 0.7, so logit(0.7) = 147.19 Elo above B; no term reported
    plain = fit_bradley_terry(_ordered_pairs(), "B", rounds=20)
    assert plain["A"].score == pytest.approx(1000 + ELO_PER_LOGIT * math.log(0.7 / 0.3),
                                             abs=1e-3)
    assert plain.first_shown is None and plain.first_shown_ci is None


def test_first_shown_term_without_recorded_orders_is_zero_and_changes_nothing():
    rows = [Comparison(f"p{p}", "A", "B", float(p < 7)) for p in range(10)]
    plain = fit_bradley_terry(Comparisons.of(rows), "B", rounds=10)
    term = fit_bradley_terry(Comparisons.of(rows), "B", rounds=10, first_shown=True)
    assert term.first_shown == pytest.approx(0.0, abs=1e-9)
    assert term["A"].score == pytest.approx(plain["A"].score, abs=1e-6)
