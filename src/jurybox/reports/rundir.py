"""The run directory: every command that judges writes one.

Files (each record carries ``schema`` = SCHEMA_VERSION):

- ``run.json``: manifest (version, command, config, dataset sha256, model, seeds, timings,
  totals, status). Rewritten atomically (temp file + rename).
- ``calls.jsonl``: every model call (cache key, raw text, usage, latency, attempts, API error,
  parse error, metadata), appended and flushed as it happens.
- ``items.jsonl``: per (item, protocol) decisions and credits, appended as each item finishes.
- ``summary.json``: the aggregate statistics, written atomically at the end.

Rerunning into the same directory with the same configuration resumes: finished
(item, protocol) pairs are read back from items.jsonl and not judged again (a line cut short by
a crash is ignored and that item judged again, mostly from the cache).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["RunDir", "SCHEMA_VERSION", "read_jsonl", "write_json_atomic"]

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


def write_json_atomic(path: Path, value: Any) -> None:
    """Write strict JSON (NaN as null) to ``path`` via a temp file and rename (never a
    half-written file)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(_finite(value), indent=2, ensure_ascii=False, default=str,
                              allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _drop_partial_tail(path: Path) -> None:
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


def read_jsonl(path: Path) -> list[dict]:
    """Records of a JSONL file; a trailing partial line (interrupted write) is skipped."""
    if not path.exists():
        return []
    records = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


class RunDir:
    """A run directory opened for writing (or resuming).

    Args:
        path: the folder (created).
        config: the run's configuration; must equal the stored one to resume.

    Raises:
        ConfigError: the folder holds a run with a different configuration.
    """

    def __init__(self, path: str | Path, config: dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.config = json.loads(json.dumps(config, default=str))
        previous = self.manifest_path
        if previous.exists():
            stored = json.loads(previous.read_text(encoding="utf-8")).get("config")
            if stored != self.config:
                changed = sorted(k for k in set(stored or {}) | set(self.config)
                                 if (stored or {}).get(k) != self.config.get(k))
                raise ConfigError(f"{self.path} holds a run with a different configuration "
                                  f"(differs in {changed}); use another --out or delete it")
        for path in (self.items_path, self.calls_path):
            _drop_partial_tail(path)
        self.done: dict[tuple[str, str], dict] = {
            (r["item_id"], r["protocol"]): r for r in read_jsonl(self.items_path)}
        self._calls = (self.path / "calls.jsonl").open("a", encoding="utf-8")
        self._items = self.items_path.open("a", encoding="utf-8")

    @property
    def manifest_path(self) -> Path:
        return self.path / "run.json"

    @property
    def items_path(self) -> Path:
        return self.path / "items.jsonl"

    @property
    def calls_path(self) -> Path:
        return self.path / "calls.jsonl"

    @property
    def summary_path(self) -> Path:
        return self.path / "summary.json"

    @staticmethod
    def _append(fh, record: dict) -> None:
        fh.write(json.dumps({"schema": SCHEMA_VERSION, **record}, ensure_ascii=False) + "\n")
        fh.flush()

    def append_call(self, record: dict) -> None:
        self._append(self._calls, record)

    def append_item(self, record: dict) -> None:
        self._append(self._items, record)
        self.done[(record["item_id"], record["protocol"])] = record

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json_atomic(self.manifest_path, {"schema": SCHEMA_VERSION, **manifest,
                                               "config": self.config})

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json_atomic(self.summary_path, {"schema": SCHEMA_VERSION, **summary})

    def close(self) -> None:
        self._calls.close()
        self._items.close()
