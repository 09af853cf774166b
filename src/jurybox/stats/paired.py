"""Paired comparison of two protocols on the items both judged."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .interval import ConfidenceInterval

__all__ = ["PairedComparison", "paired_comparison", "paired_sign"]


#: ``PairedComparison.reason`` when every shared item is tied.
NO_DISCORDANT_PAIRS = "no discordant pairs: no test possible"


@dataclass(frozen=True)
class PairedComparison:
    """Protocol B against protocol A on shared items.

    Attributes:
        n: items both judged, >= 1.
        improvements: items where B's credit > A's; regressions: B < A; ties: equal.
        p_value: exact two-sided sign test on improvements vs regressions
            (scipy.stats.binomtest, p = 0.5); NaN when every item is tied (see ``reason``).
        difference: accuracy(B) - accuracy(A) on the shared items.
        confidence_interval: seeded percentile paired bootstrap CI of ``difference``
            (items resampled jointly); when every difference is 0 it is the degenerate
            ``[0, 0]`` with standard error 0 (NaN bounds for a single item).
        reason: None, or why ``p_value`` is NaN (:data:`NO_DISCORDANT_PAIRS`).
    """

    n: int
    improvements: int
    regressions: int
    ties: int
    p_value: float
    difference: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    reason: str | None = None


def paired_sign(a: float | None, b: float | None) -> int | None:
    """One item of a paired comparison: +1 when B's credit is above A's (an improvement),
    -1 below (a regression), 0 the same; None when either failed (None: not compared).
    :func:`paired_comparison` counts these, and so does the report's item browser (its
    ``fixed``/``regressed`` filters), so the two always agree.

    >>> paired_sign(0.0, 1.0), paired_sign(1.0, 0.5), paired_sign(0.5, 0.5), paired_sign(None, 1)
    (1, -1, 0, None)
    """
    if a is None or b is None:
        return None
    return (b > a) - (b < a)


def paired_comparison(a: Mapping[str, float | None], b: Mapping[str, float | None], *,
                      confidence: float = 0.95, n_resamples: int = 2000,
                      seed: int = 0) -> PairedComparison:
    """Compare per-item credits of protocol B with protocol A.

    Args:
        a: item id -> credit in [0, 1] of protocol A (None = failed; such items are left
            out).
        b: the same for protocol B.

    Returns:
        A PairedComparison over the items both judged. When every one is tied there is no
        sign test: ``p_value`` is NaN and ``reason`` says "no discordant pairs: no test
        possible" (the difference is 0 and, with two or more items, its interval the
        degenerate [0, 0]).

    Raises:
        ValueError: no item was judged by both (nothing to compare; a comparison of nothing
            is an error, not n = 0).
    """
    import numpy as np  # lazy, as scipy: paired_sign needs neither
    from scipy import stats  # lazy: scipy costs about a second to import

    from ._bootstrap import bootstrap_mean_ci

    shared = sorted(k for k in a.keys() & b.keys() if a[k] is not None and b[k] is not None)
    if not shared:
        judged_a = sum(v is not None for v in a.values())
        judged_b = sum(v is not None for v in b.values())
        raise ValueError(f"paired_comparison needs at least one item judged by both; got none "
                         f"(a judged {judged_a!r} items, b judged {judged_b!r})")
    diffs: np.ndarray = np.array([float(b[k]) - float(a[k])  # type: ignore[arg-type]
                                  for k in shared], dtype=float)
    signs = [paired_sign(a[k], b[k]) for k in shared]
    up, down = signs.count(1), signs.count(-1)
    p = stats.binomtest(up, up + down, 0.5).pvalue if up + down else math.nan
    ci = bootstrap_mean_ci(diffs, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return PairedComparison(len(shared), up, down, len(shared) - up - down, float(p),
                            float(diffs.mean()), ci, confidence,
                            None if up + down else NO_DISCORDANT_PAIRS)
