"""Recorded pairwise judgments that name their systems, as comparisons (no model call).

The generic recorded format (:mod:`jurybox.recorded.jsonl`) with ``systems`` on every line
(and, optionally, ``lengths``). One judge's verdicts are ranked; a file of several judges
needs ``judge`` to say which.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError, did_you_mean
from ..ranking.comparisons import Comparison, OrderVerdict
from ..recorded.jsonl import read_recorded_jsonl
from ..recorded.model import shown_first

__all__ = ["RecordedComparisons", "recorded_comparisons"]

_SHARE = {"A": 1.0, "B": 0.0, "tie": 0.5}


class RecordedComparisons(list[Comparison]):
    """Comparisons read from a recording, with ``judge`` (whose verdicts) and ``failed``
    (items whose every verdict is null: left out, never a tie)."""

    judge: str = ""
    failed: int = 0


def recorded_comparisons(path: str | Path, judge: str | None = None) -> RecordedComparisons:
    """One judge's recorded verdicts as comparisons: per item, the share of its decided
    orders' verdicts that went to response A (ties half), each order kept.

    Raises:
        DataError: the file (as :func:`~jurybox.recorded.jsonl.read_recorded_jsonl` with
            ``to_rank``: a line without ``systems``, ...).
        ConfigError: several judges and no ``judge``, or an unknown one.
    """
    recordings = read_recorded_jsonl(path, to_rank=True)
    judges = list(dict.fromkeys(r.judge for r in recordings))
    if judge is None and len(judges) > 1:
        raise ConfigError(f"{path} holds {len(judges)} judges ({', '.join(judges[:8])}): say "
                          f"which to rank with --judge NAME")
    name = judge or judges[0]
    if name not in judges:
        raise ConfigError(f"{path} has no judge {name!r}{did_you_mean(name, judges) or ''}; its "
                          f"judges: {', '.join(judges[:8])}")
    out = RecordedComparisons()
    out.judge = name
    for recording in recordings:
        if recording.judge != name:
            continue
        for item in recording.items:
            assert item.systems is not None  # to_rank requires them
            a, b = item.systems
            orders = tuple(OrderVerdict(first=a if shown_first(order) == "A" else b,
                                        outcome=_SHARE[v])
                           for order, v in zip(recording.orders, item.verdicts)
                           if v is not None)
            if not orders:
                out.failed += 1
                continue
            length_a, length_b = item.lengths or (None, None)
            prompt = (item.item_id if len({r.subset for r in recordings}) == 1
                      else f"{recording.subset}/{item.item_id}")
            out.append(Comparison(prompt=prompt, a=a, b=b,
                                  outcome=sum(o.outcome for o in orders) / len(orders),
                                  length_a=length_a, length_b=length_b, orders=orders))
    return out
