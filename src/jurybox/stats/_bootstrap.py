"""Seeded percentile bootstrap of a mean (shared by accuracy and paired comparison) and of a
ratio of two per-item sums, in numpy, drawing exactly what ``scipy.stats.bootstrap`` draws.

``scipy.stats.bootstrap((values,), np.mean, method="percentile", rng=default_rng(seed),
n_resamples=R, vectorized=True)`` draws the resampled indices as one ``(R, n)`` matrix,
``rng.integers(0, n, (R, n))``, takes the mean of each row, and returns the linear
(Hyndman-Fan type 7) ``alpha / 2`` and ``1 - alpha / 2`` quantiles of those R means, and
their standard deviation (ddof = 1) as the standard error. This module does the same, without
scipy (its import alone takes about a second) and without scipy's per-call overhead:

- the draws depend only on (n, R, seed), so they are made once per sample size and kept as
  a count matrix ``C`` (``C[r, i]``: how often item i is drawn in resample r), and each
  resample's sum is the product ``C @ values``;
- for values on a grid of quarters in [-1, 1] (credits 0, 1/2, 1; paired differences -1, 0,
  1) every partial sum is exact in floating point, so those sums, divided by n, are the very
  numbers scipy's row means are: the interval is identical to scipy's, bit for bit
  (tests/stats/test_bootstrap.py compares them). Other values are resampled row by row from
  the same draws, as scipy does.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from .interval import ConfidenceInterval

__all__ = ["bootstrap_mean_ci", "bootstrap_ratio_ci"]

_CELLS = 2 ** 21  # most resampled values held at once (16 MiB of float64)
#: Count matrices kept (cells, over every kept (n, R, seed)): 2 ** 24 float32 = 64 MiB.
_KEPT_CELLS = 2 ** 24
_counts_kept: OrderedDict[tuple[int, int, int], np.ndarray] = OrderedDict()


def _draws(n: int, n_resamples: int, seed: int) -> list[np.ndarray]:
    """The index matrices scipy draws for a sample of n, in batches of at most ``_CELLS``
    values (``rng.integers`` continues one stream across calls, so batching draws the same
    numbers: the interval is the same whatever the batch)."""
    rng = np.random.default_rng(seed)
    batch = max(1, min(n_resamples, _CELLS // n))
    return [rng.integers(0, n, (min(batch, n_resamples - k), n))
            for k in range(0, n_resamples, batch)]


def _counts(n: int, n_resamples: int, seed: int) -> np.ndarray | None:
    """``(R, n)`` float32 counts of each item in each resample (exact: counts <= n < 2**24),
    kept while they fit ``_KEPT_CELLS`` (least recently used dropped first); None when one
    matrix is larger than ``_CELLS`` (then the caller resamples in batches)."""
    cells = n * n_resamples
    if cells > _CELLS:
        return None
    key = (n, n_resamples, seed)
    kept = _counts_kept.get(key)
    if kept is not None:
        _counts_kept.move_to_end(key)
        return kept
    (idx,) = _draws(n, n_resamples, seed)
    flat = (idx + (np.arange(n_resamples) * n)[:, None]).ravel()
    counts = np.bincount(flat, minlength=cells).reshape(n_resamples, n).astype(np.float32)
    _counts_kept[key] = counts
    while sum(c.size for c in _counts_kept.values()) > _KEPT_CELLS and len(_counts_kept) > 1:
        _counts_kept.popitem(last=False)
    return counts


def _on_quarter_grid(values: np.ndarray) -> bool:
    return bool(np.all(np.abs(values) <= 1) and np.all(values * 4 == np.round(values * 4)))


def _times(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``counts @ values`` as float64 ``(R,)``: numpy's own loop (np.einsum), not BLAS,
    whose threads cost 50 times the product itself on a busy 2-core machine (8 ms a call
    instead of 0.15 ms); exact for the values it is given (quarters, small integers)."""
    return np.einsum("ri,i->r", counts, values.astype(np.float32)).astype(np.float64)


