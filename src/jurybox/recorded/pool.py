"""Subsets pooled: LLMBar Adversarial is four subsets (GPTInst, GPTOut, Manual, Neighbor)
that LLMBar's paper also reports as one set of 319 pairs."""

from __future__ import annotations

from collections.abc import Sequence

from .model import RecordedItem, Recording

__all__ = ["pool_subsets", "POOLED"]

#: Marks a pooled subset's name.
POOLED = " (pooled)"


def pool_subsets(recordings: Sequence[Recording]) -> list[Recording]:
    """A pooled recording per (parent folder, judge, strategy) whose judge and strategy
    cover every subset seen under that parent, when the parent holds two or more subsets.

    ``"LLMBar/Adversarial/GPTInst"`` ... ``".../Neighbor"`` pool into
    ``"LLMBar/Adversarial (pooled)"``; item ids become ``"<child>/<id>"``. Recordings with
    different orders are not pooled. Returns the pooled recordings only (none when no parent
    holds several subsets).
    """
    children: dict[str, set[str]] = {}
    for rec in recordings:
        if "/" in rec.subset:
            parent, child = rec.subset.rsplit("/", 1)
            children.setdefault(parent, set()).add(child)
    pooled = []
    for parent, kids in children.items():
        if len(kids) < 2:
            continue
        by_key: dict[tuple[str, str], list[Recording]] = {}
        for rec in recordings:
            if rec.subset.rsplit("/", 1)[0] == parent and "/" in rec.subset:
                by_key.setdefault((rec.judge, rec.strategy), []).append(rec)
        for (judge, strategy), recs in by_key.items():
            if {r.subset.rsplit("/", 1)[1] for r in recs} != kids or len(recs) != len(kids) \
                    or len({r.orders for r in recs}) != 1:
                continue
            recs = sorted(recs, key=lambda r: r.subset)
            items = tuple(RecordedItem(f"{r.subset.rsplit('/', 1)[1]}/{i.item_id}", i.label,
                                       i.verdicts, i.texts) for r in recs for i in r.items)
            pooled.append(Recording(parent + POOLED, judge, strategy, recs[0].orders, items,
                                    source=parent))
    return pooled
