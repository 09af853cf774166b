"""Krippendorff's alpha: published values, the ``krippendorff`` package as oracle, properties."""

from __future__ import annotations

import doctest
import json
import math
import warnings
from importlib import resources

import numpy as np
import pytest

from jurybox.stats import ConfidenceInterval
from jurybox.stats import krippendorff as kmod
from jurybox.stats.krippendorff import AlphaResult, DegenerateAlphaWarning, krippendorff_alpha

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _reference_cases() -> list[dict]:
    path = resources.files("jurybox").joinpath("data", "krippendorff", "reference_cases.json")
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


def _case_id(case: dict) -> str:
    source = case["source"]
    return f"{case['name']} [{source[:source.index(')') + 1]}]"  # e.g. "Krippendorff, K. (2011)"


def _ratings_from_value_counts(counts: list[list[int]], values: list) -> np.ndarray:
    """Units x values count matrix -> ratings (raters x units), padded with NaN.

    Alpha depends only on the multiset of values in each unit, not on which rater gave them.
    """
    columns = [[v for v, c in zip(values, row, strict=True) for _ in range(c)] for row in counts]
    width = max(len(col) for col in columns)
    return np.array([col + [np.nan] * (width - len(col)) for col in columns], dtype=float).T


CASES = _reference_cases()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_published_reference_values(case):
    data = case["data"]
    if case["input_kind"] == "value_counts":  # columns are values 0..V-1 as in krippendorff.alpha
        data = _ratings_from_value_counts(data, case["value_domain"] or list(range(len(data[0]))))
    res = krippendorff_alpha(data, level=case["level_of_measurement"],
                             value_domain=case["value_domain"], n_resamples=0)
    assert round(res.alpha, case["expected_decimals"]) == case["expected_alpha"]
    assert res.alpha == pytest.approx(case["krippendorff_pypi_0_9_0"], abs=1e-9)  # 10 decimals


def test_reference_cases_are_all_there():
    assert len(CASES) == 12


def test_docstring_reproduces_the_published_example():
    assert doctest.testmod(kmod, verbose=False).failed == 0


def test_public_names():
    assert sorted(kmod.__all__) == ["AlphaResult", "DegenerateAlphaWarning",
                                    "InsufficientRatingsError", "Level", "krippendorff_alpha"]


# ---------------------------------------------------------------- the package as oracle


def _random_ratings(rng: np.random.Generator, kind: str, shape=(5, 40), missing=0.25):
    if kind == "discrete":
        x = rng.integers(0, 7, size=shape).astype(float)
    else:  # continuous, positive, with unit effects so alpha is not near 0
        x = np.round(rng.lognormal(0.0, 0.4, size=shape) * rng.lognormal(1.0, 0.6, shape[1]), 3)
    x[rng.random(shape) < missing] = np.nan
    return x


@pytest.mark.parametrize("kind", ["discrete", "continuous"])
@pytest.mark.parametrize("level", LEVELS)
def test_equals_krippendorff_package(level, kind):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng([7, LEVELS.index(level), kind == "discrete"])
    for _ in range(5):
        x = _random_ratings(rng, kind)
        expected = krippendorff.alpha(x, level_of_measurement=level)
        assert krippendorff_alpha(x, level=level, n_resamples=0).alpha == pytest.approx(
            expected, abs=1e-9)


def test_string_labels_ordinal_follow_value_domain():
    krippendorff = pytest.importorskip("krippendorff")
    domain = ["low", "mid", "high", "top"]
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 4, size=(4, 30))
    labels = np.array(domain, dtype=object)[codes]
    labels[rng.random(codes.shape) < 0.2] = None
    expected = krippendorff.alpha(np.where(labels == None, np.nan, codes),  # noqa: E711
                                  level_of_measurement="ordinal")
    res = krippendorff_alpha(labels, level="ordinal", value_domain=domain, n_resamples=0)
    assert res.alpha == pytest.approx(expected, abs=1e-12)


def _alpha_by_definition(x: np.ndarray, delta) -> float:
    """alpha = 1 - (n - 1) sum_u sum_{i!=j in u} d / (m_u - 1) / sum_{i!=j} d, all pairs."""
    present = ~np.isnan(x)
    keep = present.sum(axis=0) >= 2
    x, present = x[:, keep], present[:, keep]
    within = 0.0
    for u in range(x.shape[1]):
        v = x[present[:, u], u]
        within += delta(v[:, None], v[None, :]).sum() / (v.size - 1)
    v = x.T[present.T]
    total = sum(delta(v[i:i + 512, None], v[None, :]).sum() for i in range(0, v.size, 512))
    return 1.0 - (v.size - 1) * within / total