def _resampled_sums(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray | None:
    """``(R,)`` float64 sums of ``values`` over each resample, exact (values on the quarter
    grid), from the kept counts; None when the counts are not kept or the sums not exact."""
    counts = _counts(values.size, n_resamples, seed)
    if counts is None or not _on_quarter_grid(values):
        return None
    return _times(counts, values)


def _quantile(ordered: np.ndarray, p: float) -> float:
    """The linear (Hyndman-Fan type 7) p-quantile of sorted values, in the arithmetic of
    ``scipy.stats.quantile(method="linear")`` (``np.quantile`` rounds differently in the
    last digits)."""
    n = ordered.size
    jg = p * n + (1 - p)
    jp1 = jg // 1
    j = jp1 - 1
    g = 0.0 if j < 0 else jg % 1
    lo, hi = int(min(max(j, 0), n - 1)), int(min(max(jp1, 0), n - 1))
    return float((1 - g) * ordered[lo] + g * ordered[hi])


def _interval(theta: np.ndarray, confidence: float) -> ConfidenceInterval:
    """The percentile interval of the resampled statistics ``theta`` (``(R,)``), and their
    ddof = 1 standard deviation as the standard error."""
    alpha = (1 - confidence) / 2
    ordered = np.sort(theta)
    return ConfidenceInterval(_quantile(ordered, alpha), _quantile(ordered, 1 - alpha),
                              standard_error=float(np.std(theta, ddof=1)))


def bootstrap_mean_ci(values: np.ndarray, *, confidence: float, n_resamples: int,
                      seed: int) -> ConfidenceInterval:
    """Percentile bootstrap CI of the mean of ``values``: the same interval and standard
    error as ``scipy.stats.bootstrap(..., method="percentile")`` with
    ``rng=np.random.default_rng(seed)`` (module docstring).

    Args:
        values: ``(n,)`` numbers (credits in [0, 1], paired differences in [-1, 1]).
        confidence: e.g. 0.95 (the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
            quantiles of the resampled means, linear interpolation).
        n_resamples: resamples (R >= 1); seed: the generator's seed.

    Returns a :class:`ConfidenceInterval` with the bootstrap ``standard_error`` (the ddof = 1
    standard deviation of the resampled means). Fewer than 2 values: (nan, nan), standard
    error NaN. A constant sample (e.g. all-zero paired differences): (mean, mean) with
    standard error 0 and ``degenerate=True``, without resampling (every resample would be
    that mean).
    """
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return ConfidenceInterval(math.nan, math.nan)
    if np.all(values == values[0]):
        return ConfidenceInterval(float(values[0]), float(values[0]), standard_error=0.0,
                                  degenerate=True)
    n = values.size
    sums = _resampled_sums(values, n_resamples, seed)
    if sums is not None:
        theta = sums / n
    else:  # scipy's own way: each resample's mean over its drawn values
        theta = np.concatenate([values[idx].mean(axis=-1)
                                for idx in _draws(n, n_resamples, seed)])
    return _interval(theta, confidence)


def bootstrap_ratio_ci(numerator: np.ndarray, denominator: np.ndarray, *, confidence: float,
                       n_resamples: int, seed: int) -> ConfidenceInterval:
    """Percentile bootstrap CI of ``sum(numerator) / sum(denominator)``, items resampled
    (a cluster bootstrap: e.g. per item, the verdicts for the response shown first over its
    decisive verdicts, both orders of an item drawn together).

    Args:
        numerator: ``(n,)`` per-item counts, ``0 <= numerator <= denominator``.
        denominator: ``(n,)`` per-item counts; only the items with ``denominator > 0`` are
            resampled (so no resample divides by 0); their draws are the ones
            :func:`bootstrap_mean_ci` makes for that many items.
        confidence: the CI level, as :func:`bootstrap_mean_ci`.
        n_resamples: resamples, as :func:`bootstrap_mean_ci`.
        seed: the draws' seed, as :func:`bootstrap_mean_ci`.

    Returns:
        The interval with its bootstrap standard error; (nan, nan) when fewer than 2 items
        have ``denominator > 0``; the degenerate point when every such item has the same
        ratio (every resample gives it).

    Raises:
        ValueError: arrays of different shapes, or a numerator outside [0, denominator].
    """
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    if num.shape != den.shape or num.ndim != 1:
        raise ValueError(f"numerator and denominator must be (n,) arrays of one shape, got "
                         f"{num.shape} and {den.shape}")
    if np.any(num < 0) or np.any(num > den):
        raise ValueError("each numerator must lie in [0, its denominator]")
    keep = den > 0
    num, den = num[keep], den[keep]
    if num.size < 2:
        return ConfidenceInterval(math.nan, math.nan)
    ratios = num / den
    if np.all(ratios == ratios[0]):
        return ConfidenceInterval(float(ratios[0]), float(ratios[0]), standard_error=0.0,
                                  degenerate=True)
    counts = _counts(num.size, n_resamples, seed)
    if counts is not None and np.all(num == np.round(num)) and den.sum() < 2 ** 24:
        # integer counts: every partial sum exact in float32
        theta = _times(counts, num) / _times(counts, den)
    else:
        theta = np.concatenate([num[idx].sum(axis=-1) / den[idx].sum(axis=-1)
                                for idx in _draws(num.size, n_resamples, seed)])
    return _interval(theta, confidence)
