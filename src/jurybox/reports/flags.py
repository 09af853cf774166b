"""The item browser's flags, from a run's items.jsonl records: one computation gives both the
filter counts (over every item of the run) and the flags each shown item carries.

- ``flipped``: the order changed the judge's answer: listwise, a protocol's top pick differs
  across its successful orders (the record's ``top_picks``); pairwise, some order and its
  reverse (same sample) gave different verdicts
  (:func:`jurybox.protocols.pairwise.orders_disagree`; :attr:`ItemFlags.disagreeing`). The
  same meaning as ``flipped`` in ``jurybox judge``'s judgments.
- ``fixed:P`` / ``regressed:P``: protocol P's credit is above / below the baseline's on the
  item, for each protocol summary.json compares with its baseline (``vs_baseline``): the
  items the summary table's ``+/-`` column counts (both count
  :func:`jurybox.stats.paired_sign` over the latest decisions). A run without a comparison
  (one protocol, a judge run, no summary.json yet) has neither filter.
- ``failed``: a protocol without a decision, or a call without a usable judgment (the
  record's ``failures``).

The flags are what the run decided (its records), as summary.json is; the item's calls,
parsed again with the current parser, are shown beside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..protocols.pairwise import orders_disagree
from ..stats.paired import paired_sign

__all__ = ["FLAG_NAMES", "Comparison", "ItemFlags", "Marks", "filter_names", "flip_marks",
           "item_flags", "marks_of"]

#: The kinds of flag, in display order (``fixed`` and ``regressed`` are per compared
#: protocol: ``fixed:pcf``).
FLAG_NAMES = ("flipped", "fixed", "regressed", "failed")


@dataclass(frozen=True)
class Comparison:
    """The protocols a run compares with its baseline (those with a ``vs_baseline`` in
    summary.json), in table order."""

    baseline: str
    protocols: tuple[str, ...]

    @classmethod
    def of_summary(cls, summary: Mapping[str, Any]) -> Comparison | None:
        """From summary.json as written; None when it compares nothing."""
        protocols = summary.get("protocols")
        baseline = summary.get("baseline")
        if not isinstance(protocols, dict) or not isinstance(baseline, str):
            return None
        compared = tuple(name for name, s in protocols.items() if name != baseline
                         and isinstance(s, dict) and isinstance(s.get("vs_baseline"), dict)
                         and s["vs_baseline"].get("n"))
        return cls(baseline, compared) if compared else None


def filter_names(comparison: Comparison | None) -> tuple[str, ...]:
    """The filters of a run's item browser, in display order."""
    compared = comparison.protocols if comparison is not None else ()
    return ("flipped", *(f"fixed:{p}" for p in compared),
            *(f"regressed:{p}" for p in compared), "failed")


@dataclass(frozen=True)
class ItemFlags:
    """An item's flags (see the module docstring); ``fixed`` and ``regressed`` name the
    protocols; ``disagreeing``: pairwise, what ``flipped`` means there."""

    flipped: bool = False
    failed: bool = False
    disagreeing: bool = False
    fixed: tuple[str, ...] = ()
    regressed: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        """The flags set, in :func:`filter_names` order (``flipped``, ``fixed:pcf``, ...)."""
        return (*(("flipped",) if self.flipped else ()), *(f"fixed:{p}" for p in self.fixed),
                *(f"regressed:{p}" for p in self.regressed),
                *(("failed",) if self.failed else ()))


class Marks(NamedTuple):
    """What the flags need of one protocol's decision on an item (its latest record).

    Attributes:
        credit: the decision's credit (None: failed or unlabelled).
        failed: no decision, or a call without a usable judgment.
        flipped: listwise: the top pick changed across orders; pairwise: as ``disagreeing``.
        disagreeing: pairwise: an order and its reverse disagree.
        n_calls: calls asked.
        disagreement: listwise: share of successful orders whose top pick is not a winner
            (None: no decision or no successful order).
    """

    credit: float | None
    failed: bool
    flipped: bool
    disagreeing: bool
    n_calls: int
    disagreement: float | None


def marks_of(record: Mapping[str, Any], task: str) -> Marks:
    """The marks of an items.jsonl record (listwise or pairwise)."""
    credit = record.get("credit")
    credit = float(credit) if isinstance(credit, (int, float)) else None
    decided = not record["failed"] if "failed" in record else credit is not None
    failed = not decided or bool(record.get("failures"))
    n_calls = int(record.get("n_calls") or 0)
    if task == "pairwise":
        disagree = orders_disagree(record.get("call_ids") or (), record.get("shown_first") or (),
                                   record.get("call_verdicts") or ())
        return Marks(credit, failed, disagree, disagree, n_calls, None)
    picks, won = tuple(record.get("top_picks") or ()), set(record.get("winners") or ())
    share = sum(p not in won for p in picks) / len(picks) if picks and won else None
    return Marks(credit, failed, len(set(picks)) > 1, False, n_calls, share)


def item_flags(marks: Mapping[str, Marks], comparison: Comparison | None) -> ItemFlags:
    """An item's flags from its protocols' marks (protocol name -> :class:`Marks`)."""
    fixed: list[str] = []
    regressed: list[str] = []
    if comparison is not None and comparison.baseline in marks:
        base = marks[comparison.baseline].credit
        for name in comparison.protocols:
            sign = paired_sign(base, marks[name].credit) if name in marks else None
            if sign == 1:
                fixed.append(name)
            elif sign == -1:
                regressed.append(name)
    values = marks.values()
    return ItemFlags(flipped=any(m.flipped for m in values), failed=any(m.failed for m in values),
                     disagreeing=any(m.disagreeing for m in values), fixed=tuple(fixed),
                     regressed=tuple(regressed))


def flip_marks(marks: Mapping[str, Marks]) -> Marks | None:
    """The protocol whose order effects the flip-rate chart shows: ``pcf``, else the first
    one that asked more than one order."""
    return marks.get("pcf") or next((m for m in marks.values() if m.n_calls > 1), None)
