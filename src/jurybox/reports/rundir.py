"""The run directory: every command that judges writes one.

Files (each record carries ``schema`` = SCHEMA_VERSION):

- ``run.json``: manifest (version, command, config, dataset sha256, model, seeds, timings,
  totals, status). Rewritten atomically (temp file + rename).
- ``calls.jsonl``: every model call (cache key, raw text, usage, latency, attempts, API error,
  parse error, metadata), appended and flushed as it happens.
- ``items.jsonl``: per (item, protocol) decisions and credits, appended as each item finishes.
- ``summary.json``: the aggregate statistics, written atomically at the end.

Rerunning into the same directory with the same configuration (and the same dataset bytes)
resumes: finished (item, protocol) pairs are read back from items.jsonl and not judged again.
Decisions with an API failure (after all retries) are judged again, since such failures are
transient and never cached; the newer line supersedes the older one. A line cut short by a
crash is dropped. Each run of the command is a session in run.json; totals add up over
sessions. calls.jsonl logs every session's calls (a call served from the cache says so).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import ConfigError, ProviderError

__all__ = ["Records", "RunDir", "SCHEMA_VERSION", "iter_records", "read_jsonl", "unit_of",
           "write_json_atomic"]

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


def _add_totals(sessions: list[dict]) -> dict[str, Any]:
    """Sum numeric totals (and nested counts such as failures by kind) over sessions."""
    out: dict[str, Any] = {}
    for session in sessions:
        for key, value in (session.get("totals") or {}).items():
            if isinstance(value, dict):
                inner = out.setdefault(key, {})
                for k, v in value.items():
                    inner[k] = inner.get(k, 0) + v
            elif isinstance(value, (int, float)):
                out[key] = out.get(key, 0) + value
    return out


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
                gone = sorted(set(stored or {}) - set(self.config))
                older = (f"; {gone} are not settings of this jurybox version: the run was "
                         f"written by an older one" if gone else "")
                raise ConfigError(f"{self.path} holds a run with a different configuration "
                                  f"(differs in {changed}{older}); use another --out or "
                                  f"delete it")
        for path in (self.items_path, self.calls_path):
            _drop_partial_tail(path)
        # keys only: a resume must not hold every decision in memory
        self.done: set[tuple[str, str]] = {
            (unit_of(r), r["protocol"]) for r in iter_records(self.items_path)
            if "api" not in r.get("failures", ())}
        self.sessions: list[dict] = (json.loads(previous.read_text(encoding="utf-8"))
                                     .get("sessions", []) if previous.exists() else [])
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
        if "api" not in record.get("failures", ()):
            self.done.add((unit_of(record), record["protocol"]))

    def units_done(self, protocols: Iterable[str]) -> int:
        """Units every one of ``protocols`` has finished."""
        wanted = set(protocols)
        by_unit: dict[str, set[str]] = {}
        for unit, protocol in self.done:
            if protocol in wanted:
                by_unit.setdefault(unit, set()).add(protocol)
        return sum(names == wanted for names in by_unit.values())

    def write_manifest(self, manifest: dict[str, Any], session: dict[str, Any]) -> None:
        """Write run.json: ``manifest`` plus this session (started, finished, seconds, status,
        totals) after the earlier sessions; top-level ``status`` is this session's and
        ``totals`` the sum over sessions."""
        sessions = [*self.sessions, session]
        write_json_atomic(self.manifest_path, {
            "schema": SCHEMA_VERSION, **manifest, "status": session.get("status"),
            "started": sessions[0].get("started"), "totals": _add_totals(sessions),
            "sessions": sessions, "config": self.config})

    @contextmanager
    def session(self, manifest: dict[str, Any], totals: Callable[[], dict[str, Any]]
                ) -> Iterator[dict[str, Any]]:
        """Keep run.json current around one session of judging: ``running`` on entry, then
        ``complete``, ``interrupted`` (Ctrl-C, cancellation) or ``failed`` (a ProviderError,
        e.g. too many API failures in a row), with ``totals()`` and timings."""
        t0 = time.perf_counter()
        session: dict[str, Any] = {"status": "running",
                                   "started": datetime.now(timezone.utc).isoformat()}
        self.write_manifest(manifest, session)
        status = "interrupted"
        try:
            yield session
            status = "complete"
        except ProviderError:
            status = "failed"
            raise
        finally:
            session.update(status=status, totals=totals(),
                           finished=datetime.now(timezone.utc).isoformat(),
                           seconds=round(time.perf_counter() - t0, 3))
            self.write_manifest(manifest, session)

    def write_summary(self, summary: dict[str, Any]) -> None:
        write_json_atomic(self.summary_path, {"schema": SCHEMA_VERSION, **summary})

    def close(self) -> None:
        self._calls.close()
        self._items.close()
