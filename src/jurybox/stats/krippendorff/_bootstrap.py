"""Bootstrap over units from per-unit statistics."""

from __future__ import annotations

import math

import numpy as np
from scipy import sparse

from ..interval import ConfidenceInterval
from ._units import _Parts, _Units

_BOOT_BLOCK = 1 << 22  # resample draws generated at once (b x n_units)


def _bootstrap_ci(units: _Units, parts: _Parts, n_resamples: int, confidence: float,
                  seed: int) -> ConfidenceInterval:
    """Percentile interval of alpha over resamples of pairable units (see the Notes above),
    with the standard deviation of the resampled alphas (ddof = 1) as standard error;
    degenerate when every resample gives the same alpha (e.g. perfect agreement)."""
    base = np.vstack([units.m, parts.observed])
    n_units = units.m.size
    rng = np.random.default_rng(seed)
    alphas = np.empty(n_resamples)
    per = max(1, _BOOT_BLOCK // n_units)
    for first in range(0, n_resamples, per):
        b = min(per, n_resamples - first)
        draws = rng.integers(0, n_units, size=(b, n_units))
        draws += n_units * np.arange(b)[:, None]
        k = np.bincount(draws.ravel(), minlength=b * n_units).reshape(b, n_units)
        k = k.astype(np.float64)  # (b, n_units): draws of each unit
        # einsum, not BLAS: OpenBLAS worker threads spinning between these calls slowed the
        # loop up to 20x when the machine had other work (single-threaded BLAS was fine)
        n, observed = np.einsum("su,bu->sb", base, k)
        # both are built when a bootstrap is asked for
        assert parts.features is not None and parts.expected_from is not None
        if sparse.issparse(parts.features):
            summed = np.asarray(parts.features @ k.T).T
        else:
            summed = np.einsum("su,bu->bs", parts.features, k)
        expected = parts.expected_from(n, summed)
        defined = expected > 1e-12 * parts.expected * (n / units.n) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            alphas[first:first + b] = np.where(defined, 1.0 - (n - 1.0) * observed / expected,
                                               np.nan)
    alphas = alphas[~np.isnan(alphas)]
    if alphas.size == 0:
        return ConfidenceInterval(math.nan, math.nan)
    low, high = np.quantile(alphas, [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0])
    if alphas.size < 2:  # one defined resample: no spread to measure
        return ConfidenceInterval(float(low), float(high))
    degenerate = bool(alphas.min() == alphas.max())
    se = 0.0 if degenerate else float(np.std(alphas, ddof=1))
    return ConfidenceInterval(float(low), float(high), standard_error=se, degenerate=degenerate)
