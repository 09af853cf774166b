"""Checks shared by the loaders; each raises DataError naming file, line and field."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import DataError
from .items import ListwiseItem


def check_file(path: Path) -> Path:
    """Return ``path`` if it is a readable file, else raise DataError."""
    if not path.exists():
        raise DataError(path, "file not found")
    if not path.is_file():
        raise DataError(path, "not a file")
    return path


def make_item(path: Path, line: int, *, item_id: str, prompt: object, candidates: list,
              gold: Iterable[int], group: str | None = None,
              prompt_field: str = "prompt", candidates_field: str = "candidates") -> ListwiseItem:
    """Build a ListwiseItem, checking prompt, candidates and gold.

    Raises:
        DataError: empty prompt, fewer than 2 candidates, an empty or non-text candidate,
            or no gold candidate.
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise DataError(path, f"empty prompt (got {prompt!r})", line=line, field=prompt_field)
    if len(candidates) < 2:
        raise DataError(path, f"needs at least 2 candidates, got {len(candidates)}",
                        line=line, field=candidates_field)
    for i, text in enumerate(candidates):
        if not isinstance(text, str) or not text.strip():
            raise DataError(path, f"candidate {i} is empty or not text: {text!r}",
                            line=line, field=candidates_field)
    seen: dict[str, int] = {}
    for i, text in enumerate(candidates):
        if text.strip() in seen:
            raise DataError(path, f"candidates {seen[text.strip()]} and {i} are the same text "
                            f"{text.strip()!r:.60}; credit would be a coin toss",
                            line=line, field=candidates_field)
        seen[text.strip()] = i
    gold_set = frozenset(gold)
    if not gold_set or not all(0 <= g < len(candidates) for g in gold_set):
        raise DataError(path, f"gold indices {sorted(gold_set)!r} must be a non-empty subset of "
                        f"0..{len(candidates) - 1}", line=line, field="gold")
    return ListwiseItem(item_id=item_id, prompt=prompt, candidates=tuple(candidates),
                        gold=gold_set, group=group)


class IdTracker:
    """Raises DataError on the second use of an item id, naming both lines."""

    def __init__(self, path: Path, field: str = "id") -> None:
        self.path, self.field = path, field
        self.seen: dict[str, int] = {}

    def add(self, item_id: str, line: int) -> None:
        if item_id in self.seen:
            raise DataError(self.path, f"duplicate id {item_id!r} (first seen on line "
                            f"{self.seen[item_id]})", line=line, field=self.field)
        self.seen[item_id] = line
