"""Selective judging's calibration (Trust or Escalate, section 3.1): hand-computed thresholds
and Clopper-Pearson bounds checked against published values."""

import math

import numpy as np
import pytest

from jurybox.stats.selective import (calibrate_threshold, clopper_pearson_upper,
                                     selective_outcome)


@pytest.mark.parametrize("k, n, upper", [(81, 263, 0.3676), (15, 148, 0.1617), (0, 20, 0.1684)])
def test_clopper_pearson_matches_newcombes_exact_intervals(k, n, upper):
    # Newcombe (1998), Statistics in Medicine 17: 857-872, Table I, method 5 (exact): the
    # two-sided 95% interval's upper end is the one-sided bound at 97.5%
    assert clopper_pearson_upper(k, n, 0.975) == pytest.approx(upper, abs=5e-5)


def test_the_bound_and_the_binomial_test_agree_at_the_chosen_threshold():
    c = calibrate_threshold([3, 3, 3, 2, 2, 1], [1, 1, 1, 1, 0, 0], target=0.5, delta=0.2)
    assert [t[:3] for t in c.tested] == [(3.0, 3, 0), (2.0, 5, 1), (1.0, 6, 2)]
    assert [round(t[3], 4) for t in c.tested] == [0.125, 0.1875, 0.3438]
    # 1 disagreement in 5 at 80%: the u with P(Binomial(5, u) <= 1) = 0.2, i.e.
    # (1 - u)**5 + 5 u (1 - u)**4 = 0.2: u = 0.4902 (<= alpha = 0.5, as the test passed)
    assert c.upper_bound == pytest.approx(0.4902, abs=1e-4) and c.certified


def test_fixed_sequence_stops_at_the_first_failure_even_if_a_lower_threshold_would_pass():
    # the top threshold has 12 items, 6 wrong: p = P(Bin(12, 0.2) <= 6) = 0.9961 > delta; below
    # it, 50 more right items would pass (6 wrong of 62), but the sequence has stopped
    conf = [9] * 12 + [1] * 50
    agree = [0] * 6 + [1] * 56
    c = calibrate_threshold(conf, agree, target=0.8, delta=0.1)
    assert c.threshold is None and not c.certified and c.upper_bound is None
    assert [t[:3] for t in c.tested] == [(9.0, 12, 6)] and c.tested[0][3] == pytest.approx(
        0.9961, abs=1e-4)
    out = selective_outcome(c, [9, 1], [1, 1])
    assert (out.n, out.n_accepted, out.coverage) == (2, 0, 0.0) and math.isnan(out.agreement)


def test_a_threshold_too_small_to_pass_is_not_tested_and_cannot_end_the_sequence():
    # target 0.8, delta 0.1: fewer than ceil(log 0.1 / log 0.8) = 11 items fail even when all
    # agree (0.8 ** 10 = 0.107 > 0.1), so the top threshold (1 item, wrong) is skipped and the
    # next (51 items, 1 wrong: p = 0.8 ** 51 + 51 * 0.2 * 0.8 ** 50 = 0.00016) passes
    c = calibrate_threshold([9] + [1] * 50, [0] + [1] * 50, target=0.8, delta=0.1)
    assert c.threshold == 1.0 and (c.n_accepted, c.n_disagree) == (51, 1)
    assert [t[:3] for t in c.tested] == [(1.0, 51, 1)]


def test_a_judge_always_right_is_accepted_everywhere_once_there_is_enough_evidence():
    # 0 disagreements in n at target 0.9: p = 0.9 ** n <= 0.1 needs n >= 22
    assert not calibrate_threshold([1] * 21, [1] * 21, target=0.9, delta=0.1).certified
    c = calibrate_threshold([1] * 22, [1] * 22, target=0.9, delta=0.1)
    assert c.threshold == 1.0 and c.n_accepted == 22


def test_applied_to_held_out_items_coverage_and_agreement_are_counted():
    c = calibrate_threshold([3, 3, 3, 2, 2, 1], [1, 1, 1, 1, 0, 0], target=0.5, delta=0.2)
    out = selective_outcome(c, [3, 2, 2, 1.5, 1], [1, 1, 0, 1, 0])
    assert (out.n, out.n_accepted, out.n_agree) == (5, 3, 2)
    assert out.coverage == 0.6 and out.agreement == pytest.approx(2 / 3)
    # Wilson 95% for 2 of 3: 0.2077 to 0.9385
    assert out.agreement_ci == pytest.approx((0.2077, 0.9385), abs=1e-4)


def test_the_guarantee_holds_over_repeated_calibration_draws():
    # a judge right with probability 0.95 at confidence 1 and 0.6 at confidence 0: the rule at
    # target 0.85 must fail (true agreement of its accepted set below 0.85) in at most
    # delta = 0.1 of draws (plus binomial noise over 400 draws: 0.1 + 3 sd = 0.145)
    rng = np.random.default_rng(0)
    failures = 0
    for _ in range(400):
        conf = rng.integers(0, 2, 200)
        agree = rng.random(200) < np.where(conf == 1, 0.95, 0.6)
        c = calibrate_threshold(conf, agree, target=0.85, delta=0.1)
        true_agreement = {1.0: 0.95, 0.0: 0.775}.get(c.threshold, 1.0)
        failures += true_agreement < 0.85
    assert failures / 400 <= 0.145


@pytest.mark.parametrize("kwargs", [dict(target=1.0, delta=0.1), dict(target=0.8, delta=0)])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError, match="in \\(0, 1\\)"):
        calibrate_threshold([1], [1], **kwargs)


def test_a_nan_confidence_is_refused():
    with pytest.raises(ValueError, match="NaN"):
        calibrate_threshold([1, math.nan], [1, 1], target=0.8, delta=0.1)


def test_choose_signal_splits_delta_and_takes_the_one_accepting_more():
    import numpy as np

    from jurybox.stats.selective import calibrate_threshold, choose_signal

    # 30 items, all right; signal "a" is sure of 20 (1.0) and not of 10 (0.0, NaN for one:
    # no verdict), signal "b" sure of all 30. At delta 0.1 / 2 = 0.05 and target 0.8:
    # 0.8 ** 20 = 0.0115 and 0.8 ** 30 = 0.0012, both <= 0.05
    ok = np.ones(30, bool)
    a = np.array([1.0] * 20 + [0.0] * 9 + [np.nan])
    b = np.ones(30)
    rules, best = choose_signal({"a": (a, ok), "b": (b, ok)}, np.arange(30), target=0.8,
                                delta=0.1)
    assert best == "b" and rules["b"].n_accepted == 30 and rules["a"].n_calibration == 29
    assert rules["a"] == calibrate_threshold(a[:29], ok[:29], target=0.8, delta=0.05)
    # nothing certified: the first signal is named
    wrong = np.zeros(30, bool)
    rules, best = choose_signal({"a": (b, wrong), "b": (b, wrong)}, np.arange(30),
                                target=0.8, delta=0.1)
    assert best == "a" and not rules["a"].certified and not rules["b"].certified
