import math

import numpy as np
import pytest

from jurybox.ranking import Comparison, Comparisons, win_rate_matrix, win_rates

from .helpers import of, series


def test_ties_count_half_and_counts():
    # x against base: win, win, tie, loss -> (1 + 1 + 0.5 + 0) / 4 = 62.5 %
    data = of(series("x", "base", [1, 1, 0.5, 0]))
    rate = win_rates(data, "base", rounds=50)["x"]
    assert rate.win_rate == 62.5
    assert (rate.n, rate.wins, rate.ties, rate.losses) == (4, 2, 1, 1)


def test_baseline_as_a_is_flipped():
    # the same verdicts, written with the baseline as a: outcome is the baseline's share
    direct = of(series("x", "base", [1, 1, 0.5, 0, 0.25]))
    flipped = of(series("base", "x", [0, 0, 0.5, 1, 0.75]))
    one = win_rates(direct, "base", rounds=200, seed=3)["x"]
    two = win_rates(flipped, "base", rounds=200, seed=3)["x"]
    assert one.win_rate == two.win_rate == pytest.approx(100 * 2.75 / 5)
    assert tuple(one.ci) == pytest.approx(tuple(two.ci))
    assert (two.wins, two.ties, two.losses) == (2, 1, 2)


def test_mixed_sides_and_other_pairs_ignored():
    data = of(series("x", "base", [1, 1]), series("base", "x", [1, 0], start=2),
              series("x", "y", [0, 0, 0], start=4))
    rates = win_rates(data, "base", rounds=20)
    assert rates["x"].win_rate == 75.0  # 1, 1, 0, 1
    assert rates["x"].n == 4
    assert rates.unmatched == ("y",)
    with pytest.raises(KeyError):
        rates["y"]


def test_ci_contains_point_shrinks_with_prompts_and_is_seeded():
    rng = np.random.default_rng(0)
    small = of(series("x", "base", list(rng.random(40) < 0.7)))
    big = of(series("x", "base", list(rng.random(800) < 0.7)))
    s = win_rates(small, "base", rounds=300, seed=1)["x"]
    b = win_rates(big, "base", rounds=300, seed=1)["x"]
    assert s.ci.low <= s.win_rate <= s.ci.high
    assert b.ci.low <= b.win_rate <= b.ci.high
    assert b.ci.high - b.ci.low < 0.5 * (s.ci.high - s.ci.low)
    again = win_rates(small, "base", rounds=300, seed=1)["x"]
    assert tuple(again.ci) == tuple(s.ci)
    other = win_rates(small, "base", rounds=300, seed=2)["x"]
    assert tuple(other.ci) != tuple(s.ci)


def test_bootstrap_resamples_prompts_not_rows():
    # two comparisons per prompt that always agree: a prompt-level resample keeps pairs
    # together; all prompts say x won -> degenerate CI at 100
    rows = [Comparison(f"p{i}", "x", "base", 1.0) for i in range(5)] * 2
    rate = win_rates(Comparisons.of(rows), "base", rounds=30)["x"]
    assert rate.n == 10 and rate.win_rate == 100.0
    assert tuple(rate.ci) == (100.0, 100.0) and rate.ci.degenerate


def test_bootstrap_matches_a_loop_over_rounds():
    from jurybox.ranking import prompt_counts
    rng = np.random.default_rng(5)
    rows = [Comparison(f"p{i % 7}", "x", "base", float(rng.random() < 0.6)) for i in range(30)]
    data = Comparisons.of(rows)
    rate = win_rates(data, "base", rounds=64, seed=9)["x"]
    counts = prompt_counts(len(data.prompts), 64, 9)
    loop = [100 * np.average(data.outcome, weights=c[data.prompt]) for c in counts]
    assert rate.ci.low == pytest.approx(np.percentile(loop, 2.5))
    assert rate.ci.high == pytest.approx(np.percentile(loop, 97.5))


def test_unknown_baseline():
    with pytest.raises(KeyError, match="nobody"):
        win_rates(of(series("x", "y", [1])), "nobody")


def test_matrix():
    data = of(series("x", "y", [1, 1, 0.5, 0]), series("z", "x", [1, 0], start=4))
    m = win_rate_matrix(data)
    assert m.systems == ("x", "y", "z")
    assert m.cell("x", "y") == (62.5, 4)
    assert m.cell("y", "x") == (37.5, 4)
    assert m.cell("x", "z") == (50.0, 2)
    rate, n = m.cell("y", "z")
    assert math.isnan(rate) and n == 0
    assert math.isnan(m.rate[0, 0])
    with pytest.raises(ValueError, match="unknown"):
        m.cell("x", "w")
