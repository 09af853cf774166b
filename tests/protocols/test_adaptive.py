"""Adaptive permutation consensus: the exact rule never changes a decision; the sequential
rule stops early on clear items."""

import random

import pytest

from jurybox.protocols.adaptive import earliest_stop, sequential_settled, settled
from jurybox.protocols.aggregate import RunView, Weights, consensus, winners


def _run(rng, n, grid):
    order = list(range(n))
    rng.shuffle(order)
    scores = tuple(float(rng.choice(grid)) for _ in range(n))
    ranking = sorted(range(n), key=lambda i: (-scores[i], rng.random()))
    ranks = [0] * n
    for r, i in enumerate(ranking, 1):
        ranks[i] = r
    return RunView(tuple(order), scores, tuple(ranks), tuple(rng.random() < 0.3
                                                              for _ in range(n)))


def _biased_run(rng, n, best):
    """A judge that mostly prefers ``best``: large, consistent gaps."""
    scores = [rng.uniform(20, 50) for _ in range(n)]
    scores[best] = rng.uniform(70, 95) if rng.random() < 0.9 else rng.uniform(20, 50)
    ranking = sorted(range(n), key=lambda i: -scores[i])
    ranks = [0] * n
    for r, i in enumerate(ranking, 1):
        ranks[i] = r
    return RunView(tuple(range(n)), tuple(scores), tuple(ranks), (False,) * n)


def _adaptive(outcomes, weights, tolerance, rule):
    """Ask in order, stop when the rule says so: (winners, calls used)."""
    runs = []
    for j, run in enumerate(outcomes):
        if run is not None:
            runs.append(run)
        if rule(runs, len(outcomes) - j - 1):
            return (winners(consensus(runs, weights=weights).combined, tolerance=tolerance)
                    if runs else None), j + 1
    raise AssertionError("the rule must stop when nothing remains")


def test_exact_stop_gives_fixed_k_decisions_on_thousands_of_random_judgments():
    rng = random.Random(0)
    stopped_early = checked = 0
    for trial in range(6000):
        n, k = rng.randint(2, 5), rng.randint(1, 9)
        # coarse grids make exact ties and ties within the tolerance common
        grid = rng.choice([(0, 50, 100), range(0, 101, 10), range(0, 101)])
        tolerance = rng.choice([0.0, 0.5, 5.0, 20.0])
        weights = rng.choice([Weights(), Weights(1, 0, 0, 0), Weights(0.2, 0.2, 0.5, 0.1),
                              Weights(3, 1, 0, 2)])
        fail_rate = rng.choice([0.0, 0.2, 0.6])
        clear = trial % 3 == 0  # a third with a consistent leader, so stops happen
        best = rng.randrange(n)
        outcomes = [None if rng.random() < fail_rate else
                    (_biased_run(rng, n, best) if clear else _run(rng, n, grid))
                    for _ in range(k)]
        ok = [r for r in outcomes if r is not None]
        fixed = (winners(consensus(ok, weights=weights).combined, tolerance=tolerance)
                 if ok else None)
        got, used = _adaptive(outcomes, weights, tolerance, lambda runs, left, w=weights,
                              t=tolerance, kk=k: settled(runs, left, weights=w, tolerance=t,
                                                         planned=kk))
        assert got == fixed, (trial, n, k, tolerance, weights)
        checked += 1
        stopped_early += used < k
        if used < k:
            # never before more than half were asked, nor with fewer successes than remain
            assert used >= earliest_stop(k)
            assert len([r for r in outcomes[:used] if r is not None]) > k - used
    assert checked == 6000 and stopped_early > 600  # the rule does stop, and never wrongly


