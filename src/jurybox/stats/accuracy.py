"""Accuracy with tie credit, and coverage."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .interval import ConfidenceInterval

__all__ = ["AccuracyResult", "accuracy"]


@dataclass(frozen=True)
class AccuracyResult:
    """Mean credit over judged items.

    Attributes:
        accuracy: mean credit over judged items, in [0, 1]; NaN when none was judged.
        n: items judged (credit not None); n_total: items attempted.
        coverage: n / n_total (NaN when n_total = 0).
        confidence_interval: (low, high) percentile bootstrap CI of the accuracy.
        confidence_level: e.g. 0.95.
    """

    accuracy: float
    n: int
    n_total: int
    coverage: float
    confidence_interval: ConfidenceInterval
    confidence_level: float


def accuracy(credits: Sequence[float | None], *, confidence: float = 0.95,
             n_resamples: int = 2000, seed: int = 0) -> AccuracyResult:
    """Accuracy with tie credit (RewardBench 2 rule: 1/|winners| when gold is a winner).

    Args:
        credits: per item credit in [0, 1], or None for a failed item (excluded from the
            accuracy, counted against coverage).
        confidence: CI level. n_resamples, seed: bootstrap settings.

    Raises:
        ValueError: a credit outside [0, 1].
    """
    import numpy as np  # here, not at import: jurybox.stats loads without numpy

    from ._bootstrap import bootstrap_mean_ci

    judged = np.array([c for c in credits if c is not None], dtype=float)
    if judged.size and (judged.min() < 0 or judged.max() > 1):
        raise ValueError("credits must lie in [0, 1]")
    n_total = len(credits)
    acc = float(judged.mean()) if judged.size else math.nan
    ci = bootstrap_mean_ci(judged, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return AccuracyResult(acc, int(judged.size), n_total,
                          judged.size / n_total if n_total else math.nan, ci, confidence)
