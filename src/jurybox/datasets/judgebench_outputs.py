"""Recorded judge outputs in JudgeBench's ``outputs/`` format.

Each row is a JudgeBench pair plus ``judge_name`` and ``judgments``: a list of two (original
order, then swapped), each with ``judgment`` (a dict holding the judge's raw text under
``response``; some releases store that dict as a Python-repr string) and ``decision``
(``A>B``, ``B>A``, ``A=B`` or null) in the shown order's terms.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from ._rows import iter_rows, require
from ._validate import IdTracker, check_file
from .judgebench import LABELS, bucket_of

__all__ = ["RecordedPair", "load_judgebench_outputs", "DECISIONS"]

DECISIONS = ("A>B", "B>A", "A=B")


@dataclass(frozen=True)
class RecordedPair:
    """One pair judged in both orders by a recorded judge.

    Attributes:
        texts: raw judge text for (original order, swapped order); '' when absent.
        decisions: the recording's own decisions, in each shown order's terms.
    """

    pair_id: str
    source: str
    bucket: str
    label: str
    judge_name: str
    texts: tuple[str, str]
    decisions: tuple[str | None, str | None]


def _raw_text(path: Path, line: int, judgment: object) -> str:
    if isinstance(judgment, str):
        try:
            judgment = ast.literal_eval(judgment)
        except (ValueError, SyntaxError):
            return judgment  # a plain string is the raw text itself
    if isinstance(judgment, dict):
        text = judgment.get("response", "")
        return text if isinstance(text, str) else ""
    raise DataError(path, f"judgment must be a dict or string, got {type(judgment).__name__}",
                    line=line, field="judgments")


def load_judgebench_outputs(path: str | Path) -> list[RecordedPair]:
    """Load a JudgeBench outputs file.

    Raises:
        DataError: missing file or field, not exactly two judgments, an unknown label or
            decision, duplicate pair_id (file, line, field).
    """
    path = check_file(Path(path))
    pairs, ids = [], IdTracker(path, field="pair_id")
    for line, row in iter_rows(path):
        pair_id = str(require(path, line, row, "pair_id", (str, int)))
        label = require(path, line, row, "label", str)
        if label not in LABELS:
            raise DataError(path, f"label must be one of {LABELS!r}, got {label!r}", line=line,
                            field="label")
        judgments = require(path, line, row, "judgments", list)
        if len(judgments) != 2 or not all(isinstance(j, dict) for j in judgments):
            raise DataError(path, "expected two judgments (original order, swapped)", line=line,
                            field="judgments")
        decisions = tuple(j.get("decision") for j in judgments)
        for d in decisions:
            if d is not None and d not in DECISIONS:
                raise DataError(path, f"decision must be one of {DECISIONS!r} or null, got "
                                f"{d!r}", line=line, field="judgments.decision")
        ids.add(pair_id, line)
        source = require(path, line, row, "source", str)
        pairs.append(RecordedPair(
            pair_id=pair_id, source=source, bucket=bucket_of(source), label=label,
            judge_name=str(row.get("judge_name", "")),
            texts=tuple(_raw_text(path, line, j.get("judgment")) for j in judgments),
            decisions=decisions))  # type: ignore[arg-type]
    return pairs
