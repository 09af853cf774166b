"""Row readers for JSONL and parquet files, yielding (line, row) with 1-based lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..errors import DataError, missing_extra


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line; DataError on bad JSON."""
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                                line=line_no) from None
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(path, f"invalid JSON: {exc.msg} (column {exc.colno})",
                                line=line_no) from None
            if not isinstance(row, dict):
                raise DataError(path, f"expected a JSON object, got {type(row).__name__}",
                                line=line_no)
            yield line_no, row


def iter_parquet(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield (row number, row dict) from a parquet file (needs the ``parquet`` extra).

    Row numbers are 1-based data rows, reported as "line" in errors.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise missing_extra("pyarrow", "parquet") from None
    table = pq.read_table(path)
    for i, row in enumerate(table.to_pylist(), start=1):
        yield i, row


def iter_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """Rows of a .jsonl/.json-lines or .parquet file, by extension."""
    if path.suffix == ".parquet":
        return iter_parquet(path)
    return iter_jsonl(path)


def require(path: Path, line: int, row: dict, field: str, kind: type | tuple = object):
    """Return ``row[field]``, raising DataError if absent or not of ``kind``."""
    if field not in row:
        raise DataError(path, f"missing field; found {sorted(row)!r}", line=line, field=field)
    value = row[field]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise DataError(path, f"expected {names}, got {value!r:.80}", line=line, field=field)
    return value
