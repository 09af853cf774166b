"""Seeded percentile bootstrap of a mean (shared by accuracy and paired comparison)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .interval import ConfidenceInterval

__all__ = ["bootstrap_mean_ci"]

_CELLS = 2 ** 21  # most resampled values held at once (16 MiB of float64)


def bootstrap_mean_ci(values: np.ndarray, *, confidence: float, n_resamples: int,
                      seed: int) -> ConfidenceInterval:
    """Percentile bootstrap CI of the mean of ``values`` (scipy.stats.bootstrap).

    Returns a :class:`ConfidenceInterval` with the bootstrap ``standard_error`` (scipy's
    ``BootstrapResult.standard_error``). Fewer than 2 values: (nan, nan), standard error NaN.
    A constant sample (e.g. all-zero paired differences): (mean, mean) with standard error 0
    and ``degenerate=True``, without resampling (every resample would be that mean). scipy
    is imported here, not at module load (it costs about a second).
    """
    from scipy import stats

    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return ConfidenceInterval(math.nan, math.nan)
    if np.all(values == values[0]):
        return ConfidenceInterval(float(values[0]), float(values[0]), standard_error=0.0,
                                  degenerate=True)
    # resamples are drawn in batches of at most _CELLS values: memory stays ~16 MB whatever
    # the sample size (2,000 resamples of 50,000 items at once took 800 MB); batching draws
    # the same random numbers, so the interval is the same
    batch = max(1, min(n_resamples, _CELLS // values.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        res = stats.bootstrap((values,), np.mean, confidence_level=confidence,
                              n_resamples=n_resamples, method="percentile",
                              rng=np.random.default_rng(seed), vectorized=True, batch=batch)
    return ConfidenceInterval(float(res.confidence_interval.low),
                              float(res.confidence_interval.high),
                              standard_error=float(res.standard_error))
