"""The length-controlled win rate (AlpacaEval's GLM) on synthetic comparisons."""

from __future__ import annotations

import numpy as np
import pytest

from jurybox.ranking.comparisons import Comparison, Comparisons
from jurybox.ranking.difficulty import InstructionDifficulty, estimate_difficulty
from jurybox.ranking.length_controlled import (gamed_baselines, length_controlled_win_rates,
                                               proxy_variants)

P = 120


def _rows(system, outcomes, lengths, base_lengths):
    return [Comparison(str(i), system, "base", float(o), length_a=int(n), length_b=int(m))
            for i, (o, n, m) in enumerate(zip(outcomes, lengths, base_lengths))]


def _zero_difficulty(n=P):
    return InstructionDifficulty.of({str(i): 0.0 for i in range(n)})


def test_equal_lengths_no_effect_lc_about_raw():
    rng = np.random.default_rng(1)
    outcomes = (rng.random(P) < 0.3).astype(float)
    comps = Comparisons.of(_rows("m", outcomes, [500] * P, [500] * P))
    res = length_controlled_win_rates(comps, "base", difficulty=_zero_difficulty(), rounds=50)
    r = res["m"]
    assert r.n == P
    assert r.win_rate == pytest.approx(outcomes.mean() * 100)
    assert r.lc_win_rate == pytest.approx(r.win_rate, abs=1.0)
    assert r.lc_ci.low <= r.lc_win_rate <= r.lc_ci.high
    assert r.win_rate_ci.low < r.win_rate < r.win_rate_ci.high
    assert r.regularized == ""


def test_wins_caused_by_length_only():
    # the system wins exactly when its output is longer, and is longer 80% of the time
    rng = np.random.default_rng(2)
    base = rng.integers(800, 1200, P)
    delta = rng.normal(0, 300, P) + 250  # mostly longer
    lengths = np.maximum(base + delta, 1).astype(int)
    outcomes = np.where(lengths > base, 0.9, 0.1)
    comps = Comparisons.of(_rows("m", outcomes, lengths, base))
    r = length_controlled_win_rates(comps, "base", difficulty=_zero_difficulty(),
                                    rounds=0)["m"]
    assert r.win_rate > 65
    assert abs(r.lc_win_rate - 50) < 8
    assert r.coefficients["length"] < 0  # delta_len is the baseline's minus the system's
    assert np.isnan(r.lc_ci.low)


def test_difficulty_from_many_systems_orders_prompts():
    rng = np.random.default_rng(3)
    easy = rng.normal(0, 1.5, 40)  # higher: systems beat the baseline more often
    rows = []
    for k, skill in enumerate([-1.0, 0.0, 1.0, 0.5, -0.5, 1.5]):
        p = 1 / (1 + np.exp(-(skill + easy)))
        rows += [Comparison(str(i), f"s{k}", "base", float(p[i]), length_a=300,
                            length_b=300 + int(rng.integers(-50, 50))) for i in range(40)]
    comps = Comparisons.of(rows)
    d = estimate_difficulty(comps, "base", cs=(100.0,))
    assert d.n_systems == 6 and d.values[0] == 0.0
    assert np.corrcoef(d.values, easy - easy[0])[0, 1] > 0.99
    res = length_controlled_win_rates(comps, "base", difficulty=d, rounds=0, cs=(100.0,))
    assert [round(res[f"s{k}"].lc_win_rate) for k in (0, 2)] == [
        round(res["s0"].win_rate), round(res["s2"].win_rate)]


def test_baseline_on_either_side_and_missing_lengths():
    rows = [Comparison("0", "base", "m", 1.0, length_a=10, length_b=10),
            Comparison("1", "m", "base", 1.0, length_a=10, length_b=10),
            Comparison("2", "m", "base", 0.0, length_a=10, length_b=10)]
    res = length_controlled_win_rates(Comparisons.of(rows), "base",
                                      difficulty=_zero_difficulty(3), rounds=0)
    assert res["m"].win_rate == pytest.approx(100 / 3)
    no_len = Comparisons.of([Comparison("0", "m", "base", 1.0)])
    with pytest.raises(ValueError, match="lengths"):
        length_controlled_win_rates(no_len, "base", difficulty=_zero_difficulty(1))
    with pytest.raises(KeyError, match="nobody"):
        length_controlled_win_rates(no_len, "nobody")
    with pytest.raises(ValueError, match="no instruction difficulty"):
        length_controlled_win_rates(Comparisons.of(rows), "base",
                                    difficulty=_zero_difficulty(1))


def test_gamed_baseline_regularizes():
    rng = np.random.default_rng(4)
    rows = []
    for name, shift in (("base_verbose", 400), ("base_concise", -400), ("m", 300)):
        base = rng.integers(800, 1200, P)
        lengths = np.maximum(base + rng.normal(shift, 200, P), 1).astype(int)
        outcomes = np.where(lengths > base, 0.8, 0.2)
        rows += _rows(name, outcomes, lengths, base)
    comps = Comparisons.of(rows)
    assert gamed_baselines(comps.systems, "base") == ("base_concise", "base_verbose")
    assert proxy_variants(comps.systems, "base") == ()
    res = length_controlled_win_rates(comps, "base", difficulty=_zero_difficulty(), rounds=0)
    assert {r.regularized for r in res.values()} == {"baseline"}
    assert abs(res["m"].lc_win_rate - 50) < 8
    plain = length_controlled_win_rates(comps, "base", difficulty=_zero_difficulty(),
                                        rounds=0, gamed=())
    assert plain["m"].regularized == ""
