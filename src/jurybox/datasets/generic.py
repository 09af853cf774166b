"""Generic listwise JSONL: one object per line with ``id, prompt, candidates, gold``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import DataError
from ._rows import iter_rows, require
from ._validate import IdTracker, check_file, check_name, make_item
from .items import ListwiseItem

__all__ = ["iter_listwise_jsonl", "load_listwise_jsonl"]


def load_listwise_jsonl(path: str | Path) -> list[ListwiseItem]:
    """All items of :func:`iter_listwise_jsonl`."""
    return list(iter_listwise_jsonl(path))


def iter_listwise_jsonl(path: str | Path) -> Iterator[ListwiseItem]:
    """Read ``{"id", "prompt", "candidates": [str, ...], "gold": int | [int, ...],
    "group"?}`` lines, one at a time.

    ``id`` is a string or an integer (which becomes its decimal text), ``group`` a string
    or absent; texts follow the rules of :mod:`jurybox.datasets._validate` (no NUL, no lone
    surrogate; 2 to 26 candidates).

    Raises:
        DataError: missing file or field, bad JSON, a bad or empty id, empty prompt, bad
            text, fewer than 2 or more than 26 candidates, gold out of range, a non-string
            group, duplicate id (file, line, field).
    """
    path = check_file(Path(path))
    ids = IdTracker(path)
    for line, row in iter_rows(path):
        item_id = check_name(path, line, "id", require(path, line, row, "id"))
        candidates = list(require(path, line, row, "candidates", (list, tuple)))
        gold = require(path, line, row, "gold", (int, list, tuple))
        gold = [gold] if isinstance(gold, int) else list(gold)
        if not all(isinstance(g, int) and not isinstance(g, bool) for g in gold):
            raise DataError(path, f"gold must be integer indices, got {gold!r}", line=line,
                            field="gold")
        ids.add(item_id, line)
        yield make_item(path, line, item_id=item_id, prompt=row.get("prompt"),
                        candidates=candidates, gold=gold, group=row.get("group"))
