"""Listwise protocols: ``direct`` (one call in the base order) and ``pcf`` (permutation
consensus over K orders; arXiv 2603.20562).

``direct`` is decided by the same C_i as PCF on its single run (PCF with K = 1), so the two
differ only in the orders shown. Its call is PCF's permutation 0: the request is identical,
so comparing them costs K calls, not K + 1.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..datasets import ListwiseItem
from ..parsing import ListwiseJudgment, parse_listwise
from ..runner import Outcome
from .aggregate import Weights, consensus, credit, run_view, winners
from .base import ListwiseDecision, PlannedCall, register
from .permutations import base_order, permutation_set
from .prompts import labels_for, listwise_request, request_tag

__all__ = ["PCFProtocol", "DirectProtocol"]


@register("pcf")
class PCFProtocol:
    """Permutation-consensus listwise judging.

    Args:
        k: number of shown orders (default 7).
        seed: run seed (base order, extra permutations, request tags, decoding seed).
        weights: C_i weights.
        tolerance: winners are within this many points of the best C_i (default 0.5).
        temperature, max_tokens: sampling parameters.
    """

    ARGS = ("k", "seed", "weights", "tolerance", "temperature", "max_tokens")
    name = "pcf"
    task = "listwise"

    def __init__(self, k: int = 7, seed: int = 0, weights: Weights = Weights(),
                 tolerance: float = 0.5, temperature: float = 0.0, max_tokens: int = 1024):
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if tolerance < 0:
            raise ValueError(f"tolerance must be >= 0 points, got {tolerance}")
        self.k, self.seed, self.weights, self.tolerance = k, seed, weights, tolerance
        self.temperature, self.max_tokens = temperature, max_tokens

    def params(self) -> dict[str, Any]:
        return {"k": self.k, "seed": self.seed, "weights": vars(self.weights),
                "tolerance": self.tolerance, "temperature": self.temperature,
                "max_tokens": self.max_tokens}

    def _orders(self, item: ListwiseItem) -> list[tuple[int, ...]]:
        base = base_order(item.n, seed=self.seed, item_id=item.item_id)
        return permutation_set(base, self.k, seed=self.seed, item_id=item.item_id)

    def plan(self, item: ListwiseItem) -> list[PlannedCall]:
        labels = labels_for(item.n)
        calls = []
        for j, order in enumerate(self._orders(item)):
            tag = request_tag(self.seed, item.item_id, order)
            request = listwise_request(item.prompt, [item.candidates[i] for i in order], tag=tag,
                                       temperature=self.temperature, max_tokens=self.max_tokens,
                                       seed=self.seed)
            calls.append(PlannedCall(f"perm{j}", order, labels, request,
                                     partial(parse_listwise, labels=labels)))
        return calls

    def decide(self, item: ListwiseItem, calls: list[PlannedCall],
               outcomes: list[Outcome[ListwiseJudgment]]) -> ListwiseDecision:
        runs = [run_view(o.value, c.order) for c, o in zip(calls, outcomes) if o.ok]
        failures = tuple(o.failure.kind for o in outcomes if o.failure is not None)
        common = dict(item_id=item.item_id, protocol=self.name, n_candidates=item.n,
                      n_calls=len(calls),
                      n_ok=len(runs), gold=tuple(sorted(item.gold)), failures=failures)
        if not runs:
            return ListwiseDecision(winners=(), credit=None, **common)
        agg = consensus(runs, weights=self.weights)
        won = winners(agg.combined, tolerance=self.tolerance)
        return ListwiseDecision(winners=won, credit=credit(won, item.gold),
                                combined=tuple(round(c, 4) for c in agg.combined),
                                top_picks=tuple(r.top for r in runs),
                                top_positions=tuple(r.order.index(r.top) for r in runs),
                                **common)


@register("direct")
class DirectProtocol(PCFProtocol):
    """One call in the seeded base order (PCF's permutation 0), decided by C_i with K = 1."""

    ARGS = ("seed", "weights", "tolerance", "temperature", "max_tokens")
    name = "direct"

    def __init__(self, seed: int = 0, weights: Weights = Weights(), tolerance: float = 0.5,
                 temperature: float = 0.0, max_tokens: int = 1024):
        super().__init__(1, seed, weights, tolerance, temperature, max_tokens)

    def params(self) -> dict[str, Any]:
        return {k: v for k, v in super().params().items() if k != "k"}
