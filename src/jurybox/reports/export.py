"""Flat tables of a run directory: one row per item record, one row per model call.

:func:`export_run` reads a run directory (``run.json``, ``items.jsonl``, ``calls.jsonl``, as
:class:`~jurybox.rundir.RunDir` writes them) and writes two tables to ``out``:

- ``items.<ext>``: one row per (unit, protocol) decision, the latest one when a resume judged
  a unit again (as summaries count it). Columns: every field of the record (``schema``
  dropped), in the order of :data:`ITEM_COLUMNS_FIRST` then first appearance. Candidate
  indices (``winners``, ``gold``, ``top_picks``) count from 0 in the dataset's order;
  ``top_positions`` are shown positions (0 = A). Rubric records spread ``dimensions`` into
  ``<dimension>.<field>`` columns (``overall.score``, ``overall.status``, ...). Two derived
  columns for listwise records: ``n_winners`` and ``flipped`` (the top pick was not the same
  in every successful order; empty with fewer than two).
  With ``texts`` (the default) a listwise or pairwise run's rows also carry ``prompt``,
  ``candidates`` (the texts by index) and ``winner_text`` (the one winner's text; empty for
  a tie, several winners or a failed item), read from the run's dataset file when it is
  unchanged, else from a recorded prompt (as ``jurybox show`` reads them).
- ``calls.<ext>``: one row per logged call (cached ones included: ``cached`` says which).
  Columns: :data:`CALL_COLUMNS_FIRST` (``meta`` and ``usage`` lifted to the top level:
  ``item_id``, ``calls`` (the protocol/permutation names the call served), ``order``,
  ``reask``, ``prompt_tokens``...), then any further fields (rubric calls: ``rater_id``,
  ``dimension``, ``condition``, ``examples``...). ``text`` is the raw judge text and
  ``messages`` the prompt as ``[[role, content], ...]``.

Values: numbers, booleans and text as they are; a missing value is empty (CSV) or null; a
list or object (``winners``, ``combined``, ``messages``...) is JSON text in CSV and parquet
(``json.loads`` it) and a JSON value in jsonl. csv and jsonl are streamed (two passes over
each file: columns, then rows); parquet is written in row groups of :data:`BATCH_ROWS`.
Each table is written to a temporary file and renamed, so a failed export leaves no half
table.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError, DataError, discard, missing_extra, write_error
from ..rundir import iter_records, read_manifest, unit_of

__all__ = ["ExportFormat", "ExportResult", "EXPORT_FORMATS", "export_run", "item_row",
           "write_table", "check_export_format", "make_export_folder",
           "call_row", "ITEM_COLUMNS_FIRST", "CALL_COLUMNS_FIRST"]

ExportFormat = Literal["csv", "parquet", "jsonl"]
EXPORT_FORMATS: tuple[str, ...] = ("csv", "parquet", "jsonl")

#: Per-item columns that come first when present; the rest follow in order of appearance.
ITEM_COLUMNS_FIRST = ("item_id", "unit", "rater_id", "protocol", "judge", "k", "failed",
                      "credit", "winners", "n_winners", "gold", "verdict", "label", "flipped",
                      "prompt", "winner_text", "candidates")
#: Per-call columns that come first when present.
CALL_COLUMNS_FIRST = ("session", "item_id", "calls", "order", "reask", "cached", "outcome",
                      "attempts", "finish_reason", "error", "parse_error", "prompt_tokens",
                      "completion_tokens", "cached_tokens", "latency_s", "answer_format",
                      "format_refused", "key", "text", "messages")
#: Rows per parquet row group (memory: one group at a time).
BATCH_ROWS = 2000


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export_run` wrote.

    Attributes:
        items, calls: the two table files.
        n_items, n_calls: their rows.
        skipped: per source file name, 1-based lines that were not JSON objects (a write cut
            short by a crash) and were left out.
    """

    items: Path
    calls: Path
    n_items: int
    n_calls: int
    skipped: dict[str, list[int]] = field(default_factory=dict)


def item_row(record: dict[str, Any]) -> dict[str, Any]:
    """The per-item table row of one items.jsonl record (see the module docstring).

    >>> item_row({"schema": 1, "item_id": "q1", "protocol": "pcf", "winners": [0],
    ...           "top_picks": [0, 2, 0]})
    {'item_id': 'q1', 'protocol': 'pcf', 'winners': [0], 'top_picks': [0, 2, 0], \
'n_winners': 1, 'flipped': True}
    """
    row: dict[str, Any] = {}
    for key, value in record.items():
        if key == "schema":
            continue
        if key == "dimensions" and isinstance(value, dict):
            for dimension, result in value.items():
                if isinstance(result, dict):
                    row.update({f"{dimension}.{k}": v for k, v in result.items()})
                else:
                    row[f"dimensions.{dimension}"] = result
            continue
        row[key] = value
    if isinstance(record.get("winners"), list):
        row["n_winners"] = len(record["winners"])
    picks = record.get("top_picks")
    if isinstance(picks, list):
        picks = [p for p in picks if p is not None]
        row["flipped"] = len(set(picks)) > 1 if len(picks) >= 2 else None
    return row


