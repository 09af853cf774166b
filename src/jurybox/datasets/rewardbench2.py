"""RewardBench 2 rows (allenai/reward-bench 2) as best-of-N listwise items.

Row schema: ``id, prompt, chosen (list), rejected (list), subset, ...`` (ODC-BY). Candidates are
``chosen + rejected`` in that order, gold = the chosen indices. RewardBench 2 stores the correct
answer first, which is why protocols never show dataset order.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import DataError
from .rows import iter_rows, require
from .validate import IdTracker, check_file, check_name, check_text, make_item
from .items import ListwiseItem

__all__ = ["iter_rewardbench2", "load_rewardbench2"]


def load_rewardbench2(path: str | Path, *, subset: str | None = "Factuality"
                      ) -> list[ListwiseItem]:
    """All items of :func:`iter_rewardbench2`."""
    return list(iter_rewardbench2(path, subset=subset))


def iter_rewardbench2(path: str | Path, *, subset: str | None = "Factuality"
                      ) -> Iterator[ListwiseItem]:
    """Read RewardBench 2 rows from a local .jsonl or .parquet file.

    Args:
        path: the file (parquet needs ``pip install 'jurybox[parquet]'``).
        subset: keep rows whose ``subset`` equals this (e.g. ``"Factuality"``); None keeps all.

    Returns:
        One item per kept row, ``item_id`` = the row's ``id``, group = its subset.

    Raises:
        DataError: missing file or field, a bad or empty id or subset, empty prompt, bad
            text (NUL, lone surrogate), fewer than 2 or more than 26 candidates, duplicate
            id.
    """
    path = check_file(Path(path))
    ids = IdTracker(path)
    for line, row in iter_rows(path):
        row_subset = check_name(path, line, "subset", require(path, line, row, "subset"),
                                integers=False)
        if subset is not None and row_subset != subset:
            continue
        item_id = check_name(path, line, "id", require(path, line, row, "id"))
        chosen = list(require(path, line, row, "chosen", (list, tuple)))
        rejected = list(require(path, line, row, "rejected", (list, tuple)))
        if not chosen:
            raise DataError(path, "no chosen (correct) response", line=line, field="chosen")
        for name, texts in (("chosen", chosen), ("rejected", rejected)):
            for i, text in enumerate(texts):
                if isinstance(text, str):
                    check_text(path, line, f"{name}[{i}]", text)
        ids.add(item_id, line)
        yield make_item(path, line, item_id=item_id, prompt=row.get("prompt"),
                        candidates=chosen + rejected, gold=range(len(chosen)),
                        group=row_subset, candidates_field="chosen/rejected",
                        group_field="subset")
