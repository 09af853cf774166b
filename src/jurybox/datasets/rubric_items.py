"""Texts of rated items (for rubric judges): CSV or JSONL with an id and a text per item."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from ._rows import iter_jsonl
from ._validate import IdTracker, check_file

__all__ = ["RatedItem", "load_rated_items"]

_TEXT_FIELDS = ("text", "response")


@dataclass(frozen=True)
class RatedItem:
    """An item raters scored: its text as shown to a judge, and its leave-one-out group."""

    item_id: str
    text: str
    group: str | None = None


def load_rated_items(path: str | Path, *, text_field: str | None = None,
                     group_field: str | None = None) -> dict[str, RatedItem]:
    """Load item texts.

    Args:
        path: CSV (header) or JSONL, with ``item_id`` and a text field, or a bundled set by
            name (``"squality"``).
        text_field: the text column (default: ``text``, else ``response``). When a
            ``question_text`` field exists too, the text is shown as "Question: ... Answer:".
        group_field: column whose value groups items for leave-one-out example selection
            (e.g. SQuALITY's ``passage_id``); default ``group`` when present.

    Raises:
        DataError: missing file, missing id or text, duplicate id, unknown field.
    """
    from .registry import BUNDLED_ITEMS, resolve_bundled  # registry imports this module

    path = check_file(resolve_bundled(path, BUNDLED_ITEMS))
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            rows = [(reader.line_num, row) for row in reader]
    else:
        rows = list(iter_jsonl(path))
    items: dict[str, RatedItem] = {}
    ids = IdTracker(path, field="item_id")
    for line, row in rows:
        field = text_field or next((f for f in _TEXT_FIELDS if f in row), _TEXT_FIELDS[0])
        for name in ("item_id", field) + ((group_field,) if group_field else ()):
            if row.get(name) in (None, ""):
                raise DataError(path, "missing or empty", line=line, field=name)
        item_id, text = str(row["item_id"]), str(row[field])
        if row.get("question_text"):
            text = f"Question: {row['question_text']}\n\nAnswer: {text}"
        group = row.get(group_field or "group")
        ids.add(item_id, line)
        items[item_id] = RatedItem(item_id, text, str(group) if group not in (None, "") else None)
    if not items:
        raise DataError(path, "no items")
    return items
