"""Rater profiles: how each rater uses the scale, and pairwise alpha between raters."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .coarse import co_rated_pairs
from .krippendorff import (DegenerateAlphaWarning, InsufficientRatingsError, Level,
                           krippendorff_alpha)

__all__ = ["RaterProfile", "rater_profile", "PairwiseAlpha", "pairwise_alpha"]


@dataclass(frozen=True)
class RaterProfile:
    """One rater's use of the scale on one set of ratings.

    Attributes:
        n: scores present. mean, sd: sample mean and standard deviation (ddof = 1; NaN for
            n < 2). distribution: score -> share of the rater's scores (leniency shows as
            mass at the top of the scale).
    """

    rater_id: str
    n: int
    mean: float
    sd: float
    distribution: dict[float, float]


def rater_profile(rater_id: str, scores: Mapping[str, float]) -> RaterProfile:
    """Profile of one rater's scores (item id -> score; NaN = missing, left out)."""
    values = [float(v) for v in scores.values() if not math.isnan(float(v))]
    counts = Counter(values)
    n = len(values)
    return RaterProfile(rater_id, n, float(np.mean(values)) if n else math.nan,
                        float(np.std(values, ddof=1)) if n > 1 else math.nan,
                        {v: counts[v] / n for v in sorted(counts)})


@dataclass(frozen=True)
class PairwiseAlpha:
    """Krippendorff's alpha for every rater pair with enough co-rated items.

    Attributes:
        raters: row/column order.
        matrix: shape (n_raters, n_raters), symmetric, 1 on the diagonal; NaN ("undefined")
            for pairs with too few co-rated items, an undefined alpha (no variation), or no
            pairable rating (no co-rated item with both scores present).
        n_common: same shape, co-rated items per pair (0 below the threshold).
        skipped: why nothing was computed, or None.
    """

    raters: tuple[str, ...]
    matrix: np.ndarray
    n_common: np.ndarray
    skipped: str | None = None


def pairwise_alpha(scores: Mapping[str, Mapping[str, float]], *, level: Level = "ordinal",
                   min_common: int = 10,
                   pairs: Mapping[tuple[str, str], list[str]] | None = None,
                   max_pairs: int | None = None) -> PairwiseAlpha:
    """Alpha between every two raters over their co-rated items (no bootstrap).

    Args:
        pairs: :func:`co_rated_pairs` of ``scores`` when the caller has it already.
        max_pairs: with more eligible pairs than this, nothing is computed (``skipped`` says
            so): one alpha per pair adds up with thousands of raters.

    A pair whose items hold no pairable rating (possible only with ``pairs`` from the caller)
    is an undefined cell, not an error: one pair must not sink the matrix.
    """
    raters = tuple(sorted(scores))
    index = {r: k for k, r in enumerate(raters)}
    matrix = np.full((len(raters), len(raters)), np.nan)
    np.fill_diagonal(matrix, 1.0)
    n_common = np.zeros((len(raters), len(raters)), dtype=int)
    pairs = pairs if pairs is not None else co_rated_pairs(scores, min_common)
    if max_pairs is not None and len(pairs) > max_pairs:
        return PairwiseAlpha(raters, matrix, n_common,
                             f"{len(pairs)} eligible pairs, over the limit of {max_pairs}")
    for (a, b), items in pairs.items():
        data = np.array([[scores[a][i] for i in items], [scores[b][i] for i in items]],
                        dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateAlphaWarning)
            try:
                alpha = krippendorff_alpha(data, level=level, n_resamples=0).alpha
            except InsufficientRatingsError:
                alpha = math.nan
        i, j = index[a], index[b]
        matrix[i, j] = matrix[j, i] = alpha
        n_common[i, j] = n_common[j, i] = len(items)
    return PairwiseAlpha(raters, matrix, n_common)
