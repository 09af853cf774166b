"""Read a run directory's lines by key without holding them: byte offsets of items.jsonl
and calls.jsonl lines grouped by item (one pass each), the lines at those offsets read one at
a time, and run.json with summary.json checked field by field.

calls.jsonl is indexed reading each line's item id from the start of the line as
:class:`~.writer.RunDir` writes it (a line written otherwise is parsed whole), so the raw
texts are never parsed but for the lines asked for."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import DataError, as_json
from .files import read_manifest
from .layout import MANIFEST_FILE, SUMMARY_FILE

__all__ = ["RunFiles", "call_offsets", "iter_lines_at", "line_offsets", "read_lines_at",
           "read_run_files"]


def _offsets_by(path: Path, key_of: Callable[[bytes], Any]) -> dict[str, list[int]]:
    """Byte offsets of ``path``'s lines grouped by ``key_of(line)`` (None or "": skipped),
    keys in first-seen order; {} when the file is absent."""
    out: dict[str, list[int]] = {}
    if not path.is_file():
        return out
    with path.open("rb") as fh:
        offset = 0
        for line in fh:
            start, offset = offset, offset + len(line)
            k = key_of(line)
            if k not in (None, ""):
                out.setdefault(str(k), []).append(start)
    return out


def line_offsets(path: Path, key: Any) -> dict[str, list[int]]:
    """Byte offsets of each JSON line of ``path`` by ``key(record)`` (skipping lines that are
    not JSON objects or have no key), keys in first-seen order."""
    def key_of(line: bytes) -> Any:
        try:
            record = json.loads(line)
            return key(record) if isinstance(record, dict) else None
        except (ValueError, RecursionError, KeyError, TypeError):
            return None

    return _offsets_by(path, key_of)


#: The start of a calls.jsonl line as :class:`~.rundir.RunDir` writes it, up to the item id
#: (a JSON string: group 1).
_CALL_HEAD = re.compile(rb'\{"schema": \d+, "session": \d+, "key": "[^"\\]*", '
                        rb'"meta": \{"item_id": ("(?:[^"\\\n]|\\.)*")')


def _call_item(line: bytes) -> str | None:
    """The item id of a calls.jsonl line: read from the line's start when it has jurybox's
    layout, else from the whole line parsed (None: not a JSON object, or no item id)."""
    head = _CALL_HEAD.match(line)
    try:
        if head is not None:
            quoted = head.group(1)  # without an escape the JSON string is its UTF-8 bytes
            return (quoted[1:-1].decode() if b"\\" not in quoted
                    else str(json.loads(quoted)))
        record = json.loads(line)
        item = (record.get("meta") or {}).get("item_id") if isinstance(record, dict) else None
    except (ValueError, RecursionError, AttributeError):  # bad bytes too
        return None
    return None if item in (None, "") else str(item)


def call_offsets(path: Path) -> dict[str, list[int]]:
    """Byte offsets of calls.jsonl's lines by item id (see :func:`_call_item`)."""
    return _offsets_by(path, _call_item)


def iter_lines_at(path: Path, offsets: Iterable[int]) -> Iterator[dict[str, Any]]:
    """The JSON objects of ``path``'s lines starting at ``offsets`` (from
    :func:`line_offsets` or :func:`call_offsets`), in that order, read one at a time; a line
    that is not a JSON object (cut short by a crash, or still being written) is skipped."""
    offsets = list(offsets)
    if not offsets:  # nothing to read: the file may be absent (calls.jsonl deleted)
        return
    with path.open("rb") as fh:
        for offset in offsets:
            fh.seek(offset)
            try:
                record = json.loads(fh.readline())
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict):
                yield record


def read_lines_at(path: Path, offsets: Iterable[int]) -> list[dict[str, Any]]:
    return list(iter_lines_at(path, offsets))


#: Fields the views read, and the JSON types they must have when present (null is allowed).
_MANIFEST_SHAPE: dict[str, type | tuple[type, ...]] = {
    "dataset": dict, "config": dict, "model": dict, "protocols": list, "sessions": list,
    "command": list, "kind": str, "status": str, "seed": int}
_SUMMARY_SHAPE: dict[str, type | tuple[type, ...]] = {
    "protocols": dict, "task": str, "judge": dict, "groups": list}


def _check_shape(path: Path, values: dict[str, Any],
                 shape: dict[str, type | tuple[type, ...]]) -> None:
    """DataError naming the file and field when a field the report reads has another JSON
    type (a hand-edited file), instead of a traceback deep in the views."""
    for name, kind in shape.items():
        value = values.get(name)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            wanted = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise DataError(path, f"must be a JSON {_JSON_NAMES.get(wanted, wanted)}, got "
                            f"{as_json(value)}", field=name)


_JSON_NAMES = {"dict": "object", "list": "array", "str": "string", "int": "integer"}


class RunFiles(NamedTuple):
    """A run directory's run.json (``manifest``) and summary.json (``summary``: {} when
    absent or unreadable, as for a run interrupted before its end)."""

    manifest: dict[str, Any]
    summary: dict[str, Any]


def read_run_files(path: str | Path) -> RunFiles:
    """run.json and summary.json of the run directory ``path``, checked as
    :class:`~jurybox.reports.RunReader` checks them, without indexing items.jsonl and
    calls.jsonl (two small files: cheap enough to list many runs).

    Raises:
        DataError: no run.json, run.json unreadable, or a field the report reads of another
            JSON type in either file (naming the file and field).
    """
    path = Path(path)
    manifest = read_manifest(path / MANIFEST_FILE)
    if manifest is None:
        raise DataError(path, "not a jurybox run directory (no run.json)")
    _check_shape(path / MANIFEST_FILE, manifest, _MANIFEST_SHAPE)
    summary = _read_summary(path / SUMMARY_FILE)
    _check_shape(path / SUMMARY_FILE, summary, _SUMMARY_SHAPE)
    for name, entry in (summary.get("protocols") or {}).items():
        if not isinstance(entry, dict):
            raise DataError(path / SUMMARY_FILE, f"must be a JSON object, got {as_json(entry)}",
                            field=f"protocols.{name}"[:80])
    return RunFiles(manifest, summary)


def _read_summary(path: Path) -> dict[str, Any]:
    """summary.json as an object; {} when absent (a run interrupted before its end).

    Raises:
        DataError: present but not a JSON object (cut short, bad bytes, hand-edited): the
            rerun of the run's command writes it again.
    """
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise DataError(path, f"cannot be read: {exc.strerror or exc}") from None
    try:
        summary = json.loads(text.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        summary = None
    if not isinstance(summary, dict):
        raise DataError(path, "is damaged (not a JSON object); rerun the command that made "
                        "the run to write it again (no model calls: its answers are recorded)")
    return summary
