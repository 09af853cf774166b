"""Krippendorff's alpha: any number of raters, missing ratings, four levels of measurement.

Our own implementation; the ``krippendorff`` package on PyPI is only a test oracle and a benchmark
comparator. No V x V coincidence matrix is built when the number V of distinct values is large,
and the ratings are never expanded per value. Costs for N ratings (n_raters x n_units cells):

- interval: per-unit sums and sums of squares, O(N);
- ordinal: interval alpha on mid-rank positions, O(N) on integer scales, else one sort;
- nominal: per-unit counts of each value, O(N) (bincount) or one sort of (unit, value) keys;
- ratio: with V <= 1024, per-unit value counts and the V x V difference table (O(N + V^2),
  plus one n_units x V x V product when that beats pairs); otherwise within-unit pairs,
  O(sum_u m_u^2), and an exponential-sum quadrature for D_e, O(N log(max/min)) (see
  ``krippendorff_alpha``, Notes).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..interval import ConfidenceInterval
from ._bootstrap import _bootstrap_ci
from ._input import Level, _as_matrix, _check_options
from ._levels import _PARTS
from ._ratio import _EXACT_RATIO_VALUES, _ratio_delta  # noqa: F401  (tests reach for these)
from ._units import Insufficiency, _pairable, _undefined_reason, _unpairable

__all__ = ["AlphaResult", "DegenerateAlphaWarning", "InsufficientRatingsError", "Level",
           "krippendorff_alpha"]


class DegenerateAlphaWarning(UserWarning):
    """Alpha is undefined for these ratings; the result is NaN and says why in ``reason``."""


class InsufficientRatingsError(ValueError):
    """The ratings hold no pairable value, so there is nothing to measure agreement on.

    Attributes:
        kind: ``"no ratings"`` (every cell missing, or an empty matrix), ``"single rater"``
            (one row holds every rating) or ``"no pairable units"`` (several raters, but no
            unit rated by two of them).
    """

    def __init__(self, kind: Insufficiency, message: str) -> None:
        self.kind = kind
        super().__init__(message)


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha with its sample sizes and a bootstrap confidence interval.

    Attributes:
        alpha: 1 - D_o / D_e, at most 1 (perfect agreement), 0 at chance, negative below
            chance; NaN when undefined (see ``reason``).
        level: the level of measurement used.
        n_units: pairable units (units with ratings from two or more raters); >= 1 from
            ``krippendorff_alpha`` (``jurybox.agreement.analyze`` reports 0 for a group
            without a pairable value, with the reason).
        n_raters: rows of the ratings matrix.
        n_pairable_values: n, the ratings in pairable units.
        confidence_interval: (low, high) percentile bootstrap interval with its standard
            error; (NaN, NaN) when ``n_resamples`` is 0 or alpha is undefined; degenerate
            (standard error 0) when every resample gives the same alpha.
        confidence_level: e.g. 0.95.
        n_resamples: bootstrap resamples requested.
        reason: None, or why alpha is undefined.
    """

    alpha: float
    level: Level
    n_units: int
    n_raters: int
    n_pairable_values: int
    confidence_interval: ConfidenceInterval
    confidence_level: float
    n_resamples: int
    reason: str | None = None


