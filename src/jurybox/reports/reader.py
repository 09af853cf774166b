"""Read a run directory item by item: :class:`RunReader` indexes items.jsonl and calls.jsonl
by item (byte offsets only, one pass each), then builds one :class:`~.views.ItemView` at a time
from the lines of that item, so a run of any size is read without holding its texts.

The pass over items.jsonl also keeps what each item's flags need (:mod:`.flags`), so the
report counts its filters over every item without reading a call. calls.jsonl is indexed
when a call is first wanted, reading each line's item id from the start of the line as
jurybox writes it (a line written otherwise is parsed whole): the texts are never parsed
but for the items shown."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import DataError, JuryboxError
from ..protocols import Weights, protocol_class
from .flags import Comparison, ItemFlags, Marks, item_flags, marks_of
from .rundir import read_manifest, unit_of
from .views import ItemView, Task, build_item

__all__ = ["RunFiles", "RunReader", "read_run_files"]


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


def _lines(path: Path, offsets: Iterable[int]) -> list[dict[str, Any]]:
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
                            f"{value!r:.60}", field=name)


_JSON_NAMES = {"dict": "object", "list": "array", "str": "string", "int": "integer"}


class RunFiles(NamedTuple):
    """A run directory's run.json (``manifest``) and summary.json (``summary``: {} when
    absent or unreadable, as for a run interrupted before its end)."""

    manifest: dict[str, Any]
    summary: dict[str, Any]


def read_run_files(path: str | Path) -> RunFiles:
    """run.json and summary.json of the run directory ``path``, checked as
    :class:`RunReader` checks them, without indexing items.jsonl and calls.jsonl (two small
    files: cheap enough to list many runs).

    Raises:
        DataError: no run.json, run.json unreadable, or a field the report reads of another
            JSON type in either file (naming the file and field).
    """
    path = Path(path)
    manifest = read_manifest(path / "run.json")
    if manifest is None:
        raise DataError(path, "not a jurybox run directory (no run.json)")
    _check_shape(path / "run.json", manifest, _MANIFEST_SHAPE)
    summary = _read_summary(path / "summary.json")
    _check_shape(path / "summary.json", summary, _SUMMARY_SHAPE)
    for name, entry in (summary.get("protocols") or {}).items():
        if not isinstance(entry, dict):
            raise DataError(path / "summary.json", f"must be a JSON object, got {entry!r:.60}",
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


class RunReader:
    """A run directory opened for reading (no lock: a run still going can be read).

    Attributes:
        path: the run directory; manifest: run.json; summary: summary.json ({} when absent,
            as for a run interrupted before its end).
        kind: run.json's ``kind`` (``bench``, ``judge``, ``personalize``, ...).
        task: ``listwise``, ``pairwise`` or ``rubric``.
        item_ids: the items with a decision, in items.jsonl order.
        comparison: the protocols summary.json compares with its baseline (None: none).

    Raises:
        DataError: not a run directory (no run.json), or run.json unreadable.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise DataError(self.path, "is a file; give a run directory (the folder holding "
                            "run.json)")
        self.manifest, self.summary = read_run_files(self.path)
        self.kind = str(self.manifest.get("kind") or "bench")
        self.protocol_params = {str(p.get("name")): dict(p.get("params") or {})
                                for p in self.manifest.get("protocols") or ()
                                if isinstance(p, dict)}
        self.task = self._task()
        self.comparison = Comparison.of_summary(self.summary)
        self._marks: dict[str, dict[str, Marks]] = {}
        self._items = self._index_items()
        self._calls_index: dict[str, list[int]] | None = None
        self.item_ids = list(self._items)

    def _index_items(self) -> dict[str, list[int]]:
        """Offsets of items.jsonl's decisions by unit, and each unit's marks (listwise and
        pairwise runs), in one pass. A line without a protocol is no decision jurybox wrote
        (a hand-edited file): skipped."""
        marking = self.task in ("listwise", "pairwise")

        def key(record: dict[str, Any]) -> str | None:
            if not isinstance(record.get("protocol"), str):
                return None
            unit = unit_of(record)
            if marking and unit:
                try:
                    self._marks.setdefault(unit, {})[record["protocol"]] = marks_of(
                        record, self.task)
                except (TypeError, ValueError):  # a field of the wrong kind (hand-edited)
                    pass
            return unit
        return line_offsets(self.items_path, key)

    @property
    def _calls(self) -> dict[str, list[int]]:
        if self._calls_index is None:
            self._calls_index = call_offsets(self.calls_path)
        return self._calls_index

    def flags(self, item_id: str) -> ItemFlags:
        """An item's flags from its latest decisions (what :meth:`item` shows as well)."""
        return item_flags(self._marks.get(item_id, {}), self.comparison)

    def marks(self, item_id: str) -> dict[str, Marks]:
        """What the flags need of each protocol's latest decision on the item."""
        return self._marks.get(item_id, {})

    @property
    def items_path(self) -> Path:
        return self.path / "items.jsonl"

    @property
    def calls_path(self) -> Path:
        return self.path / "calls.jsonl"

    def _task(self) -> str:
        if self.summary.get("task") in ("listwise", "pairwise"):
            return str(self.summary["task"])
        for name in self.protocol_params:
            try:
                return str(protocol_class(name).task)
            except JuryboxError:
                continue
        return "rubric" if self.kind == "personalize" else "listwise"

    @property
    def pcf_settings(self) -> tuple[Weights, float]:
        """PCF's (or direct's) weights and tolerance as recorded (defaults when absent)."""
        params = self.protocol_params.get("pcf") or self.protocol_params.get("direct") or {}
        weights = params.get("weights")
        return (Weights(**weights) if isinstance(weights, dict) else Weights(),
                float(params.get("tolerance", 0.5)))

    def item(self, item_id: str, *, texts: bool = True) -> ItemView:
        """The view of one item (``texts``: read its question and candidates).

        Raises:
            KeyError: no decision of the run names ``item_id``.
            DataError: the run is not listwise or pairwise.
        """
        if self.task not in ("listwise", "pairwise"):
            raise DataError(self.path, f"is a {self.task} run; item views cover listwise and "
                                       f"pairwise runs")
        records = _lines(self.items_path, self._items[item_id])
        calls = _lines(self.calls_path, self._calls.get(item_id, ()))
        found = self.dataset_texts([item_id]).get(item_id) if texts else None
        task: Task = "pairwise" if self.task == "pairwise" else "listwise"
        return build_item(item_id, records, calls, task=task, texts=found,
                          pcf=self.pcf_settings, read_prompt=texts, comparison=self.comparison)

    def iter_items(self, item_ids: Iterable[str] | None = None, *, texts: bool = False
                   ) -> Iterator[ItemView]:
        """Views of ``item_ids`` (default: every item), one at a time; texts read from the
        dataset in one pass when ``texts``."""
        ids = list(self.item_ids if item_ids is None else item_ids)
        found = self.dataset_texts(ids) if texts else {}
        task: Task = "pairwise" if self.task == "pairwise" else "listwise"
        for item_id in ids:
            records = _lines(self.items_path, self._items[item_id])
            calls = _lines(self.calls_path, self._calls.get(item_id, ()))
            yield build_item(item_id, records, calls, task=task, texts=found.get(item_id),
                             pcf=self.pcf_settings, read_prompt=texts,
                             comparison=self.comparison)

    def dataset_texts(self, item_ids: Iterable[str]) -> dict[str, tuple[str, tuple[str, ...]]]:
        """(question, candidate texts) of ``item_ids`` from the run's dataset file, when its
        sha256 is still the one recorded (the rows the run checked: they are read until every
        wanted item is found, not checked again); {} otherwise (the views then read the
        texts back from a recorded prompt)."""
        from ..datasets import PairwiseItem
        from ..datasets.registry import FORMATS, reopen_dataset

        wanted = set(item_ids)
        dataset, config = self.manifest.get("dataset") or {}, self.manifest.get("config") or {}
        sha = dataset.get("sha256")
        if not wanted or not sha:
            return {}
        # judge runs name their file "input", may lack gold and read generic lines as pairs
        fmt = str(dataset["format"]) if dataset.get("format") in FORMATS else "auto"
        sources = (config.get("dataset") or config.get("input"), dataset.get("path"))
        for source in dict.fromkeys(filter(None, sources)):
            try:
                loaded = reopen_dataset(str(source), str(sha),
                                        subset=config.get("subset", "Factuality"),
                                        n=int(config.get("n_candidates") or 4), format=fmt,
                                        labelled=False)
                if loaded is None:
                    continue
                out: dict[str, tuple[str, tuple[str, ...]]] = {}
                for item in loaded.iter_items():
                    if item.item_id in wanted:
                        if isinstance(item, PairwiseItem):
                            out[item.item_id] = (item.question, item.responses)
                        else:
                            out[item.item_id] = (item.prompt, tuple(item.candidates))
                        if len(out) == len(wanted):
                            break
                return out
            except (JuryboxError, OSError, ValueError):
                continue
        return {}