def test_exact_stop_hand_computed():
    # n = 2, default weights (M = 100), tolerance 0.5. A run where candidate 0 scores 90 and
    # candidate 1 scores 10, ranked 0 first, neither uncertain: c_0 = 0.5*90 + 0.25*100 +
    # 0.2*100 = 90, c_1 = 0.5*10 = 5 (Borda 0, not in the top set).
    run = RunView((0, 1), (90.0, 10.0), (1, 2), (False, False))
    # K = 7 planned. After 3 such runs, 4 remain: A_0 - A_1 = 3 * 85 = 255; (1) needs
    # 255 - 4 * 100 > 0.5 * 7: false. After 4 runs, 3 remain: 340 - 300 = 40 > 3.5: true,
    # and (2) for the winner: A_1 + 3*100 - A_0 = 20 + 300 - 360 = -40 <= 3.5: true.
    assert not settled([run] * 3, 4)
    assert settled([run] * 4, 3)
    assert earliest_stop(7) == 4
    # two candidates within the tolerance never stop early (mean score only: c = s)
    tie = RunView((0, 1), (50.0, 50.2), (1, 2), (False, False))
    assert not settled([tie] * 6, 1, weights=Weights(1, 0, 0, 0))
    assert settled([], 0) and not settled([], 3)


def test_sequential_stops_on_clear_items_and_waits_on_close_ones():
    clear = RunView((0, 1, 2, 3), (90.0, 20.0, 15.0, 10.0), (1, 2, 3, 4), (False,) * 4)
    assert not sequential_settled([clear] * 2, 5)  # fewer than min_runs
    assert sequential_settled([clear] * 3, 4)
    close_a = RunView((0, 1, 2, 3), (60.0, 55.0, 15.0, 10.0), (1, 2, 3, 4), (False,) * 4)
    close_b = RunView((0, 1, 2, 3), (55.0, 60.0, 15.0, 10.0), (2, 1, 3, 4), (False,) * 4)
    assert not sequential_settled([close_a, close_b, close_a], 4)
    assert sequential_settled([close_a], 0)  # nothing left to ask


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_sequential_agrees_with_fixed_k_on_most_clear_random_items(confidence):
    rng = random.Random(1)
    agree = total = used_total = 0
    for _ in range(400):
        n, k = 4, 7
        best = rng.randrange(n)
        outcomes = [_biased_run(rng, n, best) for _ in range(k)]
        fixed = winners(consensus(outcomes).combined)
        got, used = _adaptive(outcomes, Weights(), 0.5, lambda runs, left: sequential_settled(
            runs, left, confidence=confidence))  # noqa: B023 - called within the iteration
        agree += got == fixed
        used_total += used
        total += 1
    assert agree / total > 0.97 and used_total / total < 5


def _against(n, rival, winner):
    """The judgment most against ``winner`` and for ``rival``: rival scored 100, ranked first,
    the sole top, flagged uncertain (+w_U); winner scored 0, ranked last, not flagged."""
    scores = [50.0] * n
    scores[rival], scores[winner] = 100.0, 0.0
    middle = iter(range(2, n))
    ranks = [1 if i == rival else n if i == winner else next(middle) for i in range(n)]
    return RunView(tuple(range(n)), tuple(scores), tuple(ranks),
                   tuple(i == rival for i in range(n)))


def test_no_exact_rule_can_stop_earlier_with_one_winner():
    """Whenever the exact rule keeps asking on an item with one winner, some sequence of
    valid judgments of the remaining orders changes the winner set (module docstring): the
    rule is the earliest stop that keeps K's decisions."""
    rng, weights, tolerance = random.Random(11), Weights(), 0.5
    checked = 0
    for _ in range(1500):
        n, planned = rng.choice([(3, 6), (4, 7)])
        asked = rng.randint(earliest_stop(planned), planned - 1)
        best = rng.randrange(n)
        runs = [_biased_run(rng, n, best) for _ in range(asked)]
        current = winners(consensus(runs, weights=weights).combined, tolerance=tolerance)
        remaining = planned - asked
        if len(current) != 1 or settled(runs, remaining, weights=weights, tolerance=tolerance):
            continue
        (w,) = current
        changed = any(
            winners(consensus(runs + [_against(n, j, w)] * m, weights=weights).combined,
                    tolerance=tolerance) != current
            for j in range(n) if j != w for m in range(1, remaining + 1))
        assert changed, (runs, remaining)
        checked += 1
    assert checked > 200  # items the rule kept asking on, each shown to need it
