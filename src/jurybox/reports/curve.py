"""Accuracy against the number of permutations used: PCF on the first k of its K recorded
orders, k = 1..K, from what the run recorded (no model calls).

The bench summary computes it from items.jsonl (PCF's records carry ``winners_by_k``, the
winners on each shorter prefix of the orders asked) and writes it to summary.json, where the
report reads it; for a run written before that field, the report computes it from the
recorded calls (every call parsed again: slower).

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

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..protocols import Weights, consensus, credit, winners
from ..stats import AccuracyResult, ConfidenceInterval, accuracy
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
    """Accuracy (and agreement with the final winners) on the first k orders, k = 1..K;
    ``n_items``: items of the protocol. Written to summary.json under the protocol's
    ``curve`` (:meth:`from_json` reads it back)."""

    protocol: str
    points: tuple[CurvePoint, ...]
    n_items: int

    @classmethod
    def from_json(cls, value: Any) -> PermutationCurve | None:
        """The curve as summary.json holds it, or None when ``value`` is not one (absent,
        or changed by hand)."""
        try:
            points = tuple(CurvePoint(int(p["k"]), _accuracy(p.get("accuracy")),
                                      None if p.get("agreement") is None
                                      else float(p["agreement"]), int(p["n_agree"]))
                           for p in value["points"])
            return cls(str(value["protocol"]), points, int(value["n_items"]))
        except (KeyError, TypeError, ValueError):
            return None


def _number(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) else math.nan


def _accuracy(a: Any) -> AccuracyResult | None:
    """An AccuracyResult from its JSON (NaN written as null)."""
    if a is None:
        return None
    low, high = a.get("confidence_interval") or (None, None)
    return AccuracyResult(_number(a["accuracy"]), int(a["n"]), int(a["n_total"]),
                          _number(a.get("coverage")), ConfidenceInterval(
                              _number(low), _number(high)),
                          _number(a.get("confidence_level")))


class CurveCollector:
    """Per-k credits and agreement of items, fed one item at a time: from the items.jsonl
    records of a run (:meth:`add_decision`, as the bench summary does: PCF records carry
    ``winners_by_k``) or, for runs written before that field, from the item's recorded
    calls (:meth:`add`). Items are taken in item-id order (the bench summary's order), so
    the point at k = K is the protocol's accuracy in summary.json, CI included."""

    def __init__(self, protocol: str, k: int, weights: Weights = Weights(),
                 tolerance: float = 0.5) -> None:
        self.protocol, self.k, self.weights, self.tolerance = protocol, k, weights, tolerance
        self._items: dict[str, tuple[tuple[tuple[int, ...] | None, ...],
                                     tuple[int, ...] | None, tuple[int, ...]]] = {}

    @property
    def n_items(self) -> int:
        return len(self._items)

    def add_decision(self, item_id: str, winners_by_k: Sequence[Sequence[int] | None],
                     final: Sequence[int] | None, gold: Sequence[int]) -> None:
        """One item: ``winners_by_k[k - 1]``, the winners on its first k orders asked for
        k = 1 .. n_calls - 1 (None or empty: none of them succeeded); ``final``: the
        recorded winners (None: the item failed); ``gold``: its gold indices (empty:
        unlabelled). A later call for the same item replaces the earlier one."""
        prefix = tuple(tuple(w) if w else None for w in winners_by_k)
        self._items[item_id] = (prefix, None if final is None else tuple(final), tuple(gold))

    def add(self, item: ItemView) -> None:
        """One item from its views: the winners on each prefix computed from its calls."""
        p = item.protocol(self.protocol)
        if p is None or item.task != "listwise":
            return
        prefix = []
        for k in range(1, len(p.calls)):
            runs = [c.run for c in p.calls[:k] if c.run is not None]
            prefix.append(winners(consensus(runs, weights=self.weights).combined,
                                  tolerance=self.tolerance) if runs else None)
        self.add_decision(item.item_id, prefix, None if p.failed else p.winners, item.gold)

    def curve(self, seed: int) -> PermutationCurve:
        credits: list[list[float | None]] = [[] for _ in range(self.k)]
        agree: list[list[bool]] = [[] for _ in range(self.k)]
        labelled = False
        for item_id in sorted(self._items):
            prefix, final, gold = self._items[item_id]
            labelled |= bool(gold)
            for k in range(1, self.k + 1):
                # every recorded order used (an item with fewer orders than k): the decision
                won = final if k > len(prefix) else prefix[k - 1]
                if gold:
                    credits[k - 1].append(None if won is None else credit(won, gold))
                if won is not None and final is not None:
                    agree[k - 1].append(set(won) == set(final))
        points = []
        for k, (cs, ag) in enumerate(zip(credits, agree), start=1):
            acc = accuracy(cs, seed=seed) if labelled and cs else None
            points.append(CurvePoint(k, acc, sum(ag) / len(ag) if ag else None, len(ag)))
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
