"""Per-level statistics: the observed-disagreement terms per unit and the expected term."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import sparse

from ._ratio import _ratio
from ._units import _Parts, _Units, _bins, _unit_counts


def _interval(units: _Units, bootstrap: bool, x: np.ndarray | None = None) -> _Parts:
    x = units.x if x is None else x
    present, m = units.present, units.m
    missing = ~present
    d = np.where(present, x, 0.0)
    center = d.sum() / units.n
    d -= center
    d[missing] = 0.0
    s1 = d.sum(axis=0)
    s2 = np.einsum("ru,ru->u", d, d)
    d -= s1 / m  # deviations from the unit means
    d[missing] = 0.0
    observed = 2.0 * m * np.einsum("ru,ru->u", d, d) / (m - 1.0)
    expected = 2.0 * (units.n * s2.sum() - s1.sum() ** 2)
    if not bootstrap:
        return _Parts(observed, expected)
    return _Parts(observed, expected, np.vstack([s1, s2]),
                  lambda n, s: 2.0 * (n * s[:, 1] - s[:, 0] ** 2))


def _ordinal(units: _Units, bootstrap: bool) -> _Parts:
    bins = _bins(units)
    midrank = np.cumsum(bins.counts) - bins.counts / 2.0  # r_c = sum_{g<c} n_g + n_c / 2
    return _interval(units, bootstrap, np.append(midrank, 0.0)[bins.index])


def _nominal(units: _Units, bootstrap: bool) -> _Parts:
    bins, m = _bins(units), units.m
    table = _unit_counts(units, bins.index, bins.counts.size)
    if sparse.issparse(table):
        same = np.asarray(table.multiply(table).sum(axis=0)).ravel()
    else:
        same = np.einsum("vu,vu->u", table, table)  # sum_c n_uc^2
    observed = (m * m - same) / (m - 1.0)
    expected = units.n ** 2 - float(np.dot(bins.counts, bins.counts))
    return _Parts(observed, expected, table if bootstrap else None,
                  lambda n, s: n * n - np.square(s).sum(axis=1))


_PARTS: dict[str, Callable[[_Units, bool], _Parts]] = {
    "nominal": _nominal, "ordinal": _ordinal, "interval": _interval, "ratio": _ratio}
