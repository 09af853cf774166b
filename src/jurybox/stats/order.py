"""Order diagnostics: how a judge's top pick moves with the order candidates are shown in."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["OrderDiagnostics", "order_diagnostics"]


@dataclass(frozen=True)
class OrderDiagnostics:
    """Position effects over multi-order items.

    Attributes:
        flip_rate: share of items (with >= 2 successful runs) whose top pick is not the same
            candidate in every run; NaN when there are none.
        mean_disagreement: mean over those items of 1 - (runs agreeing with the modal top
            pick) / K'.
        n_items: items counted in flip_rate.
        win_rate_by_position: share of successful runs whose top pick was shown at position p
            (0-based), for every position up to the largest n; 1/n each without position bias.
        n_runs: runs counted in win_rate_by_position.
    """

    flip_rate: float
    mean_disagreement: float
    n_items: int
    win_rate_by_position: tuple[float, ...]
    n_runs: int


def order_diagnostics(top_picks: Sequence[Sequence[int]],
                      top_positions: Sequence[Sequence[int]]) -> OrderDiagnostics:
    """Diagnostics from per-item top picks (candidate ids) and their shown positions.

    Args:
        top_picks: per item, the candidate ranked first in each successful run.
        top_positions: per item, the shown position of that candidate in each run.
    """
    multi = [picks for picks in top_picks if len(picks) >= 2]
    flips = [len(set(p)) > 1 for p in multi]
    disagreement = [1 - Counter(p).most_common(1)[0][1] / len(p) for p in multi]
    positions = Counter(pos for item in top_positions for pos in item)
    n_runs = sum(positions.values())
    width = max(positions) + 1 if positions else 0
    return OrderDiagnostics(
        flip_rate=sum(flips) / len(flips) if flips else math.nan,
        mean_disagreement=sum(disagreement) / len(disagreement) if disagreement else math.nan,
        n_items=len(multi),
        win_rate_by_position=tuple(positions[p] / n_runs for p in range(width)),
        n_runs=n_runs)
