"""Turn items.jsonl decisions into the statistics of summary.json: typed, from compact
per-item values (memory grows by a key and a credit per item, not by its record)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..datasets import BUCKETS
from ..rundir import unit_of
from ..reports.curve import CurveCollector, PermutationCurve
from ..stats import (AccuracyResult, BucketAccuracy, LengthBias, LengthTally, OrderDiagnostics,
                     OrderTally, PairedComparison, accuracy, bucket_accuracy, judgebench_vote,
                     paired_comparison)

__all__ = ["BenchSummary", "JudgeBenchRule", "ProtocolSummary", "add_length", "summarize"]


@dataclass(frozen=True)
class JudgeBenchRule:
    """JudgeBench's two-order rule over both-orders decisions (failed items left out)."""

    correct: int
    incorrect: int
    tie: int
    n: int
    accuracy: float
    items_failed: int


@dataclass(frozen=True)
class ProtocolSummary:
    """One protocol's statistics.

    Attributes:
        accuracy: accuracy with tie credit, coverage and a bootstrap CI.
        calls_planned: calls its items planned (shared calls counted for each protocol).
        calls_failed: failed calls by kind (api, parse, refusal).
        items_failed: items without a decision.
        vs_baseline: paired comparison with the baseline protocol (None for the baseline,
            and when no item was judged by both; then ``vs_baseline_skipped`` says why).
        vs_baseline_skipped: why there is no comparison with the baseline, or None.
        order: listwise: how the top pick moves with the shown order.
        buckets, splits: pairwise: accuracy per source bucket (and per split).
        first_shown_win_rate: pairwise: share of decisive calls picking the response shown
            first (0.5 without position bias); n_decisive_calls: those calls.
        order_consistency, flip_rate, n_both_orders: both-orders: how often the two orders
            agree, and on how many items.
        judgebench_rule: both-orders only: JudgeBench's own rule.
        calls_per_item: listwise: calls asked per item, {"mean": ..., "distribution":
            {calls: items}}; ``stops``: items by why asking ended (``all``, ``settled``,
            ``sequential``; adaptive PCF stops early).
        length_bias: how often the decision picks the longest candidate (pairwise: the
            longer response wins), against an unbiased judge and the gold
            (:mod:`jurybox.stats.length`); per item decision, not per call.
        curve: listwise protocols of more than one order (PCF): accuracy on the first k
            orders, k = 1..K (:class:`jurybox.reports.PermutationCurve`); None when a record
            lacks ``winners_by_k`` (written before it existed: the report then computes it
            from the recorded calls).
    """

    accuracy: AccuracyResult
    calls_planned: int
    calls_failed: dict[str, int]
    items_failed: int
    vs_baseline: PairedComparison | None = None
    order: OrderDiagnostics | None = None
    buckets: BucketAccuracy | None = None
    splits: dict[str, BucketAccuracy] | None = None
    first_shown_win_rate: float | None = None
    n_decisive_calls: int | None = None
    order_consistency: float | None = None
    flip_rate: float | None = None
    n_both_orders: int | None = None
    judgebench_rule: JudgeBenchRule | None = None
    vs_baseline_skipped: str | None = None
    calls_per_item: dict[str, Any] | None = None
    stops: dict[str, int] | None = None
    length_bias: LengthBias | None = None
    curve: PermutationCurve | None = None

    def to_json(self) -> dict[str, Any]:
        """Fields that apply (None = does not apply to this task, left out)."""
        out = {k: v for k, v in asdict(self).items() if v is not None}
        if self.buckets is not None:  # a pairwise rate without decisive calls is null, kept
            out.setdefault("first_shown_win_rate", None)
        return out


@dataclass(frozen=True)
class BenchSummary:
    """A bench's summary.json: per-protocol statistics plus what the run was.

    ``labels``: protocol name -> its name in tables (``"both-orders (strict)"``); a name
    without one is its own label. Not written to summary.json (run.json has the params).
    """

    baseline: str
    task: str
    protocols: dict[str, ProtocolSummary]
    n_items: int = 0
    simulated: bool = False
    model: str = ""
    dataset: str = ""
    totals: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False
    labels: dict[str, str] = field(default_factory=dict)

    def label(self, name: str) -> str:
        """Protocol ``name`` as tables show it."""
        return self.labels.get(name, name)

    def to_json(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "task": self.task,
                "protocols": {p: s.to_json() for p, s in self.protocols.items()},
                "n_items": self.n_items, "simulated": self.simulated, "model": self.model,
                "dataset": self.dataset, "totals": self.totals, "replayed": self.replayed}