def call_row(record: dict[str, Any]) -> dict[str, Any]:
    """The per-call table row of one calls.jsonl record: ``meta`` and ``usage`` lifted to the
    top level (a meta field named like a top-level one is kept as ``meta.<name>``).

    >>> call_row({"schema": 1, "session": 0, "meta": {"item_id": "q1", "reask": 0},
    ...           "usage": {"prompt_tokens": 9}, "text": "{}"})
    {'session': 0, 'text': '{}', 'item_id': 'q1', 'reask': 0, 'prompt_tokens': 9}
    """
    row = {k: v for k, v in record.items() if k not in ("schema", "meta", "usage")}
    for nested in ("meta", "usage"):
        values = record.get(nested)
        if isinstance(values, dict):
            for k, v in values.items():
                row[f"{nested}.{k}" if k in row else k] = v
    return row


def _latest_items(path: Path, skipped: list[int],
                  texts: dict[str, tuple[str, tuple[str, ...]]]) -> Iterator[dict[str, Any]]:
    """items.jsonl rows, keeping only the last record of each (unit, protocol): a unit judged
    again on a resume supersedes its earlier line. Holds one line number per key."""
    last: dict[tuple[str, str], int] = {}
    for index, record in enumerate(iter_records(path, skipped)):
        last[(_unit(record), str(record.get("protocol")))] = index
    keep = set(last.values())
    for index, record in enumerate(iter_records(path)):
        if index in keep:
            row = item_row(record)
            found = texts.get(str(record.get("item_id")))
            if found is not None:
                row.update(_text_columns(record, *found))
            yield row


def _text_columns(record: dict[str, Any], prompt: str, candidates: tuple[str, ...]
                  ) -> dict[str, Any]:
    """``prompt``, ``winner_text`` and ``candidates`` of one decision.

    >>> _text_columns({"verdict": "B"}, "2+2?", ("5", "4"))["winner_text"]
    '4'
    >>> _text_columns({"winners": [0, 1]}, "q", ("a", "b"))["winner_text"] is None
    True
    """
    winners = record.get("winners")
    if record.get("failed"):
        one = None
    elif record.get("verdict") in ("A", "B"):
        one = "AB".index(record["verdict"])
    elif isinstance(winners, list) and len(winners) == 1 and isinstance(winners[0], int):
        one = winners[0]
    else:
        one = None
    winner = candidates[one] if one is not None and 0 <= one < len(candidates) else None
    return {"prompt": prompt, "winner_text": winner, "candidates": list(candidates)}


