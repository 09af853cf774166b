"""The numpy percentile bootstrap against scipy's (bit for bit: the same draws, the same
quantiles), the ratio bootstrap by hand, and the exact sign test by hand and against scipy."""

import math

import numpy as np
import pytest
from scipy import stats

from jurybox.stats import bootstrap_mean_ci, bootstrap_ratio_ci, sign_test_p
from jurybox.stats.paired import EXACT_SIGN_TEST_MAX


def _scipy(values, n_resamples=2000, seed=0, confidence=0.95):
    res = stats.bootstrap((np.asarray(values, float),), np.mean, method="percentile",
                          confidence_level=confidence, n_resamples=n_resamples,
                          rng=np.random.default_rng(seed), vectorized=True)
    return res.confidence_interval.low, res.confidence_interval.high, res.standard_error


@pytest.mark.parametrize("values", [
    [0, 1, 1, 0, 1, 1, 1, 0, 1, 1],                          # credits
    [1, 0, -1, 0, 0, 1, 1, 0, -1, 1, 1, 0],                  # paired differences
    [0.5, 1, 0, 0.5, 1, 1, 0.25, 0.75],                      # tie credits on the grid
    [1 / 3, 1, 0, 2 / 3, 1, 0, 1 / 3],                       # off the grid: row means
    list(np.random.default_rng(7).integers(0, 2, 1500)),      # 3M cells: batched draws
], ids=["credits", "differences", "quarters", "thirds", "batched"])
@pytest.mark.parametrize("n_resamples, seed, confidence", [(2000, 0, 0.95), (99, 3, 0.9)])
def test_the_interval_is_scipys_percentile_bootstrap_bit_for_bit(values, n_resamples, seed,
                                                                confidence):
    ci = bootstrap_mean_ci(np.asarray(values, float), confidence=confidence,
                           n_resamples=n_resamples, seed=seed)
    assert (ci.low, ci.high, ci.standard_error) == _scipy(values, n_resamples, seed,
                                                          confidence)
    assert not ci.degenerate


def test_a_ratio_of_two_items_by_hand():
    # item 0: 0 of 2 verdicts for the first shown, item 1: 2 of 2; a resample of 2 items
    # gives 0 (both item 0, p = 1/4), 1/2 (one each, 1/2) or 1 (both item 1, 1/4): over
    # 2,000 resamples the 2.5% and 97.5% quantiles are 0 and 1
    ci = bootstrap_ratio_ci(np.array([0, 2]), np.array([2, 2]), confidence=0.95,
                            n_resamples=2000, seed=0)
    assert (ci.low, ci.high) == (0.0, 1.0)
    assert ci.standard_error == pytest.approx(math.sqrt(1 / 8), rel=0.05)  # sd of the 3


def test_a_ratio_resamples_items_and_leaves_out_those_without_a_verdict():
    num, den = np.array([2, 1, 0, 2, 1, 2, 0, 1]), np.array([2, 2, 1, 2, 2, 2, 2, 1])
    ci = bootstrap_ratio_ci(num, den, confidence=0.95, n_resamples=500, seed=0)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 8, (500, 8))  # scipy's draws for 8 items
    theta = num[idx].sum(axis=1) / den[idx].sum(axis=1)
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(theta, [0.025, 0.975])),
                                              abs=1e-12)
    # an item with no decisive verdict is not drawn: the same interval
    padded = bootstrap_ratio_ci(np.append(num, 0), np.append(den, 0), confidence=0.95,
                                n_resamples=500, seed=0)
    assert tuple(padded) == tuple(ci)


def test_ratio_edge_cases():
    same = bootstrap_ratio_ci(np.array([1, 2, 1]), np.array([1, 2, 1]), confidence=0.95,
                              n_resamples=100, seed=0)
    assert tuple(same) == (1.0, 1.0) and same.degenerate and same.standard_error == 0.0
    one = bootstrap_ratio_ci(np.array([1, 0]), np.array([2, 0]), confidence=0.95,
                             n_resamples=100, seed=0)
    assert all(math.isnan(v) for v in (*one, one.standard_error))
    with pytest.raises(ValueError, match="its denominator"):
        bootstrap_ratio_ci(np.array([3]), np.array([2]), confidence=0.95, n_resamples=10,
                           seed=0)
    with pytest.raises(ValueError, match="one shape"):
        bootstrap_ratio_ci(np.array([1]), np.array([1, 2]), confidence=0.95, n_resamples=10,
                           seed=0)


def test_sign_test_by_hand():
    assert sign_test_p(0, 5) == 2 / 32
    assert sign_test_p(1, 10) == 22 / 1024 == sign_test_p(9, 10)
    assert sign_test_p(3, 14) == 2 * (1 + 14 + 91 + 364) / 2 ** 14
    assert sign_test_p(0, 1) == 1.0 and sign_test_p(5, 10) == 1.0 and sign_test_p(4, 9) == 1.0
    with pytest.raises(ValueError):
        sign_test_p(3, 2)


@pytest.mark.parametrize("n", [1, 2, 7, 50, 319, 466, 2001, EXACT_SIGN_TEST_MAX + 1])
def test_sign_test_is_scipys_binomtest(n):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        assert sign_test_p(k, n) == pytest.approx(stats.binomtest(k, n, 0.5).pvalue,
                                                  rel=1e-12, abs=1e-300)
