"""Length bias (jurybox.stats.length): hand-computed values, ties, failures, the exact test
against scipy's binomial test, and its normal fallback."""

import math

import numpy as np
import pytest
from scipy import stats as sp

from jurybox.compare.summary import add_length
from jurybox.stats import LengthTally, length_bias, wilson_interval
from jurybox.stats import length as length_module


def test_four_items_by_hand():
    # item  lengths          pick  longest  x  unbiased e    gold  g
    # 1     [10, 40, 25]     1     {1}      1  1/3           1     1
    # 2     [30, 5, 12, 8]   0     {0}      1  1/4           2     0
    # 3     [7, 9]           0     {1}      0  1/2           0     0
    # 4     [50, 20, 60]     2     {2}      1  1/3           2     1
    # observed 3/4; expected (1/3 + 1/4 + 1/2 + 1/3) / 4 = (17/12) / 4 = 17/48; gold 2/4.
    # Null: a Poisson binomial with p = (1/3, 1/4, 1/2, 1/3): (2/3 + z/3)^2 = (4 + 4z + z^2)/9
    # times (3/4 + z/4)(1/2 + z/2) = (3 + 4z + z^2)/8 gives, in 72nds, P(S = 0..4) =
    # 12, 28, 23, 8, 1. Observed S = 3 (8/72); outcomes no more likely: S = 3, 4, so
    # p = 9/72 = 1/8.
    r = length_bias([[10, 40, 25], [30, 5, 12, 8], [7, 9], [50, 20, 60]],
                    [[1], [0], [0], [2]], gold=[[1], [2], [0], [2]])
    assert r.observed == 0.75 and r.expected == pytest.approx(17 / 48)
    assert r.gold == 0.5 and r.n == 4 and r.n_gold == 4
    assert r.p_value == pytest.approx(1 / 8) and r.test == "exact"
    # Wilson, z = 1.959964: centre (0.75 + z^2/8) / (1 + z^2/4) = 1.230182 / 1.960365
    # = 0.627527; half-width z / 1.960365 * sqrt(0.75 * 0.25 / 4 + z^2 / 64) = 0.326886
    assert tuple(r.confidence_interval) == pytest.approx((0.300641, 0.954413), abs=1e-6)
    assert (r.n_failed, r.n_tied, r.n_equal_length, r.n_unmeasured, r.reason) == (
        0, 0, 0, 0, None)


def test_tied_winners_shared_longest_equal_lengths_and_failures():
    # A: lengths [10, 10, 3], longest {0, 1}, pick {1}:       x = 1,   e = 2/3, gold {0}: 1
    # B: lengths [5, 8, 8, 1], longest {1, 2}, pick {0, 3}:   x = 0,   e = 2/4, gold {1}: 1
    # C: lengths [4, 4]: every candidate of one length: excluded (n_equal_length)
    # D: failed (no pick): excluded (n_failed)
    # E: lengths [1, 2, 3], pick {0, 1, 2} (all tied):         x = 1/3, e = 1/3, no gold
    # observed (1 + 0 + 1/3) / 3 = 4/9; expected (2/3 + 1/2 + 1/3) / 3 = 1/2; gold 2/2.
    r = length_bias([[10, 10, 3], [5, 8, 8, 1], [4, 4], [1, 2], [1, 2, 3]],
                    [[1], [0, 3], [0], None, [0, 1, 2]],
                    gold=[[0], [1], [0], [], []])
    assert r.observed == pytest.approx(4 / 9) and r.expected == pytest.approx(0.5)
    assert (r.gold, r.n_gold, r.n, r.n_equal_length, r.n_failed) == (1.0, 2, 3, 1, 1)
    # Null, on the lattice of halves (D = lcm of the random items' winner counts = 2; E's
    # pick is every candidate, so x_E = 1/3 for certain and drops out):
    # A: k ~ Bernoulli(2/3), x = k: lattice 0 or 2 with 1/3, 2/3.
    # B: k ~ hypergeometric(4 candidates, 2 longest, 2 drawn): P(0, 1, 2) = 1/6, 4/6, 1/6;
    #    x = k/2: lattice 0, 1, 2.
    # Sum, in 18ths: t = 0: 1, t = 1: 4, t = 2: 1 + 2 = 3, t = 3: 8, t = 4: 2.
    # Observed x_A + x_B = 1: t = 2 (3/18); no more likely: t = 0, 2, 4: p = 6/18 = 1/3.
    assert r.p_value == pytest.approx(1 / 3)


def test_pairwise_decisions_by_hand_and_against_scipy():
    # 10 decisive verdicts, the longer response wins 9: unbiased 1/2 each, so a binomial
    # test: p = 2 * (C(10,9) + C(10,10)) / 2^10 = 22/1024. Plus a tie verdict, a failed item
    # and a pair of equal length, each left out and counted.
    tally = LengthTally()
    for verdict in "AAAAAAAAAB":
        add_length(tally, "pairwise", {"verdict": verdict}, [120, 40], "A>B")
    add_length(tally, "pairwise", {"verdict": "tie"}, [120, 40], "A>B")
    add_length(tally, "pairwise", {"verdict": None}, [120, 40], "A>B")
    add_length(tally, "pairwise", {"verdict": "B"}, [33, 33], "B>A")
    r = tally.result()
    assert (r.n, r.observed, r.expected) == (10, 0.9, 0.5)
    assert (r.n_tied, r.n_failed, r.n_equal_length) == (1, 1, 1)
    assert r.gold == 1.0 and r.n_gold == 10  # the labelled better response is the longer
    assert r.p_value == pytest.approx(22 / 1024)
    assert r.p_value == pytest.approx(sp.binomtest(9, 10, 0.5).pvalue)