@pytest.mark.parametrize("spread, zeros", [(2.0, 0.03), (1e-4, 0.0)])  # wide, and 0.01%
def test_ratio_with_many_distinct_values_matches_definition(spread, zeros):
    # > 1024 distinct values: D_e comes from the exponential-sum quadrature
    rng = np.random.default_rng(5)
    x = rng.lognormal(0, spread, size=(3, 700)) * rng.lognormal(0, spread, size=700)
    x[rng.random(x.shape) < zeros] = 0.0
    x[rng.random(x.shape) < 0.2] = np.nan
    pairable = x[:, (~np.isnan(x)).sum(axis=0) >= 2]
    assert np.unique(pairable[~np.isnan(pairable)]).size > kmod._EXACT_RATIO_VALUES
    res = krippendorff_alpha(x, level="ratio", n_resamples=200)
    assert res.alpha == pytest.approx(_alpha_by_definition(x, kmod._ratio_delta), abs=1e-12)
    low, high = res.confidence_interval
    assert low < res.alpha < high


def test_interval_with_large_offset_is_stable():
    rng = np.random.default_rng(9)
    x = _random_ratings(rng, "continuous")
    shifted = krippendorff_alpha(x + 1e6, level="interval", n_resamples=0).alpha
    assert shifted == pytest.approx(krippendorff_alpha(x, level="interval", n_resamples=0).alpha,
                                    abs=1e-9)


# ---------------------------------------------------------------- properties


@pytest.mark.parametrize("level", LEVELS)
def test_invariant_to_rater_order_and_unit_order(level):
    rng = np.random.default_rng([3, LEVELS.index(level)])
    x = _random_ratings(rng, "continuous", shape=(6, 50))
    base = krippendorff_alpha(x, level=level, n_resamples=0).alpha
    for _ in range(3):
        shuffled = x[rng.permutation(6)][:, rng.permutation(50)]
        assert krippendorff_alpha(shuffled, level=level, n_resamples=0).alpha == pytest.approx(
            base, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_perfect_agreement_gives_one(level):
    rng = np.random.default_rng(4)
    truth = rng.integers(1, 9, size=60).astype(float)
    x = np.tile(truth, (4, 1))
    x[rng.random(x.shape) < 0.3] = np.nan
    res = krippendorff_alpha(x, level=level, n_resamples=50)
    assert res.alpha == pytest.approx(1.0, abs=1e-12)
    assert res.confidence_interval == pytest.approx((1.0, 1.0), abs=1e-12)
    # every resample agrees perfectly too: a degenerate interval, standard error 0
    ci = res.confidence_interval
    assert type(ci) is ConfidenceInterval and ci.degenerate and ci.standard_error == 0.0


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("ratings", [
    [[4.0, 4.0, np.nan], [4.0, 4.0, 2.0]],  # the 2 is not pairable: both pairable units 4/4
    [[7.0, 7.0], [7.0, 7.0], [7.0, np.nan]],
])
def test_no_variation_is_nan_with_reason_and_warning(level, ratings):
    with pytest.warns(DegenerateAlphaWarning, match="no variation"):
        res = krippendorff_alpha(ratings, level=level)
    assert math.isnan(res.alpha) and res.reason.startswith("no variation")
    assert all(math.isnan(v) for v in res.confidence_interval)
    assert res.n_units == 2 and res.n_raters == len(ratings)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("ratings, kind, message", [
    ([[1.0, 2.0, 3.0]], "single rater", r"two or more raters; only rater \(row\) 0 of 1"),
    ([[np.nan, np.nan], [1.0, 2.0]], "single rater", r"only rater \(row\) 1 of 2 has any"),
    ([[1.0, np.nan, 2.0], [np.nan, 3.0, np.nan]], "no pairable units",  # one rating per unit
     r"a unit rated by two or more raters; each of the 3 rated units \(of 3\)"),
    ([[1.0, np.nan, np.nan], [np.nan, 3.0, np.nan]], "no pairable units",
     r"each of the 2 rated units \(of 3\) has a single rating"),
    ([[np.nan, np.nan], [np.nan, np.nan]], "no ratings", r"got none \(shape \(2, 2\)"),
    (np.empty((3, 0)), "no ratings", r"got none \(shape \(3, 0\)"),
    (np.empty((0, 4)), "no ratings", r"got none \(shape \(0, 4\)"),
    ([[None, None], [None, None]], "no ratings", "got none"),
])
def test_ratings_without_pairable_values_raise(level, ratings, kind, message):
    # these were NaN with a warning; they are input errors now: nothing to measure
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # raised, not warned
        with pytest.raises(kmod.InsufficientRatingsError, match=message) as info:
            krippendorff_alpha(ratings, level=level)
    assert info.value.kind == kind and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value)  # one line for the CLI


