"""Row readers for JSONL, CSV and parquet files, yielding (line, row) with 1-based lines.

Text files are UTF-8, with or without a byte-order mark. Every way a file can be unreadable
(bad bytes, bad JSON, JSON nested too deeply for the parser, an integer too long to convert,
a CSV field over the csv module's size limit) is a DataError naming the file and line. So is a
key repeated within one JSON object (at any depth) or a column name repeated in a CSV header:
readers disagree on which value wins (Python's json and csv keep the last), so the file is
ambiguous and refused rather than read one way silently.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from ..errors import DataError, missing_extra
from .json_line import parse_object_line


class LongNumber:
    """A JSON integer with more digits than Python converts (``sys.get_int_max_str_digits``,
    4300 by default); it fails any type check with a message saying what it is."""

    def __init__(self, digits: str) -> None:
        self.n_digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return f"<a number of {self.n_digits} digits>"


def _parse_int(digits: str) -> int | LongNumber:
    try:
        return int(digits)
    except ValueError:
        return LongNumber(digits)


class _RepeatedKey(ValueError):
    """A key that occurs twice in one JSON object."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` for json: a dict, refusing a repeated key (json keeps the last)."""
    row = dict(pairs)
    if len(row) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return row


#: Longest line a data file may hold, bytes (64 MiB: an item of 26 candidates of 100 kB each
#: is 2.6 MB). A line is read with this limit, so a file without newlines (a 3 GB sparse
#: file, a device) is refused after 64 MiB instead of filling memory.
MAX_LINE_BYTES = 64 * 1024 * 1024


def _raw_lines(path: Path, fh: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, bytes) of each line, each read with :data:`MAX_LINE_BYTES` as
    its limit.

    Raises:
        DataError: a line longer than the limit, or the file cannot be read (an I/O error).
    """
    line_no = 0
    while True:
        try:
            raw = fh.readline(MAX_LINE_BYTES + 1)
        except OSError as exc:
            raise DataError(path, f"cannot be read: {exc.strerror or exc}",
                            line=line_no + 1) from None
        if not raw:
            return
        line_no += 1
        if len(raw) > MAX_LINE_BYTES:
            raise DataError(path, f"line longer than {MAX_LINE_BYTES:,} bytes (64 MiB); is "
                            f"this a data file?", line=line_no)
        yield line_no, raw


def _decode(path: Path, raw: bytes, line_no: int) -> str:
    try:
        return raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start} of the line)",
                        line=line_no) from None


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for each non-blank line.

    Raises:
        DataError: bad bytes, bad JSON (its column and the field it is in; a line cut short:
            "the line ends before the JSON object closes"), a line that is not an object, or
            a key repeated within one object at any depth (``{"gold": 0, "gold": 1}``; field:
            the key).
    """
    with path.open("rb") as fh:
        yield from json_lines(path, fh)


def json_lines(path: Path, fh: BinaryIO) -> Iterator[tuple[int, dict]]:
    """:func:`iter_jsonl` over an open binary file ``fh`` (a gzip stream too) read from
    ``path`` (named in errors). Raises as :func:`iter_jsonl`."""
    for line_no, raw in _raw_lines(path, fh):
        line = _decode(path, raw, line_no)
        if not line.strip():
            continue
        row = parse_object_line(path, line_no, line, parse_int=_parse_int,
                                object_pairs_hook=_unique_keys, repeated=_RepeatedKey)
        if not isinstance(row, dict):
            raise DataError(path, f"expected a JSON object, got {type(row).__name__}",
                            line=line_no)
        yield line_no, row


class _Lines:
    """A binary file's lines as text, counting them (the csv module's own ``line_num`` lags
    behind when it raises)."""

    def __init__(self, path: Path, fh: BinaryIO) -> None:
        self.path, self.fh, self.line = path, fh, 0

    def __iter__(self) -> Iterator[str]:
        for line_no, raw in _raw_lines(self.path, self.fh):
            self.line = line_no
            yield _decode(self.path, raw, line_no)


def iter_csv(path: Path, *, required: Sequence[str] = (),
             missing_hint: str = "") -> Iterator[tuple[int, dict]]:
    """Yield (line, row) for each data row of a CSV file with a header (line 1).

    The line is the row's last physical line (a quoted field may span several).

    Raises:
        DataError: bad bytes, a column name repeated in the header (line 1, field: the
            name), a missing ``required`` column (the message ends with ``missing_hint``), a
            row with more fields than the header,
            or a CSV the csv module cannot read (such as a field longer than its limit,
            ``csv.field_size_limit()``, 131072 characters by default).
    """
    with path.open("rb") as fh:
        lines = _Lines(path, fh)
        reader = csv.DictReader(lines)
        try:
            names = reader.fieldnames or []
            twice = next((c for i, c in enumerate(names) if c in names[:i]), None)
            if twice is not None:
                raise DataError(path, f"column {twice!r:.80} appears twice in the header; give "
                                f"each column once", line=1, field=twice[:80])
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise DataError(path, f"missing column(s) {', '.join(map(repr, missing))}; "
                                f"found {', '.join(map(repr, reader.fieldnames or [])) or 'none'}"
                                f"{missing_hint}", line=1, field=missing[0])
            for row in reader:
                if None in row:
                    raise DataError(path, f"more fields than the header's "
                                    f"{len(reader.fieldnames or [])}", line=reader.line_num)
                yield reader.line_num, row
        except csv.Error as exc:
            raise DataError(path, f"unreadable CSV: {exc}", line=lines.line) from None


def iter_parquet(path: Path) -> Iterator[tuple[int, dict]]:
    """Yield (row number, row dict) from a parquet file (needs the ``parquet`` extra).

    Row numbers are 1-based data rows, reported as "line" in errors.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise missing_extra("pyarrow", "parquet") from None
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise DataError(path, f"not a readable parquet file ({exc})") from None
    for i, row in enumerate(table.to_pylist(), start=1):
        yield i, row


def iter_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """Rows of a .jsonl/.json-lines or .parquet file, by extension."""
    if path.suffix == ".parquet":
        return iter_parquet(path)
    return iter_jsonl(path)


def require_all(path: Path, line: int, row: dict, fields: Sequence[str], what: str) -> None:
    """Raise one DataError naming every one of ``fields`` missing from ``row`` (not the first
    only), what a line of the format needs (``what``: "a JudgeBench pair needs") and the keys
    found."""
    missing = [f for f in fields if f not in row]
    if missing:
        raise DataError(path, f"missing field{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(map(repr, missing))} ({what} {', '.join(fields)}); found "
                        f"{sorted(row)!r:.200}", line=line)


def require(path: Path, line: int, row: dict, field: str, kind: type | tuple = object):
    """Return ``row[field]``, raising DataError if absent or not of ``kind`` (a boolean is
    not an ``int`` here unless ``kind`` names ``bool``)."""
    if field not in row:
        raise DataError(path, f"missing field; found {sorted(row)!r:.200}", line=line,
                        field=field)
    value = row[field]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kind) or (isinstance(value, bool) and int in kinds
                                         and bool not in kinds):
        names = "/".join(k.__name__ for k in kinds)
        raise DataError(path, f"expected {names}, got {value!r:.80}", line=line, field=field)
    return value
