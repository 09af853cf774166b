"""Pairable units and value bins: what every level computes from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import sparse


#: Why ratings have no pairable value (``InsufficientRatingsError.kind``).
Insufficiency = Literal["no ratings", "single rater", "no pairable units"]


@dataclass(frozen=True)
class _Units:
    """Pairable units: ratings (n_raters, n_units) with NaN, their mask, and m_u (float)."""

    x: np.ndarray
    present: np.ndarray
    m: np.ndarray

    @property
    def n(self) -> float:
        return float(self.m.sum())


def _pairable(matrix: np.ndarray) -> _Units:
    present = ~np.isnan(matrix)
    m = np.count_nonzero(present, axis=0)
    keep = m >= 2
    if not keep.all():
        matrix, present, m = matrix[:, keep], present[:, keep], m[keep]
    return _Units(matrix, present, m.astype(np.float64))


def _unpairable(matrix: np.ndarray, units: _Units) -> tuple[Insufficiency, str] | None:
    """(kind, message) when ``matrix`` has no pairable value, or None. Kinds, first match:
    "no ratings", "single rater", "no pairable units"."""
    if units.m.size:
        return None
    present = ~np.isnan(matrix)
    n_raters, n_units = matrix.shape
    if not present.any():
        return "no ratings", (f"Krippendorff's alpha needs ratings; got none (shape "
                              f"{(n_raters, n_units)!r}, every cell missing)")
    raters = np.flatnonzero(present.any(axis=1))
    if raters.size == 1:
        return "single rater", (f"Krippendorff's alpha needs ratings from two or more raters; "
                                f"only rater (row) {int(raters[0])!r} of {n_raters} has any")
    return "no pairable units", (f"Krippendorff's alpha needs a unit rated by two or more "
                                 f"raters; each of the {int(present.any(axis=0).sum())} rated "
                                 f"units (of {n_units}) has a single rating")


def _undefined_reason(units: _Units) -> str | None:
    """Why alpha is NaN for pairable ``units`` (at least one unit), or None."""
    if np.fmin.reduce(units.x, axis=None) == np.fmax.reduce(units.x, axis=None):
        return ("no variation: every pairable rating has the same value, so the expected "
                "disagreement D_e is 0")
    return None


@dataclass(frozen=True)
class _Bins:
    """Distinct values V (some possibly unused), pairable ratings per value, and the bin of
    each cell, shape (n_raters, n_units), with missing cells in an extra bin V."""

    values: np.ndarray
    index: np.ndarray
    counts: np.ndarray


def _bins(units: _Units) -> _Bins:
    x, present = units.x, units.present
    lo, hi = np.fmin.reduce(x, axis=None), np.fmax.reduce(x, axis=None)
    if hi - lo < 4 * units.n + 1024 and max(-lo, hi) < 2.0 ** 52:
        filled = np.where(present, x, hi + 1.0)  # missing cells -> the extra bin
        if np.array_equal(filled, np.floor(filled)):  # small integer range: O(N), no sort
            index = (filled - lo).astype(np.intp)
            counts = np.bincount(index.ravel(), minlength=int(hi - lo) + 2)[:-1]
            return _Bins(lo + np.arange(counts.size), index, counts.astype(np.float64))
    values, inverse, counts = np.unique(x[present], return_inverse=True, return_counts=True)
    index = np.full(x.shape, values.size, np.intp)
    index[present] = inverse
    return _Bins(values, index, counts.astype(np.float64))


@dataclass(frozen=True)
class _Parts:
    """alpha = 1 - (n - 1) * observed.sum() / expected, and the bootstrap's per-unit table.

    observed: (n_units,) sum over ordered pairs in the unit of delta^2, / (m_u - 1).
    expected: sum over ordered pairs of distinct pairable ratings of delta^2.
    features: (s, n_units) dense or sparse, linear in unit draws; None without bootstrap.
    expected_from: (n*, summed features (b, s)) -> expected for each of b resamples.
    """

    observed: np.ndarray
    expected: float
    features: Any = None
    expected_from: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None


def _unit_counts(units: _Units, index: np.ndarray, n_bins: int):
    """Pairable ratings per (bin, unit), shape (n_bins, n_units): dense when that is at most
    4 n cells (one bincount), else sparse CSR (one sort of the keys)."""
    n_units = units.m.size
    key = index * n_units + np.arange(n_units)  # missing cells (bin n_bins) fall past the end
    if n_units * n_bins <= 4 * units.n:
        flat = np.bincount(key.ravel(), minlength=(n_bins + 1) * n_units)[:n_bins * n_units]
        return flat.reshape(n_bins, n_units).astype(np.float64)
    keys, cnt = np.unique(key[units.present], return_counts=True)
    rows, cols = np.divmod(keys, n_units)
    return sparse.csr_matrix((cnt.astype(np.float64), (rows, cols)), shape=(n_bins, n_units))
