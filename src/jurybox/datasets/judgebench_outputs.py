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
from .rows import iter_rows, require
from .validate import IdTracker, check_file, check_name, check_text
from .judgebench import LABELS, bucket_of

__all__ = ["RecordedPair", "load_judgebench_outputs", "DECISIONS", "REQUIRED_OUTPUTS"]

DECISIONS = ("A>B", "B>A", "A=B")
#: Fields every line of an outputs file must have.
REQUIRED_OUTPUTS = ("pair_id", "source", "label", "judgments")
#: What ``jurybox score`` takes, for the error on a file that is not an outputs file.
ACCEPTS = ("jurybox score takes a jurybox run directory or a JudgeBench outputs .jsonl, each "
           "line a pair with pair_id, source, label (A>B or B>A) and judgments: two objects "
           "(original order, swapped), each with judgment ({'response': the judge's raw "
           "text}) and decision (A>B, B>A, A=B or null)")


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


def _raw_text(path: Path, line: int, k: int, judgment: object) -> str:
    field = f"judgments[{k}].judgment"
    if isinstance(judgment, str):
        try:
            judgment = ast.literal_eval(judgment)
        except (ValueError, SyntaxError):
            raise DataError(path, "a string judgment must be the Python repr of a dict with "
                            "'response'", line=line, field=field) from None
    if not isinstance(judgment, dict):
        raise DataError(path, f"must be an object with 'response', got "
                        f"{type(judgment).__name__}", line=line, field=field)
    text = judgment.get("response")
    if not isinstance(text, str):
        raise DataError(path, f"'response' must be the judge's raw text, got {text!r:.40}",
                        line=line, field=f"{field}.response")
    return check_text(path, line, f"{field}.response", text)


def load_judgebench_outputs(path: str | Path) -> list[RecordedPair]:
    """Load a JudgeBench outputs file.

    Raises:
        DataError: missing file or field (a line without the required fields says what
            ``jurybox score`` accepts), a bad or empty pair_id, not exactly two
            judgments, a judgment without the raw text, bad text (NUL, lone surrogate), an
            unknown label or decision, duplicate pair_id, no pairs (file, line, field).
    """
    path = check_file(Path(path))
    pairs, ids = [], IdTracker(path, field="pair_id")
    for line, row in iter_rows(path):
        missing = [f for f in REQUIRED_OUTPUTS if f not in row]
        if missing:
            listwise = "candidates" in row or "prompt" in row
            raise DataError(path, f"not a JudgeBench outputs file: missing "
                            f"{', '.join(map(repr, missing))}"
                            + ("; it looks like a listwise dataset (judge it with jurybox "
                               "bench)" if listwise else "") + f". {ACCEPTS}", line=line)
        pair_id = check_name(path, line, "pair_id", require(path, line, row, "pair_id"))
        label = require(path, line, row, "label", str)
        if label not in LABELS:
            raise DataError(path, f"label must be one of {', '.join(LABELS)}, got {label!r}",
                            line=line, field="label")
        judgments = require(path, line, row, "judgments", list)
        if len(judgments) != 2:
            raise DataError(path, f"expected two judgments (original order, swapped), got "
                            f"{len(judgments)}", line=line, field="judgments")
        for k, j in enumerate(judgments):
            if not isinstance(j, dict) or "judgment" not in j:
                raise DataError(path, "each judgment must be an object with 'judgment' and "
                                "'decision'", line=line, field=f"judgments[{k}]")
        decisions = tuple(j.get("decision") for j in judgments)
        for d in decisions:
            if d is not None and d not in DECISIONS:
                raise DataError(path, f"decision must be one of {', '.join(DECISIONS)} or null, "
                                f"got {d!r}", line=line, field="judgments.decision")
        ids.add(pair_id, line)
        source = check_text(path, line, "source", require(path, line, row, "source", str))
        pairs.append(RecordedPair(
            pair_id=pair_id, source=source, bucket=bucket_of(source), label=label,
            judge_name=check_text(path, line, "judge_name", row.get("judge_name", "")),
            texts=(_raw_text(path, line, 0, judgments[0]["judgment"]),
                   _raw_text(path, line, 1, judgments[1]["judgment"])),
            decisions=decisions))
    if not pairs:
        raise DataError(path, "no pairs in the file")
    return pairs
