"""The recorded-judgments model: pairwise judgments already made, in any number of orders.

A :class:`Recording` is what one judge (a model under one prompting strategy) said about the
items of one subset: per item, the label and, per presentation order, the verdict in terms
of the original responses (``"A"``, ``"B"``, ``"tie"``, or None when the judge's text could
not be read), optionally with the judge's raw text. Readers (generic JSONL, LLMBar,
JudgeBench) build recordings; :mod:`jurybox.recorded.scoring` scores them with no model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Label", "Verdict", "LABELS", "VERDICTS", "SHOWN_ORDERS", "RecordedItem",
           "Grouped", "Recording", "shared_items", "shown_first"]

Label = Literal["A", "B", "tie"]
Verdict = Literal["A", "B", "tie"]
#: What a label may be: the better response, or a tie (three-way human labels).
LABELS: tuple[str, ...] = ("A", "B", "tie")
#: What a verdict may be (None, not listed, is an unparsed judgment).
VERDICTS: tuple[str, ...] = ("A", "B", "tie")
#: How an order is written: the responses in the order shown ("AB": A shown first).
SHOWN_ORDERS: tuple[str, ...] = ("AB", "BA")


def shown_first(order: str) -> str:
    """The response shown first in ``order`` (``"AB"`` -> ``"A"``)."""
    return order[0]


@dataclass(frozen=True)
class RecordedItem:
    """One item as one judge judged it.

    Attributes:
        item_id: the item's id (unique within its recording).
        label: ``"A"``, ``"B"`` or ``"tie"``; None: unlabelled (scored for position only,
            never for accuracy).
        verdicts: one per order of the recording, in original-response terms; None =
            the judge's text could not be parsed (a failure, never a score).
        texts: the judge's raw text per order, or None where not recorded.
        systems: the names of the systems that wrote responses A and B, where recorded
            (``jurybox rank`` ranks them); None otherwise.
        lengths: the responses' lengths in characters (A, B), where recorded; None otherwise.
        probabilities: per order, the judge's token probability that original response A is
            the better one, in [0, 1] (from its answer's log-probabilities:
            :func:`~jurybox.parsing.verdict_probability.verdict_probability`), or None where
            not recorded; empty: none recorded.
    """

    item_id: str
    label: Label | None
    verdicts: tuple[Verdict | None, ...]
    texts: tuple[str | None, ...] = ()
    systems: tuple[str, str] | None = None
    lengths: tuple[int, int] | None = None
    probabilities: tuple[float | None, ...] = ()


class Grouped:
    """What every kind of recording (pairwise :class:`Recording`, listwise
    :class:`~jurybox.recorded.listwise.ListwiseRecording`) answers from its ``subset``,
    ``judge``, ``strategy`` and ``items`` fields."""

    subset: str
    judge: str
    strategy: str
    items: tuple

    @property
    def key(self) -> tuple[str, str, str]:
        """(subset, judge, strategy)."""
        return (self.subset, self.judge, self.strategy)

    @property
    def n(self) -> int:
        """Items."""
        return len(self.items)


@dataclass(frozen=True)
class Recording(Grouped):
    """One (subset, judge, strategy): the same judge on every item of the subset.

    Attributes:
        subset: the items' set, e.g. ``"LLMBar/Natural"`` or ``"Processed/MT-Bench"``.
        judge: the judge model, e.g. ``"GPT-4"``.
        strategy: the prompting strategy or protocol, e.g. ``"Vanilla"``.
        orders: the presentation order of each verdict slot, each ``"AB"`` or ``"BA"``
            (LLMBar and JudgeBench: ``("AB", "BA")``); >= 1 orders.
        items: the items, in file order; each has ``len(orders)`` verdicts.
        source: where it was read from (a file, ``file:line``), for messages.
        reference: the source's own statistics where it ships them (LLMBar's
            ``statistics.json``: key -> value as written), else None.
    """

    subset: str
    judge: str
    strategy: str
    orders: tuple[str, ...]
    items: tuple[RecordedItem, ...]
    source: str = ""
    reference: dict | None = field(default=None, compare=False)

    def verdicts(self, order: int) -> list[Verdict | None]:
        """The verdicts of order slot ``order`` (0-based), one per item."""
        return [item.verdicts[order] for item in self.items]


def check_orders(orders: Sequence[str]) -> tuple[str, ...]:
    """``orders`` as a tuple, each ``"AB"`` or ``"BA"``.

    Raises:
        ValueError: empty, or an order that is not ``"AB"``/``"BA"``.
    """
    if not orders:
        raise ValueError("at least one order is needed")
    for o in orders:
        if o not in SHOWN_ORDERS:
            raise ValueError(f"an order is 'AB' or 'BA' (the responses in the order shown), "
                             f"got {o!r:.40}")
    return tuple(orders)


def shared_items(recordings: Sequence[Recording], *, why: str
                 ) -> tuple[list[dict[str, RecordedItem]], tuple[str, ...], dict[str, str]]:
    """The items every recording judged, for several judges of one (subset, strategy).

    Args:
        recordings: the judges' recordings. why: what needs the labels, for the error of an
            unlabelled item (e.g. ``"a jury is scored on labels"``).

    Returns:
        (per recording its items by id, the shared ids in the first recording's order, each
        shared id's label).

    Raises:
        ValueError: no item shared by every recording; a shared item without a label.
        DataError: an item labelled differently in two recordings (file and field).
    """
    from ..errors import DataError

    by_judge = [{i.item_id: i for i in r.items} for r in recordings]
    shared = tuple(i.item_id for i in recordings[0].items
                   if all(i.item_id in b for b in by_judge))
    if not shared:
        raise ValueError(f"no item of {recordings[0].subset!r} was judged by every judge")
    labels: dict[str, str] = {}
    for rec, items in zip(recordings, by_judge):
        for item_id in shared:
            label = items[item_id].label
            if label is None:
                raise ValueError(f"{rec.source}: item {item_id!r} has no label: {why}")
            if labels.setdefault(item_id, label) != label:
                raise DataError(rec.source, f"item {item_id!r} is labelled {label!r} here but "
                                f"{labels[item_id]!r} in another judge's file", field="label")
    return by_judge, shared, labels
