"""Turn items.jsonl decisions into the statistics of summary.json."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from ..datasets import BUCKETS
from ..stats import (accuracy, bucket_accuracy, judgebench_counts, judgebench_vote,
                     order_diagnostics, paired_comparison)

__all__ = ["summarize"]


def summarize(records: Iterable[dict], protocols: Sequence[str], *, item_ids: Iterable[str],
              task: str = "listwise", baseline: str | None = None, seed: int = 0
              ) -> dict[str, Any]:
    """Per-protocol accuracy (tie credit), coverage, failures, order diagnostics, and paired
    comparisons of every protocol against ``baseline`` (default: the first protocol).

    Args:
        records: decisions as stored in items.jsonl (later lines supersede earlier ones).
        protocols: protocol names, in table order.
        item_ids: the items of this run (records of other items are ignored).
        task: ``"listwise"`` or ``"pairwise"`` (pairwise adds bucket accuracy, JudgeBench's
            two-order rule, order consistency and first-position win rate).
    """
    wanted = set(item_ids)
    by_protocol: dict[str, dict[str, dict]] = {p: {} for p in protocols}
    for r in records:
        if r["protocol"] in by_protocol and r["item_id"] in wanted:
            by_protocol[r["protocol"]][r["item_id"]] = r
    baseline = baseline or protocols[0]
    if baseline not in by_protocol:
        raise ValueError(f"baseline {baseline!r} is not among the protocols {list(protocols)}")
    # sorted by item id: the bootstrap must not depend on the order items finished in
    credits = {p: {i: recs[i]["credit"] for i in sorted(recs)} for p, recs in by_protocol.items()}
    out: dict[str, Any] = {"baseline": baseline, "task": task, "protocols": {}}
    for p, recs in by_protocol.items():
        failures = Counter(kind for r in recs.values() for kind in r["failures"])
        entry = {"accuracy": asdict(accuracy(list(credits[p].values()), seed=seed)),
                 "calls_planned": sum(r["n_calls"] for r in recs.values()),
                 "calls_failed": dict(failures),
                 "items_failed": sum(r["credit"] is None for r in recs.values())}
        entry.update(_listwise_extras(recs) if task == "listwise" else _pairwise_extras(recs))
        if p != baseline:
            entry["vs_baseline"] = asdict(paired_comparison(credits[baseline], credits[p],
                                                            seed=seed))
        out["protocols"][p] = entry
    return out


def _listwise_extras(recs: dict[str, dict]) -> dict[str, Any]:
    order = order_diagnostics([r["top_picks"] for r in recs.values()],
                              [r["top_positions"] for r in recs.values()],
                              [r["n_candidates"] for r in recs.values()])
    return {"order": asdict(order)}


def _pairwise_extras(recs: dict[str, dict]) -> dict[str, Any]:
    credits = {i: r["credit"] for i, r in recs.items()}
    buckets = {i: r["bucket"] for i, r in recs.items()}
    extras: dict[str, Any] = {"buckets": asdict(bucket_accuracy(credits, buckets,
                                                                order=BUCKETS))}
    splits = sorted({r["split"] for r in recs.values()})
    if len(splits) > 1:
        extras["splits"] = {s: asdict(bucket_accuracy(
            {i: c for i, c in credits.items() if recs[i]["split"] == s}, buckets,
            order=BUCKETS)) for s in splits}
    shown = [(first, v) for r in recs.values()
             for first, v in zip(r["shown_first"], r["shown_verdicts"]) if v in ("A", "B")]
    extras["first_shown_win_rate"] = (sum(v == "A" for _, v in shown) / len(shown)
                                      if shown else None)
    extras["n_decisive_calls"] = len(shown)
    pairs = [r for r in recs.values() if r.get("consistent") is not None]
    if pairs:  # both-orders: how often the order flips the verdict, and JudgeBench's rule
        extras["order_consistency"] = sum(r["consistent"] for r in pairs) / len(pairs)
        extras["flip_rate"] = 1 - extras["order_consistency"]
        extras["n_both_orders"] = len(pairs)
    if recs and all(r["protocol"] == "both-orders" for r in recs.values()):
        judged = [r for r in recs.values() if r["credit"] is not None]  # failed items: left out
        counts = judgebench_counts(
            judgebench_vote(r["call_verdicts"], "A" if r["label"] == "A>B" else "B")
            for r in judged)
        extras["judgebench_rule"] = {**asdict(counts), "n": counts.n,
                                     "accuracy": counts.accuracy,
                                     "items_failed": len(recs) - len(judged)}
    return extras