def latest_records(records: Iterable[dict], wanted: set[str] | None = None) -> Iterator[dict]:
    """Each (unit, protocol)'s last record, in two passes over re-iterable ``records``
    (``wanted``: only these units; None: all).

    A unit is judged again only when its record had a failure (an API error, an unusable
    answer or a refusal: the run directory's writer judges those again, and the runner asks
    again rather than reuse a cached failure), so every record but a key's last has one: only
    those keys are tracked (memory grows with failures, not items).
    """
    seen: Counter[tuple[str, str]] = Counter()
    for r in records:
        key = (unit_of(r), r["protocol"])
        if key in seen or r.get("failures"):
            seen[key] += 1
    passed: Counter[tuple[str, str]] = Counter()
    for r in records:
        key = (unit_of(r), r["protocol"])
        if key in seen:
            passed[key] += 1
            if passed[key] < seen[key]:
                continue
        if wanted is None or key[0] in wanted:
            yield r


def add_length(tally: LengthTally, task: str, decision: dict[str, Any],
               lengths: Sequence[int] | None, gold: Any) -> None:
    """One decision into a length-bias tally (:mod:`jurybox.stats.length`).

    Args:
        decision: an items.jsonl record or a jury's view of one: listwise ``winners`` (empty:
            failed), pairwise ``verdict`` (``A``, ``B``, ``tie`` or None: failed).
        lengths: the candidates' lengths (dataset order); None or empty: not recorded (a
            record written before decisions carried them), counted as unmeasured.
        gold: listwise, the gold indices (empty: none); pairwise, the label (``A>B``,
            ``B>A``; anything else: no gold).
    """
    if task == "listwise":
        picked, gold_set = tuple(decision.get("winners") or ()), tuple(gold or ())
    else:
        verdict = decision.get("verdict")
        if verdict == "tie":
            tally.add_tied()
            return
        picked = () if verdict not in ("A", "B") else (0,) if verdict == "A" else (1,)
        gold_set = {"A>B": (0,), "B>A": (1,)}.get(gold or "", ())
    if not picked:
        tally.add_failed()
    elif not lengths:
        tally.add_unmeasured()
    else:
        tally.add(lengths, picked, gold_set)


class _Tally:
    """Compact per-protocol accumulation."""

    def __init__(self, task: str) -> None:
        self.task = task
        self.credits: dict[str, float | None] = {}
        self.calls_planned = self.items_failed = 0
        self.failures: Counter[str] = Counter()
        self.order = OrderTally()
        self.length = LengthTally()
        self.buckets: dict[str, tuple[str, str]] = {}
        self.shown = self.shown_first_wins = 0
        self.both = self.consistent = 0
        self.rule: Counter[str] = Counter()
        self.rule_failed = 0
        self.all_both_orders = True
        self.calls_used: Counter[int] = Counter()
        self.stops: Counter[str] = Counter()
        self.curve = CurveCollector("", 1)  # listwise: accuracy on the first k orders
        self.curve_complete = True

    def add(self, r: dict) -> None:
        unit = unit_of(r)
        self.credits[unit] = r["credit"]
        self.calls_planned += r["n_calls"]
        self.failures.update(r["failures"])
        self.items_failed += r.get("failed", r["credit"] is None)  # unlabelled: credit None
        add_length(self.length, self.task, r, r.get("lengths"),
                   r.get("gold") if self.task == "listwise" else r.get("label"))
        if self.task == "listwise":
            self.order.add(r["top_picks"], r["top_positions"], r["n_candidates"])
            self.calls_used[r["n_calls"]] += 1
            self.stops[r.get("stop", "all")] += 1
            self._add_to_curve(unit, r)
            return
        self.buckets[unit] = (r["bucket"], r["split"])
        for v in r["shown_verdicts"]:
            if v in ("A", "B"):
                self.shown += 1
                self.shown_first_wins += v == "A"
        if r.get("consistent") is not None:
            self.both += 1
            self.consistent += r["consistent"]
        self.all_both_orders &= r["protocol"] == "both-orders"
        if r["label"] not in ("A>B", "B>A"):  # unlabelled (jurybox judge): no rule to score
            return
        if r["credit"] is None:
            self.rule_failed += 1
        else:
            self.rule[judgebench_vote(r["call_verdicts"], "A" if r["label"] == "A>B" else "B")] += 1

    def _add_to_curve(self, unit: str, r: dict) -> None:
        """A listwise record into the accuracy-vs-k curve (kept when some item planned more
        than one order: PCF)."""
        self.curve.protocol = r["protocol"]
        self.curve.k = max(self.curve.k, int(r.get("k") or 1))
        failed = r.get("failed", r.get("n_ok") == 0)
        if "winners_by_k" not in r and r["n_calls"] > 1 and not failed:
            self.curve_complete = False  # written before the field: the report computes it
        prefix = r.get("winners_by_k") or [()] * max(r["n_calls"] - 1, 0)
        self.curve.add_decision(unit, prefix, None if failed else r["winners"],
                                r.get("gold") or ())

    def summary(self, credits: dict[str, float | None], seed: int,
                vs: PairedComparison | str | None) -> ProtocolSummary:
        """``vs``: the comparison with the baseline, why there is none (str), or None."""
        common = dict(accuracy=accuracy(list(credits.values()), seed=seed),
                      calls_planned=self.calls_planned, calls_failed=dict(self.failures),
                      items_failed=self.items_failed,
                      vs_baseline=None if isinstance(vs, str) else vs,
                      vs_baseline_skipped=vs if isinstance(vs, str) else None,
                      length_bias=self.length.result())
        if self.task == "listwise":
            n = sum(self.calls_used.values())
            per_item = {"mean": sum(k * v for k, v in self.calls_used.items()) / n if n else None,
                        "distribution": dict(sorted(self.calls_used.items()))}
            curve = (self.curve.curve(seed) if self.curve.k > 1 and self.curve_complete
                     else None)
            return ProtocolSummary(**common, order=self.order.result(),  # type: ignore[arg-type]
                                   calls_per_item=per_item, stops=dict(sorted(self.stops.items())),
                                   curve=curve)
        by_bucket = {u: b for u, (b, _) in self.buckets.items()}
        splits = sorted({s for _, s in self.buckets.values()})
        extras: dict[str, Any] = {
            "buckets": bucket_accuracy(credits, by_bucket, order=BUCKETS),
            "splits": {s: bucket_accuracy({u: c for u, c in credits.items()
                                           if self.buckets[u][1] == s}, by_bucket,
                                          order=BUCKETS) for s in splits}
            if len(splits) > 1 else None,
            "first_shown_win_rate": self.shown_first_wins / self.shown if self.shown else None,
            "n_decisive_calls": self.shown}
        if self.both:
            extras.update(order_consistency=self.consistent / self.both,
                          flip_rate=1 - self.consistent / self.both, n_both_orders=self.both)
        if self.credits and self.all_both_orders:
            n = sum(self.rule.values())
            extras["judgebench_rule"] = JudgeBenchRule(
                self.rule["correct"], self.rule["incorrect"], self.rule["tie"], n,
                self.rule["correct"] / n if n else float("nan"), self.rule_failed)
        return ProtocolSummary(**common, **extras)  # type: ignore[arg-type]


