"""Accuracy against the number of permutations used: PCF on the first k of its K recorded
orders, k = 1..K, from recorded calls only (no model calls).

For each item and k, the successful calls among the first k orders (plan order: the cyclic
shifts of the base order first) are aggregated with the run's own weights and tolerance
(:func:`jurybox.protocols.consensus`, :func:`winners`), and credited against gold. An item
with no successful call among its first k orders is failed at that k (left out of the
accuracy, counted against coverage, as in the run itself). An item with fewer orders than k
(n! < K, or an adaptive run that stopped early) keeps its recorded decision from its last
order on: for an adaptive ``exact`` stop that is the fixed-K decision, for ``sequential`` the
run's own. So k = 1 is the direct judgment (permutation 0 is the base order) and k = K is
PCF's accuracy in summary.json.

Alongside, for labelled and unlabelled runs alike: the share of items whose winners on the
first k orders equal their final winners (how much of the final pick k orders already give).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..protocols import Weights, consensus, credit, winners
from ..stats import AccuracyResult, accuracy
from .views import ItemView

__all__ = ["CurveCollector", "CurvePoint", "PermutationCurve", "permutation_curve"]


@dataclass(frozen=True)
class CurvePoint:
    """Accuracy (None for unlabelled runs) and agreement with the final winners at k.

    Attributes:
        k: orders used (1..K).
        accuracy: over labelled items (tie credit, coverage, bootstrap CI); None when no item
            has gold.
        agreement: share of decided items whose winners at k equal their final winners.
        n_agree: items compared for ``agreement``.
    """

    k: int
    accuracy: AccuracyResult | None
    agreement: float | None
    n_agree: int


@dataclass(frozen=True)
class PermutationCurve:
    protocol: str
    points: tuple[CurvePoint, ...]
    n_items: int


class CurveCollector:
    """Per-k credits and agreement of items, fed one item at a time."""

    def __init__(self, protocol: str, k: int, weights: Weights, tolerance: float) -> None:
        self.protocol, self.weights, self.tolerance = protocol, weights, tolerance
        self.credits: list[list[float | None]] = [[] for _ in range(k)]
        self.agree: list[list[bool]] = [[] for _ in range(k)]
        self.labelled = False
        self.n_items = 0

    def add(self, item: ItemView) -> None:
        p = item.protocol(self.protocol)
        if p is None or item.task != "listwise":
            return
        self.n_items += 1
        self.labelled |= bool(item.gold)
        final = None if p.failed else tuple(p.winners)
        for k in range(1, len(self.credits) + 1):
            if k >= len(p.calls):  # every recorded order used: the recorded decision
                won: tuple[int, ...] | None = final
            else:
                runs = [c.run for c in p.calls[:k] if c.run is not None]
                won = (winners(consensus(runs, weights=self.weights).combined,
                               tolerance=self.tolerance) if runs else None)
            if item.gold:
                self.credits[k - 1].append(None if won is None else credit(won, item.gold))
            if won is not None and final is not None:
                self.agree[k - 1].append(set(won) == set(final))

    def curve(self, seed: int) -> PermutationCurve:
        points = []
        for k, (credits, agree) in enumerate(zip(self.credits, self.agree), start=1):
            acc = accuracy(credits, seed=seed) if self.labelled and credits else None
            points.append(CurvePoint(k, acc, sum(agree) / len(agree) if agree else None,
                                     len(agree)))
        return PermutationCurve(self.protocol, tuple(points), self.n_items)


def permutation_curve(items: Iterable[ItemView], *, k: int, weights: Weights = Weights(),
                      tolerance: float = 0.5, protocol: str = "pcf", seed: int = 0
                      ) -> PermutationCurve:
    """The curve over ``items`` (streamed; an item without ``protocol`` is skipped).

    Args:
        k: K, the orders PCF planned per item (run.json); an item with fewer keeps its
            decision at larger k.
        weights: the run's PCF C_i weights (run.json).
        tolerance: the run's PCF tolerance, C_i points (run.json).
        seed: the bootstrap seed of the CIs (the run's seed).
    """
    collector = CurveCollector(protocol, k, weights, tolerance)
    for item in items:
        collector.add(item)
    return collector.curve(seed)
