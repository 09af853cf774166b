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
Decisions with a failed call (an API failure after all retries, an unusable or refused
answer) are judged again: API errors are never cached, and a failure is never served from the
cache (the runner asks again; answers that were used come from the cache). The newer line
supersedes the older one. A line cut short by a
crash is dropped. Each run of the command is a session in run.json; totals add up over
sessions. calls.jsonl logs every session's calls (a call served from the cache says so).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import ConfigError, DataError, JuryboxError
from ..runner.records import Totals
from .files import (SCHEMA_VERSION, drop_partial_tail, iter_records, read_manifest,
                    unit_of, write_json_atomic)
from .layout import RUN_FILE_NAMES, RunPaths
from .lock import RunLock

__all__ = ["FailedUnits", "RunDir", "lock_run_dir"]

log = logging.getLogger(__name__)


def add_totals(sessions: list[dict]) -> dict[str, Any]:
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


def lock_run_dir(path: str | Path) -> RunLock:
    """Create the run directory ``path`` (and its parents) and lock it for this call.

    Raises:
        ConfigError: the folder cannot be created (a file, under a file, no permission), or
            another process or another call in this process holds it
            (:class:`RunDirBusyError`, naming the holder).
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        return RunLock(path)
    except OSError as exc:
        raise ConfigError(f"cannot use {str(path)!r} as the run directory (--out): "
                          f"{exc.strerror or exc}") from None





def _check_not_a_foreign_folder(path: Path) -> None:
    """Refuse to start a run in a folder that holds files, none of them jurybox's (the lock
    this call just took aside)."""
    try:
        names = {entry.name for _, entry in zip(range(1000), os.scandir(path))} - {"lock"}
    except OSError:
        return  # unreadable: writing fails later with its own message
    if names and not names & RUN_FILE_NAMES and not all(n.endswith(".tmp") for n in names):
        raise ConfigError(f"{str(path)!r} holds other files and no jurybox run (e.g. "
                          f"{sorted(names)[0][:60]!r}); give --out a new or empty folder")


class RunDir(RunPaths):
    """A run directory opened for writing (or resuming), locked for this call.

    Args:
        path: the folder (created).
        config: the run's configuration; must equal the stored one to resume.
        lock: the folder's lock, when the caller holds it already (``jurybox.judge`` takes it
            before it writes the items into the folder); the caller then releases it, not
            :meth:`close`. None: the folder is locked here (:func:`lock_run_dir`).

    Raises:
        ConfigError: the folder cannot be created or written (a file, under a file, no
            permission), holds a run with a different configuration, or is in use by another
            process or another call in this one (:class:`RunDirBusyError`, naming it).
        DataError: run.json or items.jsonl is not what jurybox wrote (file, line, field).
        ValueError: ``lock`` is another folder's.
    """

    def __init__(self, path: str | Path, config: dict[str, Any], *,
                 lock: RunLock | None = None) -> None:
        self.path = Path(path)
        if lock is not None and lock.path != self.path / "lock":
            raise ValueError(f"the lock {lock.path} is not {self.path}'s")
        self._owns_lock = lock is None
        self._lock = lock_run_dir(self.path) if lock is None else lock
        try:
            self._open(config)
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        if self._owns_lock:
            self._lock.release()

    def _open(self, config: dict[str, Any]) -> None:
        self.config = json.loads(json.dumps(config, default=str))
        previous = read_manifest(self.manifest_path)
        if previous is None:
            _check_not_a_foreign_folder(self.path)
        if previous is not None:
            stored = previous.get("config")
            if stored != self.config:
                stored = stored if isinstance(stored, dict) else {}
                changed = sorted(k for k in set(stored) | set(self.config)
                                 if stored.get(k) != self.config.get(k))
                gone = sorted(set(stored) - set(self.config))
                # an optional setting left out now (--template, --adaptive) looks the same
                # as one an older jurybox had: say what is known, not which it was
                older = (f"; {gone} set in that run and not in this one (not given now, or "
                         f"settings of an older jurybox)" if gone else "")
                raise ConfigError(f"{self.path} holds a run with a different configuration "
                                  f"(differs in {changed}{older}); use another --out or "
                                  f"delete it")
        try:
            for path in (self.items_path, self.calls_path):
                drop_partial_tail(path)
        except OSError as exc:
            raise self._unwritable(exc) from None
        # keys only: a resume must not hold every decision in memory
        self.done: set[tuple[str, str]] = set()
        self.failed: dict[tuple[str, str], bool] = {}  # (unit, protocol) -> an API failure
        for record in _item_keys(self.items_path):
            self._track(record)
        sessions = previous.get("sessions") or [] if previous else []
        if not (isinstance(sessions, list) and all(isinstance(x, dict) for x in sessions)):
            raise DataError(self.manifest_path, "field 'sessions' must be a list of "
                            "objects; it was changed outside jurybox: restore it, or delete "
                            "the run directory to start over")
        self.sessions: list[dict] = list(sessions)
        self._settle_dead_sessions()
        self.session_index = len(self.sessions)
        try:
            self._calls = self.calls_path.open("a", encoding="utf-8")
            self._items = self.items_path.open("a", encoding="utf-8")
        except OSError as exc:
            raise self._unwritable(exc) from None

    def _unwritable(self, exc: OSError) -> ConfigError:
        return ConfigError(f"cannot write the run directory {str(self.path)!r}: "
                           f"{exc.strerror or exc}")

    def _track(self, record: dict) -> None:
        key = (unit_of(record), record["protocol"])
        api = "api" in record.get("failures", ())
        if record.get("failures"):  # a failed call: judged again (asked again, not cached)
            self.done.discard(key)
        else:
            self.done.add(key)
        failed = record["failed"] if "failed" in record else (  # before schema: no field
            api or ("credit" in record and record["credit"] is None))
        if failed:
            self.failed[key] = api
        else:
            self.failed.pop(key, None)

    def _settle_dead_sessions(self) -> None:
        """A session still ``running`` when the lock is free ended without writing run.json
        (SIGKILL, power loss): mark it ``killed`` and derive its totals from its calls."""
        dead = {i: Totals() for i, s in enumerate(self.sessions) if s.get("status") == "running"}
        if not dead:
            return
        for record in iter_records(self.calls_path):  # one pass for every dead session
            if (totals := dead.get(record.get("session", -1))) is not None:
                totals.add_record(record)
        for i, totals in dead.items():
            self.sessions[i] = {**self.sessions[i], "status": "killed",
                                "totals": totals.as_dict(),
                                "note": "ended without saying so (killed); totals derived "
                                        "from calls.jsonl"}

    @staticmethod
    def _append(fh, record: dict) -> None:
        fh.write(json.dumps({"schema": SCHEMA_VERSION, **record}, ensure_ascii=False) + "\n")
        fh.flush()

    def append_call(self, record: dict) -> None:
        """Log one call of this session (``session`` = its index in run.json)."""
        self._append(self._calls, {"session": self.session_index, **record})

    def append_item(self, record: dict) -> None:
        self._append(self._items, record)
        self._track(record)

    def failed_units(self) -> FailedUnits:
        """Units whose latest decision (of any protocol) is a failure."""
        units = {unit for unit, _ in self.failed}
        api = {unit for (unit, _), is_api in self.failed.items() if is_api}
        return FailedUnits(len(units), len(api))

    def units_done(self, protocols: Iterable[str]) -> int:
        """Units every one of ``protocols`` has finished."""
        wanted = set(protocols)
        by_unit: dict[str, set[str]] = {}
        for unit, protocol in self.done:
            if protocol in wanted:
                by_unit.setdefault(unit, set()).add(protocol)
        return sum(names == wanted for names in by_unit.values())

    def run_totals(self, session: dict[str, Any]) -> dict[str, Any]:
        """Totals over the earlier sessions and ``session`` (this one)."""
        return add_totals([*self.sessions, session])

    def write_manifest(self, manifest: dict[str, Any], session: dict[str, Any]) -> None:
        """Write run.json: ``manifest`` plus this session (started, finished, seconds, status,
        totals) after the earlier sessions; top-level ``status`` is this session's and
        ``totals`` the sum over sessions.

        Raises:
            RunWriteError: the run directory was removed or replaced since it was opened (see
                :meth:`RunLock.check`): nothing is written into another process's run.
            OSError: it cannot be written.
        """
        sessions = [*self.sessions, session]
        self._lock.check()
        write_json_atomic(self.manifest_path, {
            "schema": SCHEMA_VERSION, **manifest, "status": session.get("status"),
            "started": sessions[0].get("started"), "totals": add_totals(sessions),
            "sessions": sessions, "config": self.config})

    @contextmanager
    def session(self, manifest: dict[str, Any], totals: Callable[[], dict[str, Any]],
                fields: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Keep run.json current around one session of judging: ``running`` on entry, then
        ``complete``, ``partial`` (some units have no decision: see ``failed_units``),
        ``interrupted`` (Ctrl-C, SIGTERM, cancellation) or ``failed`` (a jurybox error, e.g.
        too many API failures in a row or a full disk), with ``totals()`` and timings. A
        session killed before it could say so is settled when the directory is next opened.
        ``fields`` are recorded in the session from the start (e.g. ``executor``).

        Raises:
            ConfigError: run.json cannot be written on entry.
        """
        t0 = time.perf_counter()
        session: dict[str, Any] = {"status": "running",
                                   "started": datetime.now(timezone.utc).isoformat(),
                                   **(fields or {})}
        try:
            self.write_manifest(manifest, session)
        except OSError as exc:
            raise ConfigError(f"cannot write {str(self.manifest_path)!r}: "
                              f"{exc.strerror or exc}") from None
        status = "interrupted"
        try:
            yield session
            failed = self.failed_units()
            status = failed.status
            session["failed_units"] = failed._asdict()
        except JuryboxError:
            status = "failed"
            raise
        finally:
            session.update(status=status, totals=totals(),
                           finished=datetime.now(timezone.utc).isoformat(),
                           seconds=round(time.perf_counter() - t0, 3))
            try:
                self.write_manifest(manifest, session)
            except OSError as exc:  # a full disk: the session is settled on the next open
                log.error("could not write %s: %s", self.manifest_path, exc)

    def write_summary(self, summary: dict[str, Any]) -> None:
        """Write summary.json.

        Raises:
            RunWriteError: the run directory was removed or replaced meanwhile (see
                :meth:`RunLock.check`).
            OSError: it cannot be written.
        """
        self._lock.check()
        write_json_atomic(self.summary_path, {"schema": SCHEMA_VERSION, **summary})

    def close(self) -> None:
        """Close the logs and release the lock (unless the caller gave it: see ``lock``)."""
        try:
            for fh in (self._calls, self._items):
                try:
                    fh.close()
                except OSError as exc:  # a full disk fails the last flush
                    log.error("could not close %s: %s", fh.name, exc)
        finally:
            self._release()