def summarize(records: Iterable[dict], protocols: list[str], *,
              item_ids: Iterable[str] | None = None, task: str = "listwise",
              baseline: str | None = None, seed: int = 0) -> BenchSummary:
    """Per-protocol accuracy (tie credit), coverage, failures, order diagnostics, and paired
    comparisons of every protocol against ``baseline`` (default: the first protocol).

    Args:
        records: decisions as stored in items.jsonl, re-iterable (a list, or
            :class:`jurybox.reports.Records`); later lines supersede earlier ones.
        protocols: protocol names, in table order.
        item_ids: the items of this run (records of other items are ignored); None: all.
        task: ``"listwise"`` or ``"pairwise"`` (pairwise adds bucket accuracy, JudgeBench's
            two-order rule, order consistency and first-position win rate). Both get the
            length bias of the decisions.

    A protocol that shares no judged item with the baseline (all its items failed, or all
    the baseline's) gets no comparison: ``vs_baseline`` None and ``vs_baseline_skipped``
    saying why.

    Raises:
        ValueError: ``baseline`` is not among ``protocols``.
    """
    baseline = baseline or protocols[0]
    if baseline not in protocols:
        raise ValueError(f"baseline {baseline!r} is not among the protocols "
                         f"{', '.join(protocols)}")
    tallies = {p: _Tally(task) for p in protocols}
    wanted = None if item_ids is None else set(item_ids)
    for r in latest_records(records, wanted):
        if r["protocol"] in tallies:
            tallies[r["protocol"]].add(r)
    # sorted by item id: the bootstrap must not depend on the order items finished in
    credits = {p: {i: t.credits[i] for i in sorted(t.credits)} for p, t in tallies.items()}
    out = {p: t.summary(credits[p], seed, None if p == baseline else
                        _versus(credits[baseline], credits[p], baseline, p, seed))
           for p, t in tallies.items()}
    return BenchSummary(baseline=baseline, task=task, protocols=out)


def _versus(base: dict[str, float | None], other: dict[str, float | None], baseline: str,
            name: str, seed: int) -> PairedComparison | str:
    """The paired comparison, or why there is none: no item judged by both (every item of
    one failed, or none was judged). Our choice: no comparison row, never a crashed run."""
    if not any(base.get(i) is not None for i, c in other.items() if c is not None):
        return (f"no item judged by both {baseline!r} and {name!r} (judged: "
                f"{sum(c is not None for c in base.values())} and "
                f"{sum(c is not None for c in other.values())})")
    return paired_comparison(base, other, seed=seed)
