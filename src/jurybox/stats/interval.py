"""The one confidence-interval type of jurybox (after scipy's ``ConfidenceInterval``)."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ConfidenceInterval"]


class ConfidenceInterval(NamedTuple):
    """A two-sided interval ``[low, high]``; both NaN when undefined.

    A NamedTuple, so it unpacks as ``low, high = ci`` and is written to JSON as ``[low, high]``.
    """

    low: float
    high: float
