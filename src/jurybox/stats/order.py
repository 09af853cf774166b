"""Order diagnostics: how a judge's top pick moves with the order candidates are shown in."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["OrderDiagnostics", "OrderTally", "order_diagnostics"]


@dataclass(frozen=True)
class OrderDiagnostics:
    """Position effects over multi-order items.

    Attributes:
        flip_rate: share of items (with >= 2 successful runs) whose top pick is not the same
            candidate in every run; NaN when there are none.
        mean_disagreement: mean over those items of 1 - (runs agreeing with the modal top
            pick) / K'.
        n_items: items counted in flip_rate.
        win_rate_by_position: for each candidate count n, the share of successful runs (of
            n-candidate items) whose top pick was shown at position p (0-based), p < n; an
            unbiased judge gives 1/n each. Counts are kept apart because pooling items of
            different n would bias late positions down even for an unbiased judge.
        n_runs: for each n, the runs counted.
    """

    flip_rate: float
    mean_disagreement: float
    n_items: int
    win_rate_by_position: dict[int, tuple[float, ...]]
    n_runs: dict[int, int]


class OrderTally:
    """Order diagnostics accumulated one item at a time (memory does not grow with items).

    >>> t = OrderTally()
    >>> t.add([0, 0], [0, 1], 2); t.add([1, 0], [0, 0], 2)
    >>> d = t.result()
    >>> d.flip_rate, d.win_rate_by_position
    (0.5, {2: (0.75, 0.25)})
    """

    def __init__(self) -> None:
        self._multi = self._flips = 0
        # exact, so the result does not depend on the order items arrive in
        self._disagreement = Fraction(0)
        self._by_n: dict[int, Counter[int]] = {}

    def add(self, top_picks: Sequence[int], top_positions: Sequence[int], n: int) -> None:
        """One item: its top pick and that pick's shown position per successful run.

        Raises:
            ValueError: a position outside 0..n-1.
        """
        if any(not 0 <= p < n for p in top_positions):
            raise ValueError(f"a shown position in {list(top_positions)} is outside "
                             f"0..{n - 1}")
        if len(top_picks) >= 2:
            self._multi += 1
            self._flips += len(set(top_picks)) > 1
            self._disagreement += 1 - Fraction(Counter(top_picks).most_common(1)[0][1],
                                               len(top_picks))
        self._by_n.setdefault(n, Counter()).update(top_positions)

    def result(self) -> OrderDiagnostics:
        runs = {n: sum(c.values()) for n, c in sorted(self._by_n.items()) if sum(c.values())}
        return OrderDiagnostics(
            flip_rate=self._flips / self._multi if self._multi else math.nan,
            mean_disagreement=(float(self._disagreement / self._multi) if self._multi
                               else math.nan),
            n_items=self._multi,
            win_rate_by_position={n: tuple(self._by_n[n][p] / runs[n] for p in range(n))
                                  for n in runs},
            n_runs=runs)


def order_diagnostics(top_picks: Sequence[Sequence[int]],
                      top_positions: Sequence[Sequence[int]],
                      n_candidates: Sequence[int]) -> OrderDiagnostics:
    """Diagnostics from per-item top picks (candidate ids) and their shown positions.

    Args:
        top_picks: per item, the candidate ranked first in each successful run.
        top_positions: per item, the shown position of that candidate in each run.
        n_candidates: per item, its number of candidates.

    Raises:
        ValueError: sequences of different lengths, or a position >= its item's n.
    """
    if not len(top_picks) == len(top_positions) == len(n_candidates):
        raise ValueError("top_picks, top_positions and n_candidates must have one entry an item")
    tally = OrderTally()
    for picks, positions, n in zip(top_picks, top_positions, n_candidates):
        tally.add(picks, positions, n)
    return tally.result()