def krippendorff_alpha(ratings: Any, *, level: Level = "ordinal",
                       value_domain: Sequence[Any] | None = None, n_resamples: int = 1000,
                       confidence: float = 0.95, seed: int = 0) -> AlphaResult:
    """Krippendorff's alpha reliability of ratings by several raters, with missing ratings.

    Parameters
    ----------
    ratings : array_like, shape (n_raters, n_units)
        One row per rater (coder, judge), one column per unit (item); NaN or None = missing.
        Numbers, or for ``level`` "nominal" and "ordinal" also labels such as strings (in a
        NumPy string array the string "nan", which is what ``np.nan`` becomes there, is missing).
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement; it chooses the difference function delta^2 below.
    value_domain : sequence, optional
        The values a rating may take; a rating outside it raises. For labels and for
        nominal/ordinal numbers it gives the categories and, for ordinal, their order
        (default: the sorted distinct ratings). For interval/ratio it is only checked.
    n_resamples : int, >= 0
        Bootstrap resamples for the confidence interval; 0 skips it (NaN, NaN).
    confidence : float in (0, 1)
        Level of the confidence interval.
    seed : int
        Seed of the numpy Generator that draws the resamples.

    Returns
    -------
    AlphaResult

    Raises
    ------
    InsufficientRatingsError
        (a ValueError) The ratings hold no pairable value: no ratings at all, ratings from a
        single rater, or no unit rated by two raters; ``kind`` says which. These are input
        errors (there is nothing to measure agreement on), not an undefined alpha.
    ValueError
        ``ratings`` not 2-D; unknown ``level``; labels with level interval or ratio; a rating
        outside ``value_domain`` or a repeated entry in it; an infinite rating; a negative
        rating at level ratio; ``n_resamples`` < 0; ``confidence`` outside (0, 1).

    Warns
    -----
    DegenerateAlphaWarning
        When alpha is undefined and returned as NaN with a ``reason``: every pairable rating
        has the same value (D_e = 0, so alpha = 0/0). Our choice, after scipy's
        ``DegenerateDataWarning``: the data are well formed but carry no variation, so the
        result says so rather than raising.

    Notes
    -----
    Krippendorff, K. (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School
    for Communication Departmental Papers 43. Its equations are unnumbered; we cite the page
    and section. General form and disagreements (p. 1)::

        alpha = 1 - D_o / D_e
        D_o = 1/n * sum_c sum_k o_ck delta^2_ck
        D_e = 1/(n (n - 1)) * sum_c sum_k n_c n_k delta^2_ck

    Coincidences (section C, any number of observers, missing data); only units with
    m_u >= 2 ratings are pairable, and n_c, n count their ratings::

        o_ck = sum_u (number of c-k pairs in unit u) / (m_u - 1),  n_c = sum_k o_ck

    Difference functions (section E, any metric)::

        nominal   0 if c = k else 1
        ordinal   (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2
        interval  (c - k)^2
        ratio     ((c - k) / (c + k))^2        (0 when c = k = 0; ratings must be >= 0)

    Computation. Expanding the coincidences, alpha = 1 - (n - 1) A / B with
    A = sum_u sum_{i != j in u} delta^2(x_i, x_j) / (m_u - 1) and B = sum_{i != j}
    delta^2(x_i, x_j) over all pairable ratings. Per level: interval, sum_{i != j in u}
    (x_i - x_j)^2 = 2 m_u sum_{i in u} (x_i - xbar_u)^2 and B = 2 n sum (x - xbar)^2.
    Ordinal, with r_c = sum_{g<c} n_g + n_c / 2 the ordinal difference is (r_c - r_k)^2, so
    ordinal alpha is interval alpha on r. Nominal, sum_{i != j in u} [x_i != x_j] =
    m_u^2 - sum_c n_uc^2 and B = n^2 - sum_c n_c^2. Ratio: A from the pairs in each unit,
    or from per-unit value counts (sum_ck n_uc n_uk delta^2_ck) when that is cheaper; with at
    most 1024 distinct values B = sum_ck n_c n_k delta^2_ck exactly, with more
    B = 2 n_0 n_+ + sum_{i,j > 0} (x_i - x_j)^2 / (x_i + x_j)^2 (n_0 zero, n_+ positive
    ratings), where 1/(x_i + x_j)^2 = int_0^inf t e^{-t x_i} e^{-t x_j} dt separates the
    pair; the integral is taken by the trapezoid rule in log t, and per node the sum is a
    weighted variance of the x_i, computed centered (relative error ~1e-15 in our tests, at
    any spread; cost grows with the log of max/min of the positive ratings).

    Bootstrap. Pairable units are drawn with replacement (``n_units`` per resample,
    ``np.random.default_rng(seed)``) and alpha is recomputed from per-unit statistics that
    are linear in how often each unit is drawn: m_u, the unit's term of A, and the sums
    (interval, ordinal), value counts (nominal, ratio) or quadrature terms (ratio, > 1024
    values) that give B. Each resample is a product of a draw-count vector with that table,
    O(n_units x statistics). The interval is the percentile interval of the resampled
    alphas; resamples without variation (alpha undefined) are left out. Two approximations:
    ordinal resamples keep the full sample's mid-ranks r_c, and ratio resamples with more
    than 1024 values use a coarser quadrature (relative error of D_e ~3e-8).

    Examples
    --------
    Krippendorff's (2011, section C) 4 observers x 12 units; the published values are
    nominal .743, ordinal .815, interval .849 and ratio .797:

    >>> nan = float("nan")
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> res = krippendorff_alpha(data, level="nominal", n_resamples=0)
    >>> round(res.alpha, 3), res.n_units, res.n_pairable_values
    (0.743, 11, 40)
    >>> [round(krippendorff_alpha(data, level=lv, n_resamples=0).alpha, 3)
    ...  for lv in ("ordinal", "interval", "ratio")]
    [0.815, 0.849, 0.797]
    """
    _check_options(level, n_resamples, confidence)
    matrix = _as_matrix(ratings, level, value_domain)
    units = _pairable(matrix)

    def result(alpha: float, ci: ConfidenceInterval, reason: str | None = None) -> AlphaResult:
        return AlphaResult(alpha, level, int(units.m.size), int(matrix.shape[0]), int(units.n),
                           ci, confidence, n_resamples, reason)

    unpairable = _unpairable(matrix, units)
    if unpairable is not None:
        raise InsufficientRatingsError(*unpairable)
    reason = _undefined_reason(units)
    if reason is not None:
        warnings.warn(f"Krippendorff's alpha is undefined: {reason}", DegenerateAlphaWarning,
                      stacklevel=2)
        return result(math.nan, ConfidenceInterval(math.nan, math.nan), reason)
    parts = _PARTS[level](units, n_resamples > 0)
    alpha = 1.0 - (units.n - 1.0) * parts.observed.sum() / parts.expected
    ci = (_bootstrap_ci(units, parts, n_resamples, confidence, seed)
          if n_resamples else ConfidenceInterval(math.nan, math.nan))
    return result(float(alpha), ci)


# ---------------------------------------------------------------- input
