"""TruthfulQA (Lin et al., 2022) as best-of-N listwise items.

Source: sylinrl/TruthfulQA, TruthfulQA.csv (Apache-2.0). An item is the best answer (gold) plus
the best incorrect answer plus further distinct incorrect answers, up to n candidates in all.
Dataset order puts the gold first; protocols always shuffle before showing (see
``protocols.permutations.base_order``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import ConfigError, DataError
from .rows import iter_csv
from .validate import MAX_CANDIDATES, IdTracker, check_file, check_text, make_item
from .items import ListwiseItem

__all__ = ["iter_truthfulqa", "load_truthfulqa", "TRUTHFULQA_COLUMNS"]

TRUTHFULQA_COLUMNS = ("Question", "Best Answer", "Best Incorrect Answer", "Incorrect Answers")


#: Said when a .csv lacks TruthfulQA's columns: a .csv is read as TruthfulQA's format.
_NOT_TRUTHFULQA = ("; a .csv file is read as TruthfulQA's CSV: for your own candidates use "
                   "JSON lines, {\"id\": ..., \"prompt\": ..., \"candidates\": [...]} a line")


def load_truthfulqa(path: str | Path, *, n: int = 4) -> list[ListwiseItem]:
    """All items of :func:`iter_truthfulqa`."""
    return list(iter_truthfulqa(path, n=n))


def iter_truthfulqa(path: str | Path, *, n: int = 4) -> Iterator[ListwiseItem]:
    """Read TruthfulQA.csv, one row at a time, as listwise items with up to ``n`` candidates each.

    Args:
        path: the CSV (columns include Question, Best Answer, Best Incorrect Answer,
            Incorrect Answers; incorrect answers separated by ``"; "``).
        n: candidates per item, 2 to 26. Questions with fewer distinct answers get fewer.

    Returns:
        Items with ids ``tqa-<row>`` (0-based data row), gold = {0}, group = Category.

    Raises:
        DataError: missing file or columns, bad bytes or CSV, a row with more fields than
            the header, empty question or answer, bad text (NUL) (file, line, field).
        ConfigError: n outside 2..26.
    """
    if not 2 <= n <= MAX_CANDIDATES:
        raise ConfigError(f"n (candidates per TruthfulQA item) must be 2 to {MAX_CANDIDATES}, "
                          f"got {n!r}")
    path = check_file(Path(path))
    ids = IdTracker(path, field="Question")
    for row_no, (line, row) in enumerate(iter_csv(path, required=TRUTHFULQA_COLUMNS,
                                                      missing_hint=_NOT_TRUTHFULQA)):
        for column in (*TRUTHFULQA_COLUMNS, "Category"):
            if row.get(column):
                check_text(path, line, column, row[column])
        best = (row["Best Answer"] or "").strip()
        wrong = [(row["Best Incorrect Answer"] or "").strip()]
        for text in (row["Incorrect Answers"] or "").split(";"):
            text = text.strip()
            if text and text not in wrong and text != best:
                wrong.append(text)
        if not best:
            raise DataError(path, "empty best answer", line=line, field="Best Answer")
        if not wrong[0]:
            raise DataError(path, "empty best incorrect answer", line=line,
                            field="Best Incorrect Answer")
        question = row["Question"]
        ids.add((question or "").strip(), line)
        yield make_item(path, line, item_id=f"tqa-{row_no}", prompt=question,
                        candidates=[best, *wrong][:n], gold=[0],
                        group=row.get("Category") or None, prompt_field="Question",
                        candidates_field="Incorrect Answers", group_field="Category")
