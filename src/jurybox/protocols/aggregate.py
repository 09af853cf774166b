"""Permutation-consensus aggregation (PCFJudge, arXiv 2603.20562, Sec. 3).

For candidate i over the K' successful runs (runs whose output parsed):

- mean score      S_i = (1/K') sum_k s_ik                       (0-100)
- Borda score     B_i = 100 / (K'(n-1)) * sum_k (n - r_ik)      (r = 1-based rank; 0-100)
- top-set vote    V_i = (1/K') sum_k [i in T_k] / |T_k|         (T_k = candidates with run k's
                                                                 maximum score; 0-1)
- uncertainty     U_i = (1/K') sum_k u_ik                        (u = calibrated_uncertainty)

C_i = w_S S_i + w_B B_i + w_V 100 V_i + w_U 100 U_i, weights 0.50 / 0.25 / 0.20 / 0.05.
Winners are all i with C_i >= max C - tolerance; credit is the share of winners that are gold
(RewardBench 2's 1/|winners| rule when one candidate is gold).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..parsing import ListwiseJudgment

__all__ = ["RunView", "Weights", "Consensus", "run_view", "consensus", "winners", "credit"]


@dataclass(frozen=True)
class RunView:
    """One successful run, indexed by candidate (dataset index), not by shown label.

    Attributes:
        order: candidate indices in shown order.
        scores: score of candidate i, 0-100.
        ranks: 1-based rank of candidate i in the judge's ranking.
        uncertain: calibrated_uncertainty flag of candidate i.
    """

    order: tuple[int, ...]
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    uncertain: tuple[bool, ...]

    @property
    def top(self) -> int:
        """The candidate ranked first."""
        return self.ranks.index(1)


def run_view(judgment: ListwiseJudgment, order: Sequence[int]) -> RunView:
    """Map a judgment by shown label back to candidate indices (label j showed order[j])."""
    n = len(order)
    by_label = {label: order[j] for j, label in enumerate(judgment.labels)}
    scores, ranks, uncertain = [0.0] * n, [0] * n, [False] * n
    for label, cand in judgment.candidates.items():
        scores[by_label[label]] = cand.score
        uncertain[by_label[label]] = cand.calibrated_uncertainty
    for rank, label in enumerate(judgment.ranking, start=1):
        ranks[by_label[label]] = rank
    return RunView(tuple(order), tuple(scores), tuple(ranks), tuple(uncertain))


@dataclass(frozen=True)
class Weights:
    """Weights of C_i's four components (paper defaults).

    Raises:
        ValueError: a weight that is negative, NaN or infinite, a sum that is not positive,
            or weights so large that C_i overflows (100 x their sum must be finite). An
            infinite weight made every C_i infinite, so every candidate won; a NaN one made
            C_i NaN, so none did.
    """

    mean: float = 0.50
    borda: float = 0.25
    vote: float = 0.20
    uncertainty: float = 0.05

    def __post_init__(self) -> None:
        values = (self.mean, self.borda, self.vote, self.uncertainty)
        if not all(math.isfinite(w) and w >= 0 for w in values) or sum(values) <= 0 \
                or not math.isfinite(100 * sum(values)):
            raise ValueError(f"weights must be finite numbers >= 0 with a positive sum "
                             f"(mean, borda, vote, uncertainty), got {values!r}")


@dataclass(frozen=True)
class Consensus:
    """Per-candidate components and combined score C_i (all tuples of length n, 0-100 except
    ``vote`` and ``uncertainty`` in 0-1)."""

    mean: tuple[float, ...]
    borda: tuple[float, ...]
    vote: tuple[float, ...]
    uncertainty: tuple[float, ...]
    combined: tuple[float, ...]
    n_runs: int


def consensus(runs: Sequence[RunView], *, weights: Weights = Weights()) -> Consensus:
    """Aggregate K' >= 1 successful runs over the same n candidates.

    Raises:
        ValueError: no runs, or runs over different candidate counts.
    """
    if not runs:
        raise ValueError("consensus needs at least one successful run")
    n, k = len(runs[0].scores), len(runs)
    if any(len(r.scores) != n for r in runs):
        raise ValueError("all runs must judge the same candidates")
    mean = [sum(r.scores[i] for r in runs) / k for i in range(n)]
    borda = [100 / (k * (n - 1)) * sum(n - r.ranks[i] for r in runs) for i in range(n)]
    vote = [0.0] * n
    for r in runs:
        best = max(r.scores)
        top = [i for i in range(n) if r.scores[i] == best]
        for i in top:
            vote[i] += 1 / (len(top) * k)
    unc = [sum(r.uncertain[i] for r in runs) / k for i in range(n)]
    combined = [weights.mean * mean[i] + weights.borda * borda[i] + weights.vote * 100 * vote[i]
                + weights.uncertainty * 100 * unc[i] for i in range(n)]
    return Consensus(tuple(mean), tuple(borda), tuple(vote), tuple(unc), tuple(combined), k)


def winners(combined: Sequence[float], *, tolerance: float = 0.5) -> tuple[int, ...]:
    """Indices i with combined[i] >= max - tolerance (points), ascending."""
    best = max(combined)
    return tuple(i for i, c in enumerate(combined) if c >= best - tolerance)


def credit(winner_set: Collection[int], gold: Collection[int]) -> float:
    """|winners & gold| / |winners|: 1/|winners| when the one gold candidate is a winner."""
    return len(set(winner_set) & set(gold)) / len(winner_set)
