import numpy as np
import pytest

from jurybox.agreement import analyze, ratings_matrix
from jurybox.datasets import BUNDLED_RATINGS, bundled_path, load_ratings


@pytest.fixture(scope="module")
def squality():
    return load_ratings(bundled_path(BUNDLED_RATINGS["squality"]))


def test_alpha_per_dimension_matches_the_krippendorff_package(squality):
    kd = pytest.importorskip("krippendorff")
    results = analyze(squality, n_resamples=200)
    assert [g.key for g in results] == [{"dimension": d} for d in
                                        ("correctness", "selection", "overall")]
    for g in results:
        scores = {}
        for r in squality.ratings:
            if r.dimension == g.key["dimension"]:
                scores.setdefault(r.rater_id, {})[r.item_id] = r.score
        matrix, raters, items = ratings_matrix(scores)
        assert (len(raters), len(items)) == (4, 300)
        expected = kd.alpha(reliability_data=matrix, level_of_measurement="ordinal")
        assert g.alpha.alpha == pytest.approx(expected, abs=1e-9)
        lo, hi = g.alpha.confidence_interval
        assert lo < g.alpha.alpha < hi
        assert g.alpha.n_units == 300 and g.alpha.n_pairable_values == 900
        assert g.coarse.n_pairs_eligible == 6 and len(g.profiles) == 4


def test_grouping_by_dimension_and_domain(squality):
    results = analyze(squality, by=("dimension", "domain"), n_resamples=0)
    assert results[0].key == {"dimension": "correctness", "domain": "long_document_qfs"}
    assert results[0].label == "correctness / long_document_qfs"
    with pytest.raises(ValueError, match="--by takes"):
        analyze(squality, by=("rater",))


def test_ratings_matrix_layout():
    matrix, raters, items = ratings_matrix({"r2": {"b": 1.0}, "r1": {"a": 2.0, "b": 3.0}})
    assert raters == ["r1", "r2"] and items == ["a", "b"]
    assert np.array_equal(matrix, np.array([[2.0, 3.0], [np.nan, 1.0]]), equal_nan=True)


def _table(rows):
    from pathlib import Path

    from jurybox.datasets import Rating, RatingsTable

    return RatingsTable([Rating(i, r, d, s) for d, r, i, s in rows], Path("r.csv"))


# dimension "ok": raters r1, r2 on items a, b, c with variation; "solo": r1 alone;
# "apart": r1 and r2 never on the same item; "gone": every score excluded (NaN)
MIXED = ([("ok", "r1", i, s) for i, s in zip("abc", (1.0, 2.0, 3.0))]
         + [("ok", "r2", i, s) for i, s in zip("abc", (1.0, 2.0, 2.0))]
         + [("solo", "r1", i, 1.0 + k) for k, i in enumerate("abc")]
         + [("apart", "r1", "a", 1.0), ("apart", "r2", "b", 2.0)]
         + [("gone", "r1", "a", float("nan")), ("gone", "r2", "a", float("nan"))])


def test_a_group_without_pairable_ratings_is_reported_not_fatal():
    # alpha raises for these ratings now; analyze keeps the other groups and says why
    results = {g.key["dimension"]: g for g in analyze(_table(MIXED), n_resamples=0)}
    assert results["ok"].alpha.n_units == 3 and not np.isnan(results["ok"].alpha.alpha)
    reasons = {
        "solo": "a single rater (r1): alpha needs two or more",
        "apart": "no item rated by two of the 2 raters",
        "gone": "no ratings: every score is missing or excluded",
    }
    for dim, reason in reasons.items():
        a = results[dim].alpha
        assert np.isnan(a.alpha) and a.reason == reason
        assert (a.n_units, a.n_pairable_values) == (0, 0)
        assert all(np.isnan(v) for v in a.confidence_interval)
    assert results["solo"].alpha.n_raters == 1 and results["apart"].alpha.n_raters == 2


def test_no_group_with_pairable_ratings_raises_naming_the_group():
    from jurybox.stats import InsufficientRatingsError

    solo = [r for r in MIXED if r[0] == "solo"]
    with pytest.raises(InsufficientRatingsError, match=r"no group has ratings to measure "
                       r"agreement on; group 'solo': a single rater \(r1\)") as info:
        analyze(_table(solo))
    assert info.value.kind == "single rater"


def test_pairwise_alpha_cell_without_pairable_ratings_is_undefined():
    from jurybox.stats import pairwise_alpha

    scores = {"a": {"1": 1.0, "2": float("nan")}, "b": {"1": float("nan"), "2": 2.0}}
    res = pairwise_alpha(scores, pairs={("a", "b"): ["1", "2"]})  # no item with both scores
    assert np.isnan(res.matrix[0, 1]) and np.isnan(res.matrix[1, 0])
    assert res.n_common[0, 1] == 2