def test_insufficient_labels_raise_too():
    with pytest.raises(kmod.InsufficientRatingsError, match="single rater|two or more raters"):
        krippendorff_alpha([["a", "b", "c"]], level="nominal")


def test_result_fields():
    x = [[1, 2, None, 4], [1, 3, 3, None], [2, 2, 3, 4]]
    res = krippendorff_alpha(x, level="interval", n_resamples=0, confidence=0.9)
    assert isinstance(res, AlphaResult) and res.reason is None
    assert (res.level, res.n_units, res.n_raters, res.n_pairable_values) == ("interval", 4, 3, 10)
    assert res.confidence_level == 0.9 and res.n_resamples == 0
    assert all(math.isnan(v) for v in res.confidence_interval)


def test_bootstrap_is_seeded_and_covers_the_estimate():
    rng = np.random.default_rng(8)
    truth = rng.normal(0, 1, size=150)
    x = truth + rng.normal(0, 0.7, size=(3, 150))
    x[rng.random(x.shape) < 0.15] = np.nan
    res = krippendorff_alpha(x, level="interval", n_resamples=500, seed=1)
    low, high = res.confidence_interval
    assert 0.4 < low < res.alpha < high < 0.9
    # the standard error is the sd of the resampled alphas; for a near-normal bootstrap
    # distribution the 95% percentile interval spans about 2 x 1.96 of them
    ci = res.confidence_interval
    assert type(ci) is ConfidenceInterval and not ci.degenerate
    assert (high - low) / 2 == pytest.approx(1.96 * ci.standard_error, rel=0.15)
    assert type(krippendorff_alpha(x, level="interval", n_resamples=0).confidence_interval) \
        is ConfidenceInterval
    assert krippendorff_alpha(x, level="interval", n_resamples=500, seed=1) == res
    assert krippendorff_alpha(x, level="interval", n_resamples=500, seed=2) \
        .confidence_interval != res.confidence_interval


@pytest.mark.parametrize("top", [7, 60])  # nominal: dense and sparse (unit, value) counts
@pytest.mark.parametrize("level", LEVELS)
def test_bootstrap_at_every_level_brackets_the_estimate(level, top):
    rng = np.random.default_rng(12)
    truth = rng.integers(1, top + 1, size=120)
    x = np.clip(truth + rng.integers(-1, 2, size=(4, 120)), 1, top).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    res = krippendorff_alpha(x, level=level, n_resamples=300)
    low, high = res.confidence_interval
    assert low < res.alpha < high


def test_labels_without_domain_use_sorted_order_and_none_is_missing():
    numbers = [[1, 2, 3, None, 2], [1, 3, 3, 1, None], [2, 2, None, 1, 3]]
    letters = [[None if v is None else "abc"[v - 1] for v in row] for row in numbers]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for level in ("nominal", "ordinal"):
            assert krippendorff_alpha(letters, level=level, n_resamples=0).alpha == \
                pytest.approx(krippendorff_alpha(numbers, level=level, n_resamples=0).alpha)


@pytest.mark.parametrize("kwargs, message", [
    (dict(ratings=[1, 2, 3]), "2-D"),
    (dict(ratings=[[1, 2], [2, 1]], level="likert"), "level must be one of"),
    (dict(ratings=[["a", "b"], ["a", "a"]], level="interval"), "labels need level"),
    (dict(ratings=[[1, 2], [2, 9]], level="ordinal", value_domain=[1, 2, 3]),
     "not in value_domain"),
    (dict(ratings=[[1, 2], [2, 1]], level="ordinal", value_domain=[1, 2, 2]), "without repeats"),
    (dict(ratings=[[1, -2], [2, 1]], level="ratio"), ">= 0"),
    (dict(ratings=[[1, np.inf], [2, 1]]), "finite"),
    (dict(ratings=[[1, 2], [2, 1]], n_resamples=-1), "n_resamples"),
    (dict(ratings=[[1, 2], [2, 1]], confidence=1.0), "confidence"),
])
def test_invalid_input_raises(kwargs, message):
    with pytest.raises(ValueError, match=message):
        krippendorff_alpha(**kwargs)
