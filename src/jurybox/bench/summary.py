"""Turn items.jsonl decisions into the statistics of summary.json."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from ..stats import accuracy, order_diagnostics, paired_comparison

__all__ = ["summarize"]


def summarize(records: Iterable[dict], protocols: Sequence[str], *, item_ids: Iterable[str],
              baseline: str | None = None, seed: int = 0) -> dict[str, Any]:
    """Per-protocol accuracy, coverage, failures and order diagnostics, and paired comparisons
    of every protocol against ``baseline`` (default: the first protocol).

    Args:
        records: decisions as stored in items.jsonl.
        protocols: protocol names, in table order.
        item_ids: the items of this run (records of other items are ignored).
    """
    wanted = set(item_ids)
    by_protocol: dict[str, dict[str, dict]] = {p: {} for p in protocols}
    for r in records:
        if r["protocol"] in by_protocol and r["item_id"] in wanted:
            by_protocol[r["protocol"]][r["item_id"]] = r
    baseline = baseline or protocols[0]
    credits = {p: {i: r["credit"] for i, r in recs.items()} for p, recs in by_protocol.items()}
    out: dict[str, Any] = {"baseline": baseline, "protocols": {}}
    for p, recs in by_protocol.items():
        acc = accuracy(list(credits[p].values()), seed=seed)
        order = order_diagnostics([r["top_picks"] for r in recs.values()],
                                  [r["top_positions"] for r in recs.values()],
                                  [r["n_candidates"] for r in recs.values()])
        failures = Counter(kind for r in recs.values() for kind in r["failures"])
        entry = {"accuracy": asdict(acc), "order": asdict(order),
                 "calls_planned": sum(r["n_calls"] for r in recs.values()),
                 "calls_failed": dict(failures),
                 "items_failed": sum(r["credit"] is None for r in recs.values())}
        if p != baseline:
            entry["vs_baseline"] = asdict(paired_comparison(credits[baseline], credits[p],
                                                            seed=seed))
        out["protocols"][p] = entry
    return out
