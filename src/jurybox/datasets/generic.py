"""Generic listwise JSONL: one object per line with ``id, prompt, candidates, gold``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import DataError
from ._rows import iter_rows, require
from ._validate import IdTracker, check_file, make_item
from .items import ListwiseItem

__all__ = ["iter_listwise_jsonl", "load_listwise_jsonl"]


def load_listwise_jsonl(path: str | Path) -> list[ListwiseItem]:
    """All items of :func:`iter_listwise_jsonl`."""
    return list(iter_listwise_jsonl(path))


def iter_listwise_jsonl(path: str | Path) -> Iterator[ListwiseItem]:
    """Read ``{"id", "prompt", "candidates": [str, ...], "gold": int | [int, ...],
    "group"?}`` lines, one at a time.

    Raises:
        DataError: missing file or field, bad JSON, empty prompt, fewer than 2 candidates,
            gold out of range, duplicate id (file, line, field).
    """
    path = check_file(Path(path))
    ids = IdTracker(path)
    for line, row in iter_rows(path):
        item_id = str(require(path, line, row, "id", (str, int)))
        candidates = list(require(path, line, row, "candidates", (list, tuple)))
        gold = require(path, line, row, "gold", (int, list, tuple))
        gold = [gold] if isinstance(gold, int) else list(gold)
        if not all(isinstance(g, int) and not isinstance(g, bool) for g in gold):
            raise DataError(path, f"gold must be integer indices, got {gold!r}", line=line,
                            field="gold")
        ids.add(item_id, line)
        yield make_item(path, line, item_id=item_id, prompt=row.get("prompt"),
                        candidates=candidates, gold=gold, group=row.get("group"))
