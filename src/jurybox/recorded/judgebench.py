"""JudgeBench recorded outputs (ScalerLab/JudgeBench ``outputs/``) as a Recording.

Each pair was judged in the original order (A shown first) and swapped (B shown first);
the recording's own decisions (``A>B``, ``B>A``, ``A=B``, null), in each shown order's terms,
are mapped back to the original responses here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..datasets import RecordedPair, load_judgebench_outputs
from .model import RecordedItem, Recording, Verdict

__all__ = ["read_judgebench_outputs", "recording_from_pairs"]

_SHOWN = {"A>B": "A", "B>A": "B", "A=B": "tie"}
_ORDERS = ("AB", "BA")


def _original(decision: str | None, order: str) -> Verdict | None:
    shown = _SHOWN.get(decision) if decision is not None else None
    if shown is None or shown == "tie":
        return shown  # type: ignore[return-value]
    first_better = shown == "A"
    return ("A" if first_better else "B") if order == "AB" else ("B" if first_better
                                                                   else "A")


def recording_from_pairs(pairs: Sequence[RecordedPair], *, subset: str,
                         strategy: str = "recorded") -> Recording:
    """Pairs from :func:`jurybox.datasets.load_judgebench_outputs` as one Recording (judge:
    the pairs' ``judge_name``)."""
    items = tuple(RecordedItem(
        p.pair_id, "A" if p.label == "A>B" else "B",
        tuple(_original(d, o) for d, o in zip(p.decisions, _ORDERS)), p.texts)
        for p in pairs)
    judge = pairs[0].judge_name if pairs and pairs[0].judge_name else "judge"
    return Recording(subset, judge, strategy, _ORDERS, items, source=subset)


def read_judgebench_outputs(path: str | Path, *, strategy: str = "recorded") -> Recording:
    """A JudgeBench outputs .jsonl as a Recording (subset: the file's name).

    Raises:
        DataError: as :func:`jurybox.datasets.load_judgebench_outputs`.
    """
    path = Path(path)
    rec = recording_from_pairs(load_judgebench_outputs(path), subset=path.stem,
                               strategy=strategy)
    return Recording(rec.subset, rec.judge, rec.strategy, rec.orders, rec.items,
                     source=str(path))
