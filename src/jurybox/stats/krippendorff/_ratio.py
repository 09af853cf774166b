"""Ratio-level alpha: exact tables for few values, a quadrature for many."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import sparse

from ._units import _Parts, _Units, _bins, _unit_counts

_EXACT_RATIO_VALUES = 1024  # ratio D_e: exact sum over a V x V table up to this many values
_BLOCK = 1 << 21  # elements in one block of temporary arrays (16 MiB of float64)
_FINE = (1e-16, 0.25)  # quadrature (tolerance, step) for the point estimate
_COARSE = (1e-8, 0.45)  # and for bootstrap resamples


def _ratio_delta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    total = a + b
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.where(total > 0, (a - b) / total, 0.0)
    return d * d


def _ratio(units: _Units, bootstrap: bool) -> _Parts:
    bins, m = _bins(units), units.m
    index, values, counts = bins.index, bins.values, bins.counts
    used = counts > 0
    if not used.all():  # drop unused values (their bin is renumbered only when needed)
        values, counts = values[used], counts[used]
    pairs = float((m * (m - 1.0)).sum() / 2.0)
    if values.size <= _EXACT_RATIO_VALUES:
        delta = _ratio_delta(values[:, None], values[None, :])
        expected = float(counts @ delta @ counts)
        if not used.all():
            index = np.append(np.cumsum(used) - 1, values.size)[index]
        table = _unit_counts(units, index, values.size)
        if not sparse.issparse(table) and table.size * values.size <= 64 * pairs:
            # for a few values einsum beats BLAS, whose threads cost more than they save
            spread = np.einsum("vw,wu->vu", delta, table) if values.size <= 32 else delta @ table
            observed = np.einsum("vu,vu->u", spread, table) / (m - 1.0)
        else:
            observed = _ratio_observed(units)
        return _Parts(observed, expected, table if bootstrap else None,
                      lambda n, s: np.einsum("bv,bv->b", np.einsum("bv,vw->bw", s, delta), s))
    scale = values[-1]
    observed = _ratio_observed(units)
    expected = _ratio_expected(values / scale, counts, *_FINE)
    if not bootstrap:
        return _Parts(observed, expected)
    v = units.x.T[units.present.T] / scale
    return _Parts(observed, expected, *_ratio_features(v, units.m.astype(np.intp),
                                                       values[values > 0][0] / scale))


def _ratio_observed(units: _Units) -> np.ndarray:
    sizes = units.m.astype(np.intp)
    unit = np.repeat(np.arange(sizes.size), sizes)
    v = units.x.T[units.present.T]  # pairable ratings grouped by unit
    return 2.0 * _within_pairs(v, unit, sizes, _ratio_delta) / (units.m - 1.0)


def _within_pairs(v: np.ndarray, unit: np.ndarray, sizes: np.ndarray,
                  delta: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Sum of delta(v_i, v_j) over pairs i < j in each unit; v grouped by unit. O(pairs)."""
    start = np.cumsum(sizes) - sizes
    later = sizes[unit] - (np.arange(v.size) - start[unit]) - 1  # ratings after i in its unit
    total = np.zeros(sizes.size)
    idx, step = np.flatnonzero(later > 0), 1
    while idx.size:
        total += np.bincount(unit[idx], delta(v[idx], v[idx + step]), minlength=sizes.size)
        idx = idx[later[idx] > step]
        step += 1
    return total


def _ratio_nodes(low: float, tol: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes t, weights w: sum_q w_q exp(-t_q s) = 1/s^2 (rel. error ~tol) for s in [2 low, 2].

    1/s^2 = int_0^inf t e^{-ts} dt = int t^2 e^{-ts} du with t = e^u: trapezoid rule in u with
    step h (error ~ exp(-pi^2 / h)), cut where the tails fall below tol.
    """
    u_low = 0.5 * math.log(tol / 2.0)
    u_high = math.log((5.0 - math.log(tol)) / (2.0 * low))
    t = np.exp(np.arange(u_low, u_high + h, h))
    return t, h * t * t


def _tilted_centers(a: np.ndarray, c: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per node q: sum_i c_i a_i e^{-t_q a_i} / sum_i c_i e^{-t_q a_i} (a > 0, at most 1)."""
    num, den = np.zeros(t.size), np.zeros(t.size)
    step = max(1, _BLOCK // t.size)
    for i in range(0, a.size, step):
        e = np.exp(-np.outer(t, a[i:i + step]))
        num += np.einsum("qi,i->q", e, c[i:i + step] * a[i:i + step])
        den += np.einsum("qi,i->q", e, c[i:i + step])
    return num / den


def _ratio_expected(a: np.ndarray, counts: np.ndarray, tol: float, h: float) -> float:
    """B for ratio: distinct values a in [0, 1] (sorted, max 1) with their counts.

    Pairs of positive values: with 1/s^2 = sum_q w_q e^{-t_q s} (``_ratio_nodes``),
    sum_ij c_i c_j (a_i - a_j)^2 / (a_i + a_j)^2 = 2 sum_q w_q (G0 G2 - G1^2)(t_q), where
    G_p(t) = sum_i c_i (a_i - z)^p e^{-t a_i} for any z. Taking z = the e^{-t a}-weighted mean
    at each node makes G2 a sum of squares and G1 ~ 0: no cancellation, whatever the spread.
    """
    positive = a > 0
    zeros = float(counts[~positive].sum())
    a, c = a[positive], counts[positive]
    t, w = _ratio_nodes(float(a[0]), tol, h)
    center = _tilted_centers(a, c, t)[:, None]
    g = np.zeros((3, t.size))
    step = max(1, _BLOCK // t.size)
    for i in range(0, a.size, step):
        e = np.exp(-np.outer(t, a[i:i + step])) * c[i:i + step]
        d = a[i:i + step] - center
        g += [e.sum(axis=1), np.einsum("qi,qi->q", e, d), np.einsum("qi,qi,qi->q", e, d, d)]
    return 2.0 * zeros * float(c.sum()) + 2.0 * float(w @ (g[0] * g[2] - g[1] ** 2))


def _ratio_features(a: np.ndarray, sizes: np.ndarray, low: float):
    """Per-unit [positives, zeros, G_0, G_1, G_2 at each node] (see _ratio_expected), with
    the nodes' centers fixed at the full sample's."""
    t, w = _ratio_nodes(low, *_COARSE)
    q, positive = t.size, a > 0
    center = _tilted_centers(a[positive], np.ones(int(positive.sum())), t)
    start = np.concatenate([[0], np.cumsum(sizes)])
    table = np.empty((2 + 3 * q, sizes.size))
    table[0] = np.add.reduceat(positive.astype(np.float64), start[:-1])
    table[1] = sizes - table[0]
    per = max(1, _BLOCK // (3 * q * int(sizes.max())))
    for u in range(0, sizes.size, per):
        end = min(u + per, sizes.size)
        block = slice(start[u], start[end])
        e = np.exp(-np.outer(a[block], t)) * positive[block, None]
        d = a[block, None] - center
        for p in range(3):
            table[2 + p * q:2 + (p + 1) * q, u:end] = np.add.reduceat(
                e * d ** p, start[u:end] - start[u], axis=0).T

    def expected_from(n: np.ndarray, s: np.ndarray) -> np.ndarray:
        g0, g1, g2 = s[:, 2:2 + q], s[:, 2 + q:2 + 2 * q], s[:, 2 + 2 * q:]
        return 2.0 * s[:, 1] * s[:, 0] + 2.0 * np.einsum("bq,q->b", g0 * g2 - g1 * g1, w)
    return table, expected_from
