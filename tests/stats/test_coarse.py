import math

import numpy as np
import pytest

from jurybox.stats import coarse_agreement, pairwise_alpha, rater_profile


def test_jaccard_with_ties_at_the_median():
    # 10 co-rated items. Rater a: 1 1 2 2 3 3 3 4 5 5 -> median 3; strictly above: items
    # 7, 8, 9 (the 3s at the median are out). Rater b: 2 2 2 2 2 4 4 4 4 4 -> median 3
    # (mean of the two middle values 2 and 4); above: items 5..9.
    # A & B = {7, 8, 9}, A | B = {5, 6, 7, 8, 9}: J = 3/5.
    a = dict(zip(map(str, range(10)), [1, 1, 2, 2, 3, 3, 3, 4, 5, 5]))
    b = dict(zip(map(str, range(10)), [2, 2, 2, 2, 2, 4, 4, 4, 4, 4]))
    res = coarse_agreement({"a": a, "b": b})
    (pair,) = res.pairs
    assert (pair.n_above_a, pair.n_above_b, pair.n_both) == (3, 5, 3)
    assert pair.jaccard == pytest.approx(3 / 5) and res.mean == pytest.approx(3 / 5)
    assert res.matrix[0, 1] == res.matrix[1, 0] == pytest.approx(0.6)
    assert math.isnan(res.matrix[0, 0])


def test_empty_union_is_undefined_not_zero_or_one():
    # both raters give every item the same score: nothing is above either median
    flat = {str(i): 3.0 for i in range(12)}
    res = coarse_agreement({"a": flat, "b": dict(flat)})
    assert math.isnan(res.pairs[0].jaccard) and "empty union" in res.pairs[0].reason
    assert math.isnan(res.mean) and res.n_pairs_used == 0 and res.n_pairs_eligible == 1
    assert "empty union" in res.reason


def test_pairs_need_min_common_co_rated_items_and_missing_does_not_count():
    a = {str(i): float(i) for i in range(10)}
    b = {str(i): float(i) for i in range(10)}
    b["9"] = math.nan  # 9 co-rated items left
    res = coarse_agreement({"a": a, "b": b}, min_common=10)
    assert res.n_pairs_eligible == 0 and "no rater pair has 10" in res.reason
    assert coarse_agreement({"a": a, "b": b}, min_common=9).mean == 1.0


def test_mean_over_defined_pairs_only():
    x = {str(i): float(i) for i in range(10)}
    flat = {str(i): 1.0 for i in range(10)}
    res = coarse_agreement({"a": x, "b": dict(x), "c": flat})
    # a-b: J = 1; a-c: A = {5..9}, C = {} -> J = 0; b-c likewise 0; no pair undefined
    assert [p.jaccard for p in res.pairs] == [1.0, 0.0, 0.0]
    assert res.mean == pytest.approx(1 / 3) and res.n_pairs_used == 3


def test_rater_profile_by_hand():
    p = rater_profile("r", {"a": 1.0, "b": 3.0, "c": 3.0, "d": math.nan})
    assert (p.n, p.mean) == (3, pytest.approx(7 / 3))
    assert p.sd == pytest.approx(math.sqrt(((1 - 7 / 3) ** 2 + 2 * (3 - 7 / 3) ** 2) / 2))
    assert p.distribution == {1.0: pytest.approx(1 / 3), 3.0: pytest.approx(2 / 3)}


def test_pairwise_alpha_matrix():
    # c reverses a's 0-4 scale. Interval alpha = 1 - (n - 1) A / B with n = 40 values:
    # A = sum_u 2 d_u^2 / (2 - 1) = 2 * 4 * (16 + 4 + 0 + 4 + 16) = 320 (each gap 4 times);
    # B = 2 n sum (x - mean)^2 = 2 * 40 * 8 * (4 + 1 + 0 + 1 + 4) = 6400;
    # alpha = 1 - 39 * 320 / 6400 = -0.95.
    a = {str(i): float(i % 5) for i in range(20)}
    c = {str(i): float(4 - i % 5) for i in range(20)}
    res = pairwise_alpha({"a": a, "b": dict(a), "c": c}, level="interval")
    assert res.raters == ("a", "b", "c")
    assert res.matrix[0, 1] == pytest.approx(1.0) and res.n_common[0, 2] == 20
    assert res.matrix[0, 2] == res.matrix[2, 0] == pytest.approx(-0.95)
    assert np.all(np.diag(res.matrix) == 1)
