"""When permutation consensus may stop asking: an exact rule and a sequential (lossy) one.

PCF's C_i is a mean over the K' successful runs of a per-run contribution (arXiv 2603.20562,
Sec. 3; see :mod:`jurybox.protocols.aggregate`)::

    C_i = (1/K') sum_k c_ik,   c_ik = w_S s_ik + w_B 100 (n - r_ik)/(n - 1)
                                      + w_V 100 [i in T_k]/|T_k| + w_U 100 u_ik

and every c_ik lies in [0, M] with M = 100 (w_S + w_B + w_V + w_U): a score, a Borda share,
a top-set share and an uncertainty flag are each between 0 and 100. After some of the K
planned runs, write A_i = sum of c_ik over the K' successful runs so far and r for the runs
still to ask. Each of those may fail (adding nothing) or succeed with any judgment, so the
final C_i is (A_i + X_i) / (K' + m) for some m in 0..r successes and some X_i in [0, m M].

**Exact stop** (:func:`settled`). The winner set is {i : C_i >= max_j C_j - tau}. For a given
m, a candidate l outside it can join only if l gains the most (X_l = m M) while every other
gains nothing, so it stays out for every future iff

    max_{j != l} A_j - A_l - m M > tau (K' + m)                                    (1)

and a winner i stays in for every future iff, for every j != i (j gains m M, i nothing),

    A_j + m M - A_i <= tau (K' + m).                                               (2)

With m = 0 the final set is the current one. When (1) and (2) hold for every m in 1..r, no
outcome of the remaining runs (failures included) changes the winner set: the decision is the
fixed-K decision by construction. A margin of 1e-9 (M K + 1) on each inequality keeps
floating-point rounding on the safe side.

No exact rule can stop earlier. With two or more winners, (2) fails (one winner could gain M
a run while another gains nothing). With one winner w, (2) and (1) each compare w with one
other candidate j, and their worst case is a judgment a judge can give in every remaining
run: j scored 100, ranked first, the sole top and flagged uncertain, w scored 0 and ranked
last. So whenever the rule keeps asking, some sequence of valid judgments would change the
winner set.

Corollary: A_best - A_l <= K' M, so (1) needs K' M > r M: an item stops only with more
successful runs than runs remaining, never before more than half of its K orders were asked
(those can be asked at once); two or more winners within tau never stop early (one of them
could still pull away).

**Sequential stop** (:func:`sequential_settled`, lossy by design). Stop when the current top
pick is settled with probability ``confidence`` under a predictive model of the remaining runs:
for the leader a and each rival b, the per-run differences d_k = c_ak - c_bk observed so far are
treated as exchangeable draws; the remaining runs' sum is predicted as r d_mean with variance
r s^2 (1 + r/j) (the future runs' own spread plus the uncertainty of the mean from j runs), and
the leader is kept when

    sum_k d_k + r d_mean - z sqrt(r s^2 (1 + r/j)) > 0   for every rival b,

with z the normal quantile at 1 - (1 - confidence)/(n - 1) (Bonferroni over rivals). The
variance s^2 is shrunk toward a prior (M/4)^2 with the weight of one run, so a few identical
runs do not read as certainty. At least ``min_runs`` successful runs are required. This is a
plug-in (normal, exchangeable) argument, not a guarantee: it can stop on an item whose
later orders would have changed the pick.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Literal

from .aggregate import RunView, Weights, consensus, winners

__all__ = ["Adaptive", "ADAPTIVE_MODES", "StopReason", "contributions", "earliest_stop",
           "sequential_settled", "settled"]

#: How PCF decides how many of its K orders to ask: all, the exact rule, or the sequential one.
Adaptive = Literal["off", "exact", "sequential"]
ADAPTIVE_MODES: tuple[Adaptive, ...] = ("off", "exact", "sequential")
#: Why an item stopped: every planned order asked (``all``), the winner set could no longer
#: change (``settled``), or the sequential rule was met (``sequential``).
StopReason = Literal["all", "settled", "sequential"]


def contributions(runs: Sequence[RunView], weights: Weights) -> list[tuple[float, ...]]:
    """c_ik for each run k (outer) and candidate i (inner), 0..M (the single-run C_i)."""
    return [consensus([run], weights=weights).combined for run in runs]


def _max_contribution(weights: Weights) -> float:
    return 100 * (weights.mean + weights.borda + weights.vote + weights.uncertainty)


def settled(runs: Sequence[RunView], remaining: int, *, weights: Weights = Weights(),
            tolerance: float = 0.5, planned: int | None = None) -> bool:
    """True when no outcome of ``remaining`` more runs can change the winner set of the
    consensus over ``runs`` (module docstring, inequalities (1) and (2)).

    Args:
        runs: the successful runs so far (K' of them, same candidates).
        remaining: runs still planned (each may succeed with any judgment or fail), >= 0.
        planned: K, for the rounding margin (default: K' + remaining).

    Returns:
        False when there is no successful run yet and runs remain.
    """
    if remaining == 0:
        return True
    if not runs:
        return False
    big_m = _max_contribution(weights)
    k_ok = len(runs)
    totals = [sum(col) for col in zip(*contributions(runs, weights))]
    eps = 1e-9 * (big_m * (planned or k_ok + remaining) + 1)
    # the set the decision reports (consensus() itself, so rounding cannot differ)
    current = set(winners(consensus(runs, weights=weights).combined, tolerance=tolerance))
    n = len(totals)
    for m in range(1, remaining + 1):
        slack = tolerance * (k_ok + m)
        for i in range(n):
            others = max(totals[j] for j in range(n) if j != i)
            if i in current:  # (2) against the strongest rival: all rivals at once
                if others + m * big_m - totals[i] > slack - eps:
                    return False
            elif not others - totals[i] - m * big_m > slack + eps:  # (1)
                return False
    return True


def earliest_stop(planned: int) -> int:
    """Orders the exact rule asks at the least before it can stop: more than half of
    ``planned`` (module docstring, corollary), so that many can be sent at once."""
    return planned // 2 + 1


def sequential_settled(runs: Sequence[RunView], remaining: int, *,
                       weights: Weights = Weights(), confidence: float = 0.95,
                       min_runs: int = 3) -> bool:
    """True when the leader's top pick is settled under the sequential rule (module
    docstring). Lossy: the pick can differ from the one all K orders would give.

    Args:
        runs: the successful runs so far (j of them).
        remaining: runs still planned, >= 0.
        confidence: in (0, 1); higher stops later.
        min_runs: successful runs required before any stop, >= 1.
    """
    if remaining == 0:
        return True
    j = len(runs)
    if j < max(min_runs, 1):
        return False
    per_run = contributions(runs, weights)
    n = len(per_run[0])
    totals = [sum(col) for col in zip(*per_run)]
    leader = max(range(n), key=lambda i: (totals[i], -i))
    prior = (_max_contribution(weights) / 4) ** 2
    z = NormalDist().inv_cdf(1 - (1 - confidence) / max(n - 1, 1))
    for rival in range(n):
        if rival == leader:
            continue
        diffs = [c[leader] - c[rival] for c in per_run]
        mean = sum(diffs) / j
        ss = sum((d - mean) ** 2 for d in diffs)
        var = (ss + prior) / j  # j - 1 degrees of freedom plus one prior run
        spread = z * math.sqrt(remaining * var * (1 + remaining / j))
        if not sum(diffs) + remaining * mean - spread > 0:
            return False
    return True
