"""The judge's presentation-order effects per pair of systems: how often the verdict changes
when the two outputs swap places (order-flip rate), and how often the output shown first wins
(first-shown rate), from the per-order verdicts a :class:`~jurybox.ranking.Comparison`
records (:class:`~jurybox.ranking.OrderVerdict`).

Each order verdict's winner is ``a`` (its outcome above one half), ``b`` (below) or a tie
(exactly one half).

Order flip: a comparison with two or more recorded orders flips when its order verdicts do
not all name the same winner, a tie counting as a winner of its own: ``a`` in one order and a
tie in the other is a flip. This is MT-Bench's position consistency (Zheng et al. 2023,
"Judging LLM-as-a-judge with MT-Bench and Chatbot Arena", NeurIPS, section 3.3 and table 2: a
judge is consistent when its verdict is the same after the swap, ties included): the flip rate
is one minus their consistency. ``reversal_rate`` counts only the stronger case, one order
naming ``a`` and another ``b``.

First-shown rate: of the decided order verdicts (ties left out), the share won by the system
shown first; 50% is no position bias.

Rates are in percent with Wilson score intervals (:func:`jurybox.stats.wilson_interval`):
comparisons are independent across prompts; the two verdicts of one comparison are not (a
consistent judge gives the first-shown system one win and one loss), which makes the Wilson
interval of the first-shown rate conservative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..stats.interval import ConfidenceInterval
from ..stats.length import wilson_interval
from .comparisons import Comparison, Comparisons

__all__ = ["OrderEffects", "PairOrder", "order_effects"]


@dataclass(frozen=True)
class PairOrder:
    """Order effects of the judge on one pair of systems (or on all pairs pooled).

    Attributes:
        a, b: the pair's systems (sorted names); both ``"*"`` for all pairs pooled.
        n: comparisons of the pair.
        n_orders: those with >= 2 recorded order verdicts (the flip rate's n).
        flips: those whose order verdicts name different winners (a tie counts as one).
        flip_rate, flip_ci: ``flips / n_orders`` in percent, Wilson interval (percent);
            NaN when ``n_orders`` is 0.
        reversals: those with one order naming ``a`` and another ``b``.
        reversal_rate, reversal_ci: ``reversals / n_orders`` in percent, Wilson interval.
        n_decided: order verdicts that are not ties (the first-shown rate's n).
        first_wins: of those, the ones won by the system shown first.
        first_shown_rate, first_shown_ci: ``first_wins / n_decided`` in percent, Wilson
            interval; NaN when ``n_decided`` is 0.
    """

    a: str
    b: str
    n: int
    n_orders: int
    flips: int
    flip_rate: float
    flip_ci: ConfidenceInterval
    reversals: int
    reversal_rate: float
    reversal_ci: ConfidenceInterval
    n_decided: int
    first_wins: int
    first_shown_rate: float
    first_shown_ci: ConfidenceInterval


@dataclass(frozen=True)
class OrderEffects:
    """Order effects per pair of systems that met, and pooled.

    Attributes:
        pairs: one :class:`PairOrder` per pair, sorted by (a, b).
        overall: all comparisons pooled (``a`` and ``b`` are ``"*"``).
        confidence: the Wilson intervals' level.
    """

    pairs: tuple[PairOrder, ...]
    overall: PairOrder
    confidence: float

    def pair(self, one: str, other: str) -> PairOrder:
        """The effects on the pair ``{one, other}`` (either order).

        Raises:
            KeyError: the two never met.
        """
        a, b = sorted((one, other))
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
        raise KeyError(f"{one!r} and {other!r} have no comparison")


def _winner(outcome: float) -> int:
    """+1 ``a`` won, -1 ``b`` won, 0 a tie."""
    return 1 if outcome > 0.5 else -1 if outcome < 0.5 else 0


def _tally(rows: list[Comparison], a: str, b: str, confidence: float) -> PairOrder:
    n_orders = flips = reversals = decided = first_wins = 0
    for row in rows:
        winners = set()
        for verdict in row.orders:
            if verdict.first not in (row.a, row.b):
                raise ValueError(f"comparison on prompt {row.prompt!r}: the order verdict "
                                 f"shows {verdict.first!r} first, neither {row.a!r} nor "
                                 f"{row.b!r}")
            w = _winner(verdict.outcome)
            winners.add(w)
            if w:
                decided += 1
                first_wins += (w == 1) == (verdict.first == row.a)
        if len(row.orders) >= 2:
            n_orders += 1
            flips += len(winners) > 1
            reversals += {1, -1} <= winners

    def rate(count: int, n: int) -> tuple[float, ConfidenceInterval]:
        if n == 0:
            return float("nan"), wilson_interval(0.0, 0, confidence=confidence)
        ci = wilson_interval(count / n, n, confidence=confidence)
        return 100.0 * count / n, ConfidenceInterval(100.0 * ci.low, 100.0 * ci.high)

    flip_rate, flip_ci = rate(flips, n_orders)
    reversal_rate, reversal_ci = rate(reversals, n_orders)
    first_rate, first_ci = rate(first_wins, decided)
    return PairOrder(a, b, len(rows), n_orders, flips, flip_rate, flip_ci, reversals,
                     reversal_rate, reversal_ci, decided, first_wins, first_rate, first_ci)


def order_effects(comparisons: Comparisons, *, confidence: float = 0.95) -> OrderEffects:
    """Order-flip and first-shown rates of the judge, per pair of systems and pooled.

    Comparisons with no recorded order verdict count in ``n`` only.

    Raises:
        ValueError: an order verdict whose ``first`` is neither of its comparison's systems.
    """
    lo = np.minimum(comparisons.a, comparisons.b)
    hi = np.maximum(comparisons.a, comparisons.b)
    groups: dict[tuple[int, int], list[Comparison]] = {}
    for i, j, row in zip(lo.tolist(), hi.tolist(), comparisons.rows):
        groups.setdefault((i, j), []).append(row)
    names = comparisons.systems
    pairs = tuple(_tally(rows, names[i], names[j], confidence)
                  for (i, j), rows in sorted(groups.items()))
    overall = _tally(list(comparisons.rows), "*", "*", confidence)
    return OrderEffects(pairs, overall, confidence)
