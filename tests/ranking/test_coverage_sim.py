"""The core of benchmarks/rank_coverage.py (simulated systems of known strength, a judge with
position bias), on a few seeds: the BT fit recovers the strengths without bias, and plain BT
is attenuated toward the baseline by the amount the benchmark's "BT target" says with it."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from jurybox.ranking import ELO_PER_LOGIT, fit_bradley_terry

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "rank_coverage.py"
_spec = importlib.util.spec_from_file_location("rank_coverage", _PATH)
assert _spec is not None and _spec.loader is not None
cov = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("rank_coverage", cov)
_spec.loader.exec_module(cov)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def test_simulated_protocols_record_their_orders():
    one = cov.simulate(1, protocol="one order", bias=0.5, prompts=30)
    both = cov.simulate(1, protocol="both orders", bias=0.5, prompts=30)
    assert len(one) == len(both) == 30 * 4
    for c in one.rows:
        assert c.b == "base" and c.outcome in (0.0, 1.0)
        assert len(c.orders) == 1 and c.orders[0].first in (c.a, c.b)
        assert c.orders[0].outcome == c.outcome
    firsts = {c.orders[0].first == c.a for c in one.rows}
    assert firsts == {True, False}  # the side is drawn, not fixed
    for c in both.rows:
        assert [o.first for o in c.orders] == [c.a, c.b]
        assert c.outcome == pytest.approx(np.mean([o.outcome for o in c.orders]))
        assert c.outcome in (0.0, 0.5, 1.0)
    assert len(cov.simulate(1, protocol="one order", bias=0, prompts=3,
                            design="all-pairs")) == 3 * 10
    with pytest.raises(ValueError):
        cov.simulate(1, protocol="no order", bias=0)


def test_judge_favours_the_first_shown():
    data = cov.simulate(2, protocol="both orders", bias=1.0, prompts=400)
    first_won = [o.outcome == 1.0 if o.first == c.a else o.outcome == 0.0
                 for c in data.rows for o in c.orders]
    # equal strengths would give sigmoid(1) = 0.73; these pairs are within 120 Elo
    assert 0.66 < np.mean(first_won) < 0.76


def test_bt_target_is_the_attenuated_logit():
    assert cov.bt_target(0.0) == pytest.approx(cov.STRENGTHS, abs=1e-4)
    target = cov.bt_target(0.5)
    for name, theta in cov.STRENGTHS.items():
        d = (theta - 1000) / ELO_PER_LOGIT
        m = (_sigmoid(d + 0.5) + _sigmoid(d - 0.5)) / 2
        assert target[name] == pytest.approx(1000 + ELO_PER_LOGIT * math.log(m / (1 - m)),
                                             abs=1e-3)
        if name != "base":
            assert abs(target[name] - 1000) < abs(theta - 1000)
    assert target["s1120"] == pytest.approx(1113.1, abs=0.05)


def test_without_bias_both_orders_recover_the_strengths():
    inside, total = 0, 0
    for run in range(5):
        r = cov.one_run(run, seed=7, protocol="both orders", bias=0.0, prompts=200,
                        design="baseline", rounds=40)
        for i, name in enumerate(r.systems):
            if name == "base":
                assert r.score[i] == 1000.0 and r.low[i] == r.high[i] == 1000.0
                continue
            assert 10 < r.se[i] < 40  # ~17 Elo for 200 prompts x 2 orders
            total += 1
            inside += abs(r.score[i] - cov.STRENGTHS[name]) <= 2 * r.se[i]
    assert inside >= 0.8 * total, (inside, total)


def test_with_bias_plain_bt_converges_to_the_target_not_the_truth():
    # many prompts, no bootstrap: the estimate sits on the attenuated target, ~25 Elo short
    data = cov.simulate(3, protocol="both orders", bias=1.0, prompts=3000)
    fit = fit_bradley_terry(data, "base", rounds=1)
    target = cov.bt_target(1.0)
    for name in ("s1120", "s880"):
        truth = cov.STRENGTHS[name]
        assert abs(truth - target[name]) > 20
        assert fit[name].score == pytest.approx(target[name], abs=15)  # ~3 SE of 5 Elo
        assert abs(fit[name].score - 1000) < abs(truth - 1000) - 5


@pytest.mark.parametrize("protocol", ["one order", "both orders"])
def test_with_bias_the_first_shown_term_recovers_the_truth_and_the_bias(protocol):
    # the same data as above: with the term the estimate sits on the truth, not the target
    data = cov.simulate(3, protocol=protocol, bias=1.0, prompts=3000)
    fit = fit_bradley_terry(data, "base", rounds=1, first_shown=True)
    target = cov.bt_target(1.0)
    for name in ("s1120", "s880"):
        truth = cov.STRENGTHS[name]
        assert fit[name].score == pytest.approx(truth, abs=15)  # ~3 SE; the target is 25 off
        assert abs(fit[name].score - target[name]) > abs(fit[name].score - truth)
    assert fit.first_shown == pytest.approx(1.0, abs=0.1)