class FailedUnits(NamedTuple):
    """Units of a run without a decision: ``units`` in all, ``api`` of them from API errors
    (rerunning the same command judges all of them again: API errors are never cached, and
    the runner asks again for a cached answer that could not be used)."""

    units: int
    api: int

    @property
    def status(self) -> str:
        """A run's status by its failed units: ``partial`` when there are any, else
        ``complete``."""
        return "partial" if self.units else "complete"


def _item_keys(path: Path) -> Iterator[dict]:
    """items.jsonl records with the fields a resume needs, checked.

    Raises:
        DataError: a line that is not a JSON object, or lacks ``protocol`` or the unit key.
    """
    if not path.exists():
        return
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line_no, line in enumerate(fh, 1):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                raise DataError(path, "not a JSON record; the file was changed outside "
                                      "jurybox: delete that line to judge its unit again",
                                line=line_no) from None
            if not isinstance(record, dict):
                raise DataError(path, "not a JSON object", line=line_no)
            if not isinstance(record.get("protocol"), str):
                raise DataError(path, "missing (each decision names its protocol)",
                                line=line_no, field="protocol")
            if not (record.get("unit") or record.get("item_id") not in (None, "")):
                raise DataError(path, "missing (each decision names its item)",
                                line=line_no, field="item_id")
            yield record
