"""Listwise protocols: ``direct`` (one call in the base order) and ``pcf`` (permutation
consensus over K orders; arXiv 2603.20562).

``direct`` is decided by the same C_i as PCF on its single run (PCF with K = 1), so the two
differ only in the orders shown. Its call is PCF's permutation 0: the request is identical,
so comparing them costs K calls, not K + 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any, ClassVar

from ..datasets import ListwiseItem
from ..parsing import parse_listwise
from ..runner import Outcome
from .aggregate import RunView, Weights, consensus, credit, run_view, winners
from .adaptive import (ADAPTIVE_MODES, Adaptive, StopReason, earliest_stop, sequential_settled,
                       settled)
from .base import CallBudget, Calls, PlannedCall, PlannedProtocol, register
from .permutations import MAX_K, base_order, permutation_set
from .prompts import (LISTWISE_PROMPT_VERSION, LISTWISE_PROMPT_VERSIONS, labels_for,
                      listwise_request, request_tag)
from .schemas import listwise_schema
from .templates import JudgePrompt

__all__ = ["PCFProtocol", "DirectProtocol", "ListwiseDecision"]


@dataclass(frozen=True)
class ListwiseDecision:
    """A listwise protocol's verdict on one item (one line of items.jsonl).

    Attributes:
        item_id, protocol: what was judged, how.
        n_candidates: the item's n.
        n_calls: calls asked (the orders used; adaptive PCF may stop before ``k``);
            n_ok: calls that gave a usable judgment.
        winners: winning candidate indices (empty when the item failed).
        credit: share of winners that are gold, in [0, 1]; None when no call succeeded or
            the item is unlabelled.
        gold: the gold candidate indices (empty: unlabelled).
        combined: C_i per candidate, 0-100 (None when failed).
        components: C_i's four components per candidate (mean score 0-100, Borda 0-100,
            top-set vote share 0-1, calibrated-uncertainty share 0-1), rounded to 4 places;
            None when failed. Written by :meth:`PCFProtocol.decide` only when asked
            (``jurybox judge``), so bench records keep their shape.
        top_picks: per successful run, the candidate ranked first.
        top_positions: per successful run, the shown position (0-based) of that candidate.
        failures: failure kinds of the calls that failed (``api``, ``parse``, ``refusal``).
        k: orders planned (K, or n! when smaller); stop: why asking ended: ``all`` (every
            planned order asked), ``settled`` (adaptive exact: the winner set could no longer
            change) or ``sequential`` (adaptive sequential rule met).
        lengths: each candidate's length in characters, in dataset order
            (:attr:`~jurybox.datasets.ListwiseItem.lengths`; the length bias's input).
        winners_by_k: for k = 1 .. n_calls - 1, the winners of the successful calls among
            the first k asked, aggregated as the decision is (empty where none of them
            succeeded); k = n_calls is ``winners``. What accuracy against the number of orders
            used is computed from (:mod:`jurybox.reports.curve`); left out of the record when
            empty (one call).
    """

    item_id: str
    protocol: str
    n_candidates: int
    n_calls: int
    n_ok: int
    winners: tuple[int, ...]
    credit: float | None
    gold: tuple[int, ...]
    combined: tuple[float, ...] | None = None
    top_picks: tuple[int, ...] = ()
    top_positions: tuple[int, ...] = ()
    failures: tuple[str, ...] = field(default_factory=tuple)
    k: int = 0
    stop: StopReason = "all"
    components: dict[str, tuple[float, ...]] | None = None
    lengths: tuple[int, ...] = ()
    winners_by_k: tuple[tuple[int, ...], ...] = ()

    @property
    def failed(self) -> bool:
        """No call gave a usable judgment (so there are no winners)."""
        return self.n_ok == 0

    def to_record(self) -> dict[str, Any]:
        """The items.jsonl line (written once, by the run engine). Fields hold tuples of
        numbers and strings only, so a shallow copy serializes (``asdict``'s deep copy cost
        0.1 ms an item on the hot path). ``components`` is left out when not computed,
        ``winners_by_k`` when empty."""
        record = {f.name: getattr(self, f.name) for f in fields(self)}
        if record["components"] is None:
            del record["components"]
        if not record["winners_by_k"]:
            del record["winners_by_k"]
        return {**record, "failed": self.failed}


@register("pcf")
class PCFProtocol(PlannedProtocol):
    """Permutation-consensus listwise judging.

    Args:
        k: number of shown orders, 1 to :data:`~jurybox.protocols.permutations.MAX_K`
            (1000) (default 7); an item of n candidates is shown at most n! of them.
        seed: run seed (base order, extra permutations, request tags, decoding seed).
        weights: C_i weights (finite and >= 0 with a positive sum; :class:`Weights` checks).
        tolerance: winners are within this many points of the best C_i (default 0.5); a
            finite number >= 0.
        temperature: sampling temperature.
        max_tokens: completion budget, tokens.
        adaptive: ``off`` (ask all K orders), ``exact`` (stop once no outcome of the
            remaining orders can change the winner set: the fixed-K decision, fewer calls) or
            ``sequential`` (stop once the top pick is settled at ``confidence``: lossy). See
            :mod:`jurybox.protocols.adaptive`. Orders are asked in plan order (the cyclic
            shifts of the base order first).
        confidence: sequential only: in (0, 1), default 0.95.
        min_k: sequential only: successful orders before any stop, >= 1 (default 3).
        prompt_version: the listwise prompt layout (:func:`listwise_request`; default the
            current one, 2: everything an item's orders share comes first).
        criteria: the user's judging criteria (text); None: the factuality prompt.
        template: the user's prompt template (text; see
            :mod:`jurybox.protocols.templates`); None: the default layout.

    Raises:
        ValueError: k outside 1 to MAX_K, weights not a :class:`Weights`, a tolerance that
            is negative, NaN or infinite, an unknown adaptive mode, confidence outside (0, 1),
            min_k < 1 (``build_protocol`` turns these into ConfigError naming the parameter).
        ConfigError, DataError: bad criteria or template.
    """

    #: Record C_i's components in each decision (``jurybox judge`` sets it on its instance).
    components: bool = False

    ARGS: ClassVar[tuple[str, ...]] = ("k", "seed", "weights", "tolerance", "temperature",
                                       "max_tokens", "adaptive", "confidence", "min_k",
                                       "prompt_version", "criteria", "template")
    name = "pcf"
    task = "listwise"

    def __init__(self, k: int = 7, seed: int = 0, weights: Weights = Weights(),
                 tolerance: float = 0.5, temperature: float = 0.0, max_tokens: int = 1024,
                 adaptive: Adaptive = "off", confidence: float = 0.95, min_k: int = 3,
                 prompt_version: int = LISTWISE_PROMPT_VERSION, criteria: str | None = None,
                 template: str | None = None):
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if k > MAX_K:
            raise ValueError(f"k must be at most {MAX_K:,} (orders per item), got {k:,}")
        if not isinstance(weights, Weights):
            raise ValueError(f"weights must be a Weights (mean, borda, vote, uncertainty), "
                             f"got {weights!r}")
        if not 0 <= tolerance < math.inf:  # NaN fails both comparisons
            raise ValueError(f"tolerance must be a finite number >= 0 points, got "
                             f"{tolerance!r}")
        if adaptive not in ADAPTIVE_MODES:
            raise ValueError(f"adaptive must be one of {', '.join(ADAPTIVE_MODES)}, "
                             f"got {adaptive!r}")
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
        if min_k < 1:
            raise ValueError(f"min_k must be >= 1, got {min_k!r}")
        if prompt_version not in LISTWISE_PROMPT_VERSIONS:
            versions = ", ".join(map(str, LISTWISE_PROMPT_VERSIONS))
            raise ValueError(f"prompt_version must be one of {versions}, got {prompt_version!r}")
        self.prompt_version = prompt_version
        self.custom = JudgePrompt(criteria, template)
        if not self.custom.is_default and prompt_version == 1:
            raise ValueError("criteria and templates need listwise prompt layout 2")
        self.k, self.seed, self.weights, self.tolerance = k, seed, weights, tolerance
        self.temperature, self.max_tokens = temperature, max_tokens
        self.adaptive, self.confidence, self.min_k = adaptive, confidence, min_k

    def params(self) -> dict[str, Any]:
        params = {"k": self.k, "seed": self.seed, "weights": vars(self.weights),
                  "tolerance": self.tolerance, "temperature": self.temperature,
                  "max_tokens": self.max_tokens, "adaptive": self.adaptive,
                  "prompt_version": self.prompt_version}
        if self.adaptive == "sequential":
            params.update(confidence=self.confidence, min_k=self.min_k)
        return {**params, **self.custom.params()}

    def budget(self, item: ListwiseItem) -> CallBudget:
        """All K orders at most; adaptive: at least the orders no rule can stop before."""
        planned = self.plan(item)
        if self.adaptive == "off" or len(planned) == 1:
            return CallBudget(planned, len(planned))
        least = (earliest_stop(len(planned)) if self.adaptive == "exact"
                 else min(self.min_k, len(planned)))
        return CallBudget(planned, least)

    async def judge(self, item: ListwiseItem, calls: Calls) -> ListwiseDecision:
        """Ask the planned orders: the first ``budget(item).least`` at once (all of them unless
        adaptive: no rule can stop before those), then one at a time in plan order until the
        adaptive rule stops."""
        budget = self.budget(item)
        planned = budget.calls
        outcomes = list(await calls.gather(planned[:budget.least]))
        while not self._stops(planned, outcomes):
            outcomes.append(await calls.ask(planned[len(outcomes)]))
        stop: StopReason = ("all" if len(outcomes) == len(planned) else
                            "settled" if self.adaptive == "exact" else "sequential")
        return self.decide(item, planned[:len(outcomes)], outcomes, k=len(planned), stop=stop)

    def _stops(self, planned: list[PlannedCall], outcomes: list[Outcome[Any]]) -> bool:
        remaining = len(planned) - len(outcomes)
        if remaining == 0:
            return True
        runs = [run_view(o.value, c.order) for c, o in zip(planned, outcomes)
                if o.value is not None]
        if self.adaptive == "exact":
            return settled(runs, remaining, weights=self.weights, tolerance=self.tolerance,
                           planned=len(outcomes) + remaining)
        return sequential_settled(runs, remaining, weights=self.weights,
                                  confidence=self.confidence, min_runs=self.min_k)

    def _orders(self, item: ListwiseItem) -> list[tuple[int, ...]]:
        base = base_order(item.n, seed=self.seed, item_id=item.item_id)
        return permutation_set(base, self.k, seed=self.seed, item_id=item.item_id)

    def plan(self, item: ListwiseItem) -> list[PlannedCall]:
        labels = labels_for(item.n)
        calls = []
        for j, order in enumerate(self._orders(item)):
            tag = request_tag(self.seed, item.item_id, order)
            request = listwise_request(item.prompt, [item.candidates[i] for i in order], tag=tag,
                                       question_tag=request_tag(self.seed, item.item_id),
                                       temperature=self.temperature, max_tokens=self.max_tokens,
                                       seed=self.seed, version=self.prompt_version,
                                       custom=self.custom)
            calls.append(PlannedCall(f"perm{j}", order, labels, request,
                                     partial(parse_listwise, labels=labels),
                                     schema=listwise_schema(labels)))
        return calls

    def decide(self, item: ListwiseItem, calls: list[PlannedCall],
               outcomes: list[Outcome[Any]], *, k: int | None = None,
               stop: StopReason = "all") -> ListwiseDecision:
        """The decision from the calls asked (``k``: orders planned, default all asked)."""
        planned = len(calls) if k is None else k
        views = [None if o.value is None else run_view(o.value, c.order)
                 for c, o in zip(calls, outcomes)]
        runs = [r for r in views if r is not None]
        failures = tuple(o.failure.kind for o in outcomes if o.failure is not None)
        gold = tuple(sorted(item.gold))
        if not runs:
            return ListwiseDecision(item.item_id, self.name, item.n, len(calls), 0, (), None,
                                    gold, failures=failures, k=planned, stop=stop,
                                    lengths=item.lengths)
        agg = consensus(runs, weights=self.weights)
        won = winners(agg.combined, tolerance=self.tolerance)
        parts = None if not self.components else {
            name: tuple(round(v, 4) for v in getattr(agg, name))
            for name in ("mean", "borda", "vote", "uncertainty")}
        return ListwiseDecision(item.item_id, self.name, item.n, len(calls), len(runs), won,
                                credit(won, item.gold) if item.gold else None, gold,
                                components=parts,
                                combined=tuple(round(c, 4) for c in agg.combined),
                                top_picks=tuple(r.top for r in runs),
                                top_positions=tuple(r.order.index(r.top) for r in runs),
                                failures=failures, k=planned, stop=stop,
                                lengths=item.lengths,
                                winners_by_k=self._winners_by_k(views))

    def _winners_by_k(self, views: list[RunView | None]) -> tuple[tuple[int, ...], ...]:
        """The winners of each shorter prefix of the calls asked, from their runs in plan
        order (None: the call failed); see ListwiseDecision."""
        out: list[tuple[int, ...]] = []
        for k in range(1, len(views)):
            runs = [r for r in views[:k] if r is not None]
            out.append(winners(consensus(runs, weights=self.weights).combined,
                               tolerance=self.tolerance) if runs else ())
        return tuple(out)


@register("direct")
class DirectProtocol(PCFProtocol):
    """One call in the seeded base order (PCF's permutation 0), decided by C_i with K = 1."""

    ARGS = ("seed", "weights", "tolerance", "temperature", "max_tokens", "prompt_version",
            "criteria", "template")
    name = "direct"

    def __init__(self, seed: int = 0, weights: Weights = Weights(), tolerance: float = 0.5,
                 temperature: float = 0.0, max_tokens: int = 1024,
                 prompt_version: int = LISTWISE_PROMPT_VERSION, criteria: str | None = None,
                 template: str | None = None):
        super().__init__(1, seed, weights, tolerance, temperature, max_tokens,
                         prompt_version=prompt_version, criteria=criteria, template=template)

    def params(self) -> dict[str, Any]:
        return {k: v for k, v in super().params().items() if k not in ("k", "adaptive")}
