"""The one confidence-interval type of jurybox (after scipy's ``ConfidenceInterval``)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

__all__ = ["ConfidenceInterval"]


class _Bounds(NamedTuple):
    low: float
    high: float


class ConfidenceInterval(_Bounds):
    """A two-sided interval ``[low, high]``; both NaN when undefined.

    A tuple of its two bounds, so it unpacks as ``low, high = ci``, compares and hashes as
    ``(low, high)``, and is written to JSON as ``[low, high]``. Two attributes ride along
    outside the tuple (they are not written to JSON):

    Attributes:
        low, high: the bounds.
        standard_error: the bootstrap standard error of the statistic (the sample standard
            deviation of the resampled statistics, ddof = 1, as scipy's
            ``BootstrapResult.standard_error``); 0 for a degenerate interval; NaN when
            unknown (no bootstrap, or too little data).
        degenerate: True when every resample gives the same value (constant data, all-zero
            paired differences): the interval is the point ``[x, x]`` because the data carry
            no sampling variation, not because the estimate is precise.

    >>> ci = ConfidenceInterval(0.5, 0.5, standard_error=0.0, degenerate=True)
    >>> low, high = ci
    >>> (low, high, ci.standard_error, ci.degenerate, list(ci))
    (0.5, 0.5, 0.0, True, [0.5, 0.5])
    """

    # class-level defaults: instances made by tuple machinery (``_make``, ``_replace``)
    # bypass __new__ and read these
    standard_error: float = math.nan
    degenerate: bool = False

    def __new__(cls, low: float, high: float, standard_error: float = math.nan,
                degenerate: bool = False) -> ConfidenceInterval:
        self = super().__new__(cls, low, high)
        object.__setattr__(self, "standard_error", float(standard_error))
        object.__setattr__(self, "degenerate", bool(degenerate))
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"ConfidenceInterval is immutable; cannot set {name!r}")

    def __getnewargs__(self) -> tuple[float, float, float, bool]:
        return (self.low, self.high, self.standard_error, self.degenerate)

    def __repr__(self) -> str:
        return (f"ConfidenceInterval(low={self.low!r}, high={self.high!r}, "
                f"standard_error={self.standard_error!r}, degenerate={self.degenerate!r})")
