"""Paired comparison of two protocols on the items both judged."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .interval import ConfidenceInterval

__all__ = ["PairedComparison", "paired_comparison", "paired_or_none", "paired_sign",
           "sign_test_p"]

#: Up to this many discordant pairs the sign test is summed in exact integers; above it,
#: scipy.stats.binomtest (the same test, in floating point).
EXACT_SIGN_TEST_MAX = 10_000


#: ``PairedComparison.reason`` when every shared item is tied.
NO_DISCORDANT_PAIRS = "no discordant pairs: no test possible"


@dataclass(frozen=True)
class PairedComparison:
    """Protocol B against protocol A on shared items.

    Attributes:
        n: items both judged, >= 1.
        improvements: items where B's credit > A's; regressions: B < A; ties: equal.
        p_value: exact two-sided sign test on improvements vs regressions
            (:func:`sign_test_p`, scipy.stats.binomtest's test at p = 0.5); NaN when every
            item is tied (see ``reason``).
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


def sign_test_p(k: int, n: int) -> float:
    """Exact two-sided sign test: the p-value of k successes in n trials at p = 1/2.

    The binomial at 1/2 is symmetric, so the outcomes no more likely than k (scipy
    ``binomtest``'s two-sided rule) are the two tails beyond min(k, n - k):
    ``p = min(1, 2 * sum(C(n, i) for i <= min(k, n - k)) / 2**n)``, and 1 when k = n / 2.
    Summed in exact integers and divided once (correctly rounded) up to
    :data:`EXACT_SIGN_TEST_MAX` trials; scipy.stats.binomtest above (imported only then).
    No scipy import for the usual sizes: that import alone costs about a second.

    Args:
        k: successes, 0 <= k <= n. n: trials, >= 1.

    Returns:
        The p-value in (0, 1].

    Raises:
        ValueError: n < 1 or k outside [0, n].

    >>> sign_test_p(3, 14) == 2 * (1 + 14 + 91 + 364) / 2 ** 14, sign_test_p(5, 10)
    (True, 1.0)
    """
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"a sign test needs n >= 1 and 0 <= k <= n, got k={k}, n={n}")
    low = min(k, n - k)
    if 2 * low == n:
        return 1.0
    if n > EXACT_SIGN_TEST_MAX:
        from scipy import stats

        return float(stats.binomtest(k, n, 0.5).pvalue)
    tail, term = 0, 1
    for i in range(low + 1):
        tail += term
        term = term * (n - i) // (i + 1)
    return min(1.0, 2 * tail / 2 ** n)


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
    import numpy as np  # lazy: paired_sign does not need it

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
    p = sign_test_p(up, up + down) if up + down else math.nan
    ci = bootstrap_mean_ci(diffs, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return PairedComparison(len(shared), up, down, len(shared) - up - down, float(p),
                            float(diffs.mean()), ci, confidence,
                            None if up + down else NO_DISCORDANT_PAIRS)


def paired_or_none(a: Mapping[str, float | None], b: Mapping[str, float | None], *,
                   n_resamples: int = 2000) -> PairedComparison | None:
    """:func:`paired_comparison`, or None when no item was judged by both (a table's empty
    cell rather than an error)."""
    try:
        return paired_comparison(a, b, n_resamples=n_resamples)
    except ValueError:
        return None
