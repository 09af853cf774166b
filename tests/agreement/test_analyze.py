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