def test_listwise_records_unlabelled_and_without_lengths():
    tally = LengthTally()
    add_length(tally, "listwise", {"winners": [2]}, [3, 1, 9], [])      # longest, no gold
    add_length(tally, "listwise", {"winners": []}, [3, 1, 9], [0])      # failed
    add_length(tally, "listwise", {"winners": [0]}, None, [0])          # written before lengths
    r = tally.result()
    assert (r.n, r.observed, r.gold, r.n_gold, r.n_failed, r.n_unmeasured) == (
        1, 1.0, None, 0, 1, 1)
    assert r.n_excluded == 2


@pytest.mark.parametrize("seed", range(5))
def test_single_picks_of_one_size_give_scipys_binomial_test(seed):
    # every item: 4 candidates, one longest, one pick: the null is Binomial(n, 1/4)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    picks = [[int(j)] for j in rng.integers(0, 4, size=n)]
    r = length_bias([[10, 20, 30, 40]] * n, picks)
    hits = sum(p == [3] for p in picks)
    assert r.observed == hits / n
    assert r.p_value == pytest.approx(sp.binomtest(hits, n, 0.25).pvalue, rel=1e-9)


def test_normal_fallback_for_very_large_runs(monkeypatch):
    # the four items of test_four_items_by_hand, forced onto the normal approximation:
    # mean 17/12, variance sum p(1 - p) = 2/9 + 3/16 + 1/4 + 2/9 = 127/144, observed 3:
    # z = (3 - 17/12) / sqrt(127/144) = 1.685977, p = 2 (1 - Phi(z)) = 0.091800
    monkeypatch.setattr(length_module, "MAX_EXACT_WORK", 0)
    r = length_bias([[10, 40, 25], [30, 5, 12, 8], [7, 9], [50, 20, 60]],
                    [[1], [0], [0], [2]])
    assert r.test == "normal" and r.p_value == pytest.approx(0.091800, abs=1e-6)
    # a tied pick: hypergeometric variance w (m/n)(1 - m/n)(n - w)/(n - 1) / w^2; for 4
    # candidates, 2 longest, 2 winners: 2 * 1/4 * 2/3 / 4 = 1/12 (the exact distribution
    # 0, 1/2, 1 with 1/6, 4/6, 1/6 has variance 2 * 1/6 * 1/4 = 1/12). Observed x = 1:
    # z = (1 - 1/2) / sqrt(1/12) = 1.732051, p = 0.083265
    r = length_bias([[5, 8, 8, 1]], [[1, 2]])
    assert r.test == "normal" and r.p_value == pytest.approx(0.083265, abs=1e-6)


def test_nothing_to_count_is_nan_with_a_reason():
    r = length_bias([[4, 4]], [[0]])
    assert math.isnan(r.observed) and math.isnan(r.expected) and math.isnan(r.p_value)
    assert r.n == 0 and r.n_equal_length == 1 and r.gold is None
    assert r.reason == "no item counted: 1 with candidates of equal length"
    assert all(math.isnan(b) for b in r.confidence_interval)


def test_every_pick_a_tie_of_all_candidates_has_no_variance():
    # x = e for certain: observed equals expected, and every outcome is the observed one
    r = length_bias([[1, 2, 3], [4, 9]], [[0, 1, 2], [0, 1]])
    assert r.observed == pytest.approx(r.expected) == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert r.p_value == 1.0


@pytest.mark.parametrize("lengths, winners, gold, match", [
    ([5], [0], (), "two or more lengths"),
    ([5, -1], [0], (), "two or more lengths"),
    ([5, 6], [], (), "add_failed"),
    ([5, 6], [2], (), "outside 0..1"),
    ([5, 6], [0], (3,), "outside 0..1"),
])
def test_bad_items_are_refused(lengths, winners, gold, match):
    with pytest.raises(ValueError, match=match):
        LengthTally().add(lengths, winners, gold)


def test_wilson_matches_newcombes_published_intervals():
    # Newcombe (1998), Statistics in Medicine 17: 857-872, Table I, method 3 (score, no
    # continuity correction)
    for k, n, low, high in [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605),
                            (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
                            (29, 29, 0.8830, 1.0)]:
        ci = wilson_interval(k / n, n)
        assert (round(ci.low, 4), round(ci.high, 4)) == (low, high)
    assert all(math.isnan(b) for b in wilson_interval(0.0, 0))
    with pytest.raises(ValueError, match="share"):
        wilson_interval(1.5, 3)


def test_nothing_counted_says_what_was_left_out():
    from jurybox.stats.length import NO_ITEMS, LengthTally

    assert LengthTally().result().reason == NO_ITEMS
    tally = LengthTally()
    tally.add_tied()
    tally.add_failed()
    tally.add_unmeasured()
    tally.add_unmeasured()
    result = tally.result()
    assert result.n == 0 and math.isnan(result.observed)
    assert result.reason == ("no item counted: 1 failed, 1 tie verdict, 2 without recorded "
                             "lengths")
    equal = LengthTally()
    equal.add([5, 5], {0})
    assert equal.result().reason == "no item counted: 1 with candidates of equal length"
