"""Read a run directory item by item: :class:`RunReader` indexes items.jsonl and calls.jsonl
by item (byte offsets only, one pass each), then builds one :class:`~.views.ItemView` at a time
from the lines of that item, so a run of any size is read without holding its texts.

The pass over items.jsonl also keeps what each item's flags need (:mod:`.flags`), so the
report counts its filters over every item without reading a call. calls.jsonl is indexed
when a call is first wanted, reading each line's item id from the start of the line as
jurybox writes it (a line written otherwise is parsed whole): the texts are never parsed
but for the items shown."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import DataError, JuryboxError
from ..protocols import Weights, protocol_class
from .flags import Comparison, ItemFlags, Marks, item_flags, marks_of
from ..rundir.files import unit_of
from ..rundir.layout import RunPaths
from ..rundir.lines import (RunFiles, call_offsets, line_offsets, read_lines_at,
                            read_run_files)
from .views import ItemView, Task, build_item

__all__ = ["RunFiles", "RunReader", "read_run_files"]


class RunReader(RunPaths):
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
        records = read_lines_at(self.items_path, self._items[item_id])
        calls = read_lines_at(self.calls_path, self._calls.get(item_id, ()))
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
            records = read_lines_at(self.items_path, self._items[item_id])
            calls = read_lines_at(self.calls_path, self._calls.get(item_id, ()))
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
