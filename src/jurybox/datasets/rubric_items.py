"""Texts of rated items (for rubric judges): CSV or JSONL with an id and a text per item."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from .rows import iter_csv, iter_jsonl
from .validate import IdTracker, check_file, check_name, check_text

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

    Ids and groups are names (text or an integer, which becomes its decimal text; not blank;
    at most 256 characters); texts must be strings without NUL or lone surrogates.

    Raises:
        DataError: missing file, missing, bad or too long id, missing or non-text text,
            bad text (NUL, lone surrogate), a bad group, unreadable bytes or CSV, duplicate
            id, unknown field.
    """
    from .registry import BUNDLED_ITEMS, resolve_bundled  # registry imports this module

    path = check_file(resolve_bundled(path, BUNDLED_ITEMS))
    items: dict[str, RatedItem] = {}
    ids = IdTracker(path, field="item_id")
    for line, row in iter_csv(path) if path.suffix == ".csv" else iter_jsonl(path):
        field = text_field or next((f for f in _TEXT_FIELDS if f in row), _TEXT_FIELDS[0])
        item_id = check_name(path, line, "item_id", row.get("item_id"))
        text = row.get(field)
        if not isinstance(text, str) or not text.strip():
            raise DataError(path, f"missing, empty or not text (got {text!r:.80})", line=line,
                            field=field)
        check_text(path, line, field, text)
        if row.get("question_text") not in (None, ""):
            question = check_text(path, line, "question_text", row["question_text"])
            text = f"Question: {question}\n\nAnswer: {text}"
        group = row.get(group_field or "group")
        if group_field or group not in (None, ""):
            group = check_name(path, line, group_field or "group", group)
        ids.add(item_id, line)
        items[item_id] = RatedItem(item_id, text, group or None)
    if not items:
        raise DataError(path, "no items")
    return items
