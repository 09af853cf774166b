"""Coarse agreement between raters: Jaccard overlap of the items each rates above their own
median (arXiv 2604.22517, "coarse" agreement; DESIGN.md, "Rubric judges").

For a rater pair with at least ``min_common`` co-rated items C, rater a's set is
A = {i in C : s_a(i) > median_{j in C} s_a(j)} (strictly above: items at the median are not
in it), likewise B, and the agreement is J = |A & B| / |A | B|. An empty union (neither rater
has an item above their median, e.g. a rater who gives everything the same score) leaves J
undefined: NaN with a reason, never 0 or 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np

__all__ = ["PairJaccard", "CoarseAgreement", "coarse_agreement", "co_rated_pairs"]


@dataclass(frozen=True)
class PairJaccard:
    """Coarse agreement of one rater pair.

    Attributes:
        n_common: co-rated items (both scores present).
        jaccard: in [0, 1]; NaN when undefined (see ``reason``).
        n_above_a / n_above_b: items above each rater's median; n_both: in both sets.
    """

    rater_a: str
    rater_b: str
    n_common: int
    jaccard: float
    n_above_a: int
    n_above_b: int
    n_both: int
    reason: str | None = None


@dataclass(frozen=True)
class CoarseAgreement:
    """Coarse agreement over all rater pairs with enough co-rated items.

    Attributes:
        raters: row/column order of ``matrix``.
        matrix: shape (n_raters, n_raters), symmetric; NaN on the diagonal, for pairs with
            fewer than ``min_common`` co-rated items, and where J is undefined.
        pairs: every pair with at least ``min_common`` co-rated items.
        mean: mean J over pairs where it is defined; NaN when there are none.
        n_pairs_used: pairs with a defined J; n_pairs_eligible: pairs with enough items.
    """

    raters: tuple[str, ...]
    matrix: np.ndarray
    pairs: tuple[PairJaccard, ...]
    mean: float
    n_pairs_used: int
    n_pairs_eligible: int
    min_common: int

    @property
    def reason(self) -> str | None:
        """Why ``mean`` is NaN, or None."""
        if self.n_pairs_used:
            return None
        if self.n_pairs_eligible:
            return "every eligible pair has an empty union (no item above either median)"
        return f"no rater pair has {self.min_common} or more co-rated items"


def co_rated_pairs(scores: Mapping[str, Mapping[str, float]], min_common: int
                   ) -> dict[tuple[str, str], list[str]]:
    """Rater pairs (sorted ids) with at least ``min_common`` co-rated items -> those items.

    Scores that are NaN (missing) do not count. Built from an item -> raters index, so it
    costs the co-ratings, not all rater pairs.
    """
    by_item: dict[str, list[str]] = {}
    for rater, items in scores.items():
        for item, score in items.items():
            if not (isinstance(score, float) and math.isnan(score)):
                by_item.setdefault(item, []).append(rater)
    common: dict[tuple[str, str], list[str]] = {}
    for item, raters in by_item.items():
        for a, b in combinations(sorted(raters), 2):
            common.setdefault((a, b), []).append(item)
    return {pair: items for pair, items in sorted(common.items()) if len(items) >= min_common}


def _pair(a: str, b: str, items: list[str], scores: Mapping[str, Mapping[str, float]]
          ) -> PairJaccard:
    sets = []
    for rater in (a, b):
        values = np.array([scores[rater][i] for i in items], dtype=float)
        median = float(np.median(values))
        sets.append({i for i, v in zip(items, values) if v > median})
    union, both = sets[0] | sets[1], sets[0] & sets[1]
    if not union:
        return PairJaccard(a, b, len(items), math.nan, 0, 0, 0,
                           "empty union: neither rater has an item above their median")
    return PairJaccard(a, b, len(items), len(both) / len(union), len(sets[0]), len(sets[1]),
                       len(both))


def coarse_agreement(scores: Mapping[str, Mapping[str, float]], *, min_common: int = 10,
                     pairs: Mapping[tuple[str, str], list[str]] | None = None
                     ) -> CoarseAgreement:
    """Jaccard agreement of above-median item sets for every rater pair.

    Args:
        scores: rater id -> item id -> score (numbers; NaN = missing).
        min_common: co-rated items a pair needs (default 10, as in arXiv 2604.22517).
        pairs: :func:`co_rated_pairs` of ``scores`` when the caller has it already.

    A rater whose median is the top of the scale has an empty set; with any rater who has a
    non-empty set the pair's J is 0 (defined), which reads as no agreement: ceiling effects
    show up here, and ``n_above_a`` / ``n_above_b`` tell them apart.

    Raises:
        ValueError: min_common < 1.

    Examples
    --------
    Rater a's median over the 4 co-rated items is 2.5, so its set is {3, 4}; rater b's median
    is 2 (scores 1, 2, 2, 3), so its set is {4}: J = 1/2.

    >>> res = coarse_agreement({"a": {"1": 1, "2": 2, "3": 3, "4": 4},
    ...                         "b": {"1": 1, "2": 2, "3": 2, "4": 3}}, min_common=4)
    >>> res.mean, res.pairs[0].n_above_a, res.pairs[0].n_above_b
    (0.5, 2, 1)
    """
    if min_common < 1:
        raise ValueError(f"min_common must be >= 1, got {min_common}")
    raters = tuple(sorted(scores))
    index = {r: k for k, r in enumerate(raters)}
    matrix = np.full((len(raters), len(raters)), np.nan)
    common = pairs if pairs is not None else co_rated_pairs(scores, min_common)
    judged = tuple(_pair(a, b, items, scores) for (a, b), items in common.items())
    for p in judged:
        matrix[index[p.rater_a], index[p.rater_b]] = matrix[index[p.rater_b],
                                                            index[p.rater_a]] = p.jaccard
    defined = [p.jaccard for p in judged if not math.isnan(p.jaccard)]
    return CoarseAgreement(raters, matrix, judged,
                           math.fsum(defined) / len(defined) if defined else math.nan,
                           len(defined), len(judged), min_common)
