"""Paired comparison of two protocols on the items both judged."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._bootstrap import bootstrap_mean_ci
from .interval import ConfidenceInterval

__all__ = ["PairedComparison", "paired_comparison"]


@dataclass(frozen=True)
class PairedComparison:
    """Protocol B against protocol A on shared items.

    Attributes:
        n: items both judged.
        improvements: items where B's credit > A's; regressions: B < A; ties: equal.
        p_value: exact two-sided sign test on improvements vs regressions
            (scipy.stats.binomtest, p = 0.5); NaN when there are no non-ties.
        difference: accuracy(B) - accuracy(A) on the shared items.
        confidence_interval: seeded percentile paired bootstrap CI of ``difference``
            (items resampled jointly).
    """

    n: int
    improvements: int
    regressions: int
    ties: int
    p_value: float
    difference: float
    confidence_interval: ConfidenceInterval
    confidence_level: float


def paired_comparison(a: Mapping[str, float | None], b: Mapping[str, float | None], *,
                      confidence: float = 0.95, n_resamples: int = 2000,
                      seed: int = 0) -> PairedComparison:
    """Compare per-item credits of protocol B with protocol A.

    Args:
        a, b: item id -> credit in [0, 1] (None = failed; such items are left out).

    Returns:
        A PairedComparison; with no shared items, n = 0 and NaN statistics.
    """
    from scipy import stats  # lazy: scipy costs about a second to import

    shared = sorted(k for k in a.keys() & b.keys() if a[k] is not None and b[k] is not None)
    diffs: np.ndarray = np.array([float(b[k]) - float(a[k])  # type: ignore[arg-type]
                                  for k in shared], dtype=float)
    up, down = int((diffs > 0).sum()), int((diffs < 0).sum())
    p = stats.binomtest(up, up + down, 0.5).pvalue if up + down else math.nan
    diff = float(diffs.mean()) if diffs.size else math.nan
    ci = bootstrap_mean_ci(diffs, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return PairedComparison(len(shared), up, down, len(shared) - up - down, float(p), diff, ci,
                            confidence)
