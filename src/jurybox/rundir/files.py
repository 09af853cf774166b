"""The run directory's files, read and written: JSON lines read back one record at a time
(a line cut short by a crash is dropped), JSON and text written atomically (temp file +
rename), run.json read with errors that name it.

Every record carries ``schema`` = :data:`SCHEMA_VERSION`.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import DataError
from .layout import MANIFEST_FILE

__all__ = ["Records", "SCHEMA_VERSION", "iter_records", "previous_sessions",
           "read_jsonl", "read_manifest", "unit_of", "write_json_atomic", "write_text_atomic"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1


def _finite(value: Any) -> Any:
    """Replace NaN/inf floats with None (strict JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` via a temporary file and rename: never a half-written
    file (the HTML report, the index of runs).

    Raises:
        RunWriteError: the file cannot be written (a read-only folder, a full disk, a directory
            in its place), naming it; no temporary file is left.
    """
    from ..errors import discard, write_error

    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        discard(tmp)
        raise write_error(path, exc) from None


def write_json_atomic(path: Path, value: Any) -> None:
    """Write strict JSON (NaN as null) to ``path`` via a temp file and rename (never a
    half-written file)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(_finite(value), indent=2, ensure_ascii=False, default=str,
                              allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def drop_partial_tail(path: Path) -> None:
    """Cut a last line that a crash left without its newline, so appends start clean."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        fh.seek(0)
        data = fh.read()
        fh.truncate(data.rfind(b"\n") + 1)


def iter_records(path: Path, skipped: list[int] | None = None) -> Iterator[dict]:
    """Records (JSON objects) of a JSONL file, one at a time; a line that is not a JSON object
    (a write cut short by a crash, bad bytes) is skipped, and its 1-based number appended to
    ``skipped`` when given. Blank lines are ignored. A missing file yields nothing."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # bad JSON or bytes; nested too deeply
                record = None
            if isinstance(record, dict):
                yield record
            elif skipped is not None:
                skipped.append(line_no)


class Records:
    """A JSONL file's records, re-iterable: each iteration reads the file anew, line by line
    (for summaries that pass over items.jsonl twice without holding it).

    Attributes:
        skipped: line numbers the latest iteration skipped (see :func:`iter_records`).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped: list[int] = []

    def __iter__(self) -> Iterator[dict]:
        self.skipped = []
        return iter_records(self.path, self.skipped)


def read_jsonl(path: Path) -> list[dict]:
    """All records of a JSONL file (see :func:`iter_records`)."""
    return list(iter_records(path))


def unit_of(record: dict) -> str:
    """The unit key of an items.jsonl record: ``unit`` (rubric judges: ``rater|item``), else
    ``item_id`` (listwise and pairwise items; rubric records before schema 2)."""
    return str(record.get("unit") or record["item_id"])


def read_manifest(path: Path) -> dict[str, Any] | None:
    """run.json as a dict, or None when there is none.

    Raises:
        DataError: the file is not a JSON object (corrupt, ``null``, cut short).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, f"cannot read run.json: {exc}") from None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DataError(path, f"is not valid JSON ({exc}); it was changed outside jurybox: "
                              f"restore it, or delete the run directory to start over") from None
    if not isinstance(value, dict):
        raise DataError(path, f"must be a JSON object written by jurybox, got "
                              f"{type(value).__name__}; delete the run directory to start over")
    return value


def previous_sessions(folder: str | Path) -> int:
    """How many sessions ``folder``'s run.json records (0 when there is none or it is
    unreadable): the simulated judge keys its injected API faults by it."""
    try:
        manifest = read_manifest(Path(folder) / MANIFEST_FILE)
    except DataError:
        return 0
    sessions = (manifest or {}).get("sessions")
    return len(sessions) if isinstance(sessions, list) else 0