def _run_texts(run: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each item's (prompt, candidate texts) of a listwise or pairwise run, as the report
    reads them; {} for other runs (rubric) or a run whose texts cannot be read."""
    from .reader import RunReader

    try:
        reader = RunReader(run)
        if reader.task not in ("listwise", "pairwise"):
            return {}
        return {v.item_id: (v.question, v.candidates)
                for v in reader.iter_items(texts=True) if v.candidates}
    except (DataError, OSError, ValueError, KeyError):
        return {}


def _unit(record: dict[str, Any]) -> str:
    try:
        return unit_of(record)
    except KeyError:
        return ""


class _Columns:
    """Column names in order (the preferred ones first) and, for parquet, each column's
    type: bool, int, float or string (text, JSON, or a mix of kinds)."""

    def __init__(self, first: tuple[str, ...]) -> None:
        self.first = first
        self.seen: dict[str, str | None] = {}

    def add(self, row: dict[str, Any]) -> None:
        for name, value in row.items():
            kind = _kind(value)
            old = self.seen.get(name)
            if name not in self.seen or old is None:
                self.seen[name] = kind
            elif kind is not None and kind != old:
                self.seen[name] = "float" if {kind, old} == {"int", "float"} else "string"

    def names(self) -> list[str]:
        return ([c for c in self.first if c in self.seen]
                + [c for c in self.seen if c not in self.first])


def _kind(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "string"


def _as_text(value: Any) -> Any:
    """A list or object as JSON text; anything else unchanged."""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


def _write_csv(path: Path, columns: list[str], rows: Iterable[dict[str, Any]]) -> int:
    n = 0
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _as_text(v) for k, v in row.items()})
            n += 1
    return n


def _write_jsonl(path: Path, columns: list[str], rows: Iterable[dict[str, Any]]) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps({c: row.get(c) for c in columns}, ensure_ascii=False) + "\n")
            n += 1
    return n


def _write_parquet(path: Path, columns: list[str], kinds: dict[str, str | None],
                   rows: Iterable[dict[str, Any]]) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise missing_extra("pyarrow", "parquet") from None
    types = {"bool": pa.bool_(), "int": pa.int64(), "float": pa.float64()}
    schema = pa.schema([(c, types.get(kinds.get(c) or "", pa.string())) for c in columns])
    text = {c for c in columns if schema.field(c).type == pa.string()}

    def cell(column: str, value: Any) -> Any:
        if value is None:
            return None
        if column in text:
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return float(value) if kinds.get(column) == "float" else value

    n = 0
    with pq.ParquetWriter(path, schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append({c: cell(c, row.get(c)) for c in columns})
            n += 1
            if len(batch) >= BATCH_ROWS:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch or n == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    return n


def write_table(target: Path, fmt: str, first: tuple[str, ...],
           rows: Callable[[], Iterable[dict[str, Any]]]) -> int:
    """Write one table: two passes over ``rows()``, columns (``first``, then the others in
    order of appearance, with their kinds), then the rows, to a temporary file renamed to
    ``target``. Returns the rows written. Raises RunWriteError: the file cannot be written."""
    columns = _Columns(first)
    for row in rows():
        columns.add(row)
    names = columns.names()
    tmp = target.with_name(target.name + ".tmp")
    try:
        if fmt == "csv":
            n = _write_csv(tmp, names, rows())
        elif fmt == "jsonl":
            n = _write_jsonl(tmp, names, rows())
        else:
            n = _write_parquet(tmp, names, columns.seen, rows())
        os.replace(tmp, target)
    except OSError as exc:
        discard(tmp)
        raise write_error(target, exc) from None
    except BaseException:
        discard(tmp)
        raise
    return n


def make_export_folder(out: Path) -> Path:
    """Create the export folder ``out`` (and its parents); returns it.

    Raises:
        ConfigError: it cannot be created (naming it and the OS's reason).
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot use {str(out)!r} as the export folder (--out): "
                          f"{exc.strerror or exc}") from None
    return out


def check_export_format(format: str) -> None:
    """Refuse an unknown format, or parquet without pyarrow, before any work.

    Raises:
        ConfigError: either (the missing extra with its pip line).
    """
    if format not in EXPORT_FORMATS:
        raise ConfigError(f"--format must be one of {', '.join(EXPORT_FORMATS)}, got {format!r}")
    if format == "parquet":
        try:
            import pyarrow  # noqa: F401 - fail before any work
        except ImportError:
            raise missing_extra("pyarrow", "parquet") from None


def export_run(run: str | Path, *, format: str = "csv", out: str | Path | None = None,
               texts: bool = True) -> ExportResult:
    """Write the per-item and per-call tables of a run directory.

    Args:
        run: a jurybox run directory (it must hold run.json).
        format: ``csv``, ``parquet`` (needs ``pip install 'jurybox[parquet]'``) or ``jsonl``.
        out: folder for ``items.<format>`` and ``calls.<format>`` (default ``run/export``;
            created).
        texts: add each decision's prompt, candidate texts and winner's text (listwise and
            pairwise runs; held in memory for the export); False for index-only rows.

    Returns:
        ExportResult: the files, their row counts and any skipped source lines.

    Raises:
        ConfigError: an unknown format, a path that is not a run directory, an ``out`` that
            cannot be created, or one whose tables would overwrite the run's own files;
            pyarrow missing for parquet (with the pip line).
        DataError: run.json is not what jurybox wrote.
        RunWriteError: a table cannot be written (a full disk).
    """
    check_export_format(format)
    run = Path(run)
    if not run.is_dir():
        raise ConfigError(f"{str(run)!r} is not a run directory (give the folder a judging "
                          f"command wrote, holding run.json)")
    if read_manifest(run / "run.json") is None:
        raise DataError(run, "no run.json: not a jurybox run directory")
    out = Path(out) if out is not None else run / "export"
    items, calls = out / f"items.{format}", out / f"calls.{format}"
    if any(p.resolve() in ((run / "items.jsonl").resolve(), (run / "calls.jsonl").resolve())
           for p in (items, calls)):
        raise ConfigError(f"--out {str(out)!r} would overwrite the run's own items.jsonl and "
                          f"calls.jsonl; choose another folder (default: RUN/export)")
    make_export_folder(out)
    item_skips: list[int] = []
    call_skips: list[int] = []
    found = _run_texts(run) if texts else {}
    n_items = write_table(items, format, ITEM_COLUMNS_FIRST,
                     lambda: _latest_items(run / "items.jsonl", item_skips, found))

    def call_rows() -> Iterator[dict[str, Any]]:
        call_skips.clear()
        return (call_row(r) for r in iter_records(run / "calls.jsonl", call_skips))

    n_calls = write_table(calls, format, CALL_COLUMNS_FIRST, call_rows)
    skipped = {name: sorted(set(lines)) for name, lines in
               (("items.jsonl", item_skips), ("calls.jsonl", call_skips)) if lines}
    return ExportResult(items, calls, n_items, n_calls, skipped)
