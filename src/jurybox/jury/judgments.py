"""A jury's per-item decisions as a flat table: what ``jurybox judge`` with a jury prints and
writes (``OUT/judgments.csv``), read from the jury's ``OUT/items.jsonl``.

One row per (item, protocol): the jury's decision (listwise: the winners' indices joined with
";"; pairwise: ``A``, ``B`` or ``tie``; empty when no judge decided the item), then each
judge's decision in the same terms (``failed`` when the judge failed the item: no vote).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import discard, write_error

__all__ = ["decision_text", "judgment_rows", "write_jury_judgments"]


def decision_text(record: dict[str, Any]) -> str:
    """One decision (the jury's record or a judge's entry in it) as table text.

    >>> decision_text({"task": "listwise", "failed": False, "winners": [0, 2]})
    '0;2'
    >>> decision_text({"failed": False, "verdict": "tie"}), decision_text({"failed": True})
    ('tie', 'failed')
    """
    if record.get("failed"):
        return "failed"
    if record.get("verdict") is not None:
        return str(record["verdict"])
    winners = record.get("winners")
    return ";".join(str(i) for i in winners) if winners else ""


def judgment_rows(records: Iterable[dict[str, Any]], judges: list[str]) -> list[list[str]]:
    """``[item_id, protocol, jury, <judge>...]`` rows of the jury's items.jsonl records."""
    rows = []
    for r in records:
        entries = r.get("judges") or {}
        rows.append([str(r["item_id"]), str(r["protocol"]), decision_text(r),
                     *(decision_text(entries[j]) if j in entries else "" for j in judges)])
    return rows


def write_jury_judgments(rows: list[list[str]], judges: list[str], out: Path) -> Path:
    """Write ``OUT/judgments.csv`` atomically (a temporary file renamed into place).

    Raises:
        RunWriteError: the file cannot be written; no temporary file is left.
    """
    path, tmp = out / "judgments.csv", out / "judgments.csv.tmp"
    try:
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["item_id", "protocol", "jury", *judges])
            writer.writerows(rows)
        os.replace(tmp, path)
    except OSError as exc:
        discard(tmp)
        raise write_error(path, exc) from None
    return path
