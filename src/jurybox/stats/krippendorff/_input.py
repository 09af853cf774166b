"""Input checks and conversion of ratings to a float matrix (NaN = missing)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, get_args

import numpy as np

Level = Literal["nominal", "ordinal", "interval", "ratio"]
_LEVELS: tuple[str, ...] = get_args(Level)


def _check_options(level: str, n_resamples: int, confidence: float) -> None:
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {', '.join(_LEVELS)}, got {level!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) \
            or n_resamples < 0:
        raise ValueError(f"n_resamples must be an integer >= 0, got {n_resamples!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")


def _as_matrix(ratings: Any, level: str, value_domain: Sequence[Any] | None) -> np.ndarray:
    """Ratings as float64, shape (n_raters, n_units), NaN = missing; labels -> positions."""
    arr = np.asarray(ratings)
    if arr.ndim != 2:
        raise ValueError(f"ratings must be 2-D, shape (n_raters, n_units); got shape {arr.shape!r}")
    matrix = arr.astype(np.float64, copy=False) if arr.dtype.kind in "biuf" else _numbers(arr)
    if matrix is None:
        return _label_positions(arr, level, value_domain)
    if np.isinf(matrix).any():
        raise ValueError("ratings must be finite numbers or NaN (missing); found inf")
    if value_domain is not None:
        matrix = _apply_domain(matrix, level, value_domain)
    if level == "ratio" and (matrix < 0).any():
        raise ValueError(f"ratio ratings must be >= 0; found {float(np.nanmin(matrix))!r}")
    return matrix


def _numbers(arr: np.ndarray) -> np.ndarray | None:
    """An object array of numbers and None as float (None -> NaN); None if it holds labels."""
    if arr.dtype.kind != "O":
        return None
    flat = arr.ravel().tolist()
    if not all(v is None or (isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
               for v in flat):
        return None
    return np.array([math.nan if v is None else float(v) for v in flat]).reshape(arr.shape)


def _checked_domain(value_domain: Sequence[Any]) -> list[Any]:
    domain = list(value_domain)
    if not domain or len(set(domain)) != len(domain):
        raise ValueError(f"value_domain must be non-empty without repeats, got {domain!r}")
    return domain


def _label_positions(arr: np.ndarray, level: str, value_domain: Sequence[Any] | None):
    """Labels -> their position in the domain (float), missing -> NaN."""
    if level not in ("nominal", "ordinal"):
        raise ValueError(f"labels need level 'nominal' or 'ordinal', got {level!r}; "
                         f"give numbers for level {level!r}")
    flat = arr.ravel().tolist()
    missing = [v is None or v == "nan" or (isinstance(v, float) and math.isnan(v)) for v in flat]
    if value_domain is None:
        try:
            domain = sorted({v for v, miss in zip(flat, missing, strict=True) if not miss})
        except TypeError as exc:
            raise ValueError("labels of mixed types cannot be sorted; pass value_domain") from exc
    else:
        domain = _checked_domain(value_domain)
    position = {v: float(i) for i, v in enumerate(domain)}
    out = np.full(len(flat), np.nan)
    for i, (v, miss) in enumerate(zip(flat, missing, strict=True)):
        if not miss:
            if v not in position:
                raise ValueError(f"rating {v!r} is not in value_domain {domain!r}")
            out[i] = position[v]
    return out.reshape(arr.shape)


def _apply_domain(matrix: np.ndarray, level: str, value_domain: Sequence[Any]) -> np.ndarray:
    """Check numbers against the domain; nominal/ordinal numbers -> domain positions."""
    domain = np.asarray(_checked_domain(value_domain), dtype=np.float64)
    present = ~np.isnan(matrix)
    observed = matrix[present]
    order = np.argsort(domain, kind="stable")
    where = np.searchsorted(domain[order], observed).clip(max=domain.size - 1)
    found = domain[order][where] == observed
    if not found.all():
        raise ValueError(f"ratings {observed[~found][:5].tolist()!r} are not in value_domain "
                         f"{domain.tolist()!r}")
    if level in ("interval", "ratio"):
        return matrix
    out = np.full(matrix.shape, np.nan)
    out[present] = order[where]
    return out
