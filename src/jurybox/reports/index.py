"""The runs in a folder: :func:`list_runs` finds every run under it and describes each in a
:class:`RunEntry` (what ``jurybox runs`` prints and index.html lists).

A run is a folder holding ``run.json`` (bench, judge, personalize, a replayed ``score``
run), ``jury.json`` (a jury; its judges' runs are in ``judges/<name>`` below it), or a
``summary.json`` alone (an ``agreement`` folder, or ``score`` results of recorded outputs).
Folders are searched :data:`MAX_DEPTH` levels deep, inside runs too (``RUN/rescored``,
``JURY/judges/<name>``); hidden folders and symbolic links are not followed.

Reading is cheap: run.json, summary.json and (for a run whose run.json says ``running``) the
lock file, through :func:`~.reader.read_run_files` and :func:`~.lock.lock_holder`; never
items.jsonl or calls.jsonl. A folder of jurybox files that cannot be read is an entry with
status ``unreadable`` and the reason, never an exception.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from ..errors import MAX_FOLDER_ENTRIES, DataError, did_you_mean_file
from .freshness import report_is_current
from .index_results import (_dict, _list, agreement_results, bench_results, judge_results,
                            jury_results, personalize_results, rank_results, recorded_results,
                            selective_results)
from ..rundir import lock_holder

__all__ = ["MAX_DEPTH", "MAX_FOLDERS", "RunEntry", "Status", "is_run_folder", "list_runs",
           "no_runs_error"]

log = logging.getLogger(__name__)

#: Folder levels searched below the folder listed (``runs/demo/truthfulqa`` is 2,
#: ``runs/x/judges/<name>`` 3).
MAX_DEPTH = 5
#: Folders looked into at most; beyond, the search stops (a folder of runs, not a disk).
MAX_FOLDERS = 20_000
#: Longest text kept from a run's files (a name, a dataset, a reason), characters.
MAX_TEXT = 200

Status = Literal["complete", "partial", "interrupted", "failed", "killed", "running",
                 "unfinished", "unreadable"]
#: Worst first: a jury's status is the worst of its judges'.
_SEVERITY: tuple[Status, ...] = ("failed", "killed", "interrupted", "partial", "unfinished",
                                 "unreadable", "running", "complete")


@dataclass(frozen=True)
class RunEntry:
    """One run found by :func:`list_runs`.

    Attributes:
        path: the run's folder; name: its path below the folder listed, with ``/``
            (``demo/truthfulqa``; ``.`` for the folder itself).
        kind: ``bench``, ``judge``, ``personalize``, ``jury``, ``agreement``, ``score``
            (a run replayed from its calls, or scores of recorded outputs), or ``unknown``
            (unreadable).
        dataset: the dataset, input or ratings file's name ("" when unknown).
        judge: the model (its label); ``simulated`` for jurybox's simulated judge; for a
            jury ``jury of N: a, b``; ``human raters`` for agreement; "" when unknown.
        simulated: the judge (every judge of a jury) was the simulated one.
        status: ``complete``; ``partial`` (some units without a decision); ``interrupted``
            (Ctrl-C, SIGTERM); ``failed`` (stopped by an error); ``killed`` (run.json says
            running but its process is gone); ``running`` (its process still runs);
            ``unfinished`` (a jury without its summary.json); ``unreadable``.
        note: what goes with the status: why it is unreadable, the units without a
            decision, the process running it ("" when nothing).
        results: the headline figures (:mod:`.index_results`); "" when there is no
            summary.json yet.
        model_calls, cache_hits: over every session (None when not recorded).
        usd: the cost in USD when a price was known (None: unpriced, or no model call).
        started: when the run began (its first session), else when its summary.json was
            written (agreement, recorded scores, a jury), UTC; None when unknown.
        report: the run's report.html when there is one; report_current: it was written
            from the run's files as they are now (None when that is not recorded: a jury's).
    """

    path: Path
    name: str
    kind: str
    dataset: str
    judge: str
    simulated: bool
    status: Status
    note: str
    results: str
    model_calls: int | None
    cache_hits: int | None
    usd: float | None
    started: datetime | None
    report: Path | None
    report_current: bool | None


def is_run_folder(folder: str | Path) -> bool:
    """Whether ``folder`` is itself a run (run.json, jury.json or summary.json in it), as
    opposed to a folder of runs."""
    folder = Path(folder)
    return any((folder / name).is_file() for name in ("run.json", "jury.json", "summary.json"))


def no_runs_error(folder: str | Path, max_depth: int = MAX_DEPTH) -> DataError:
    """The error for a folder in which :func:`list_runs` found no run."""
    return DataError(folder, f"not a jurybox run directory (no run.json) and no run below it "
                             f"(searched {max_depth} levels down)")


def list_runs(folder: str | Path, *, max_depth: int = MAX_DEPTH) -> list[RunEntry]:
    """Every run in ``folder`` (itself included when it is one) and below it, at most
    ``max_depth`` levels down, in path order (a jury before its judges).

    Raises:
        DataError: ``folder`` does not exist or is not a folder.
    """
    root = Path(folder)
    if not root.is_dir():
        raise DataError(root, "is not a folder" if root.exists() else
                        f"no such folder{did_you_mean_file(root)}")
    entries = [entry for path in _folders(root, max_depth)
               if (entry := _entry(path, root)) is not None]
    return _settle_juries(entries)


def _folders(root: Path, max_depth: int) -> list[Path]:
    """``root`` and the folders below it, depth first in name order (hidden folders and
    symbolic links left out; at most :data:`MAX_FOLDERS`)."""
    out: list[Path] = []
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack and len(out) < MAX_FOLDERS:
        path, depth = stack.pop()
        out.append(path)
        if depth >= max_depth:
            continue
        try:
            with os.scandir(path) as it:
                children = sorted(e.name for e in itertools.islice(it, MAX_FOLDER_ENTRIES)
                                  if not e.name.startswith(".")
                                  and e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        stack.extend((path / name, depth + 1) for name in reversed(children))
    if stack:
        log.warning("%s: stopped after %d folders; the runs in the rest are not listed",
                    root, MAX_FOLDERS)
    return out


def _entry(path: Path, root: Path) -> RunEntry | None:
    """The entry of ``path`` when it is a run (or a damaged one), else None."""
    from ..rundir import RUN_FILE_NAMES  # the run files' readers: only when a run is read

    name = path.relative_to(root).as_posix()
    try:
        if (path / "run.json").is_file():
            return _run_entry(path, name)
        if (path / "jury.json").is_file():
            return _jury_entry(path, name)
        if (path / "summary.json").is_file():
            return _summary_entry(path, name)
        if any((path / f).is_file() for f in RUN_FILE_NAMES):
            return _unreadable(path, name, "no run.json (jurybox files without their "
                                           "manifest)")
    except DataError as exc:
        return _unreadable(path, name, _reason(exc))
    except OSError as exc:
        return _unreadable(path, name, f"cannot be read: {exc.strerror or exc}")
    return None


def _text(value: Any) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def _reason(exc: DataError) -> str:
    """A DataError as a short reason: the file, the field, the first clause."""
    field = f" field {exc.field!r}" if exc.field else ""
    return _text(f"{Path(exc.path).name}{field}: {exc.message.split(';')[0]}")


#: Counts above this are not a run's (a hand-edited file): shown as unknown.
MAX_COUNT = 10 ** 15


def _count(value: Any) -> int | None:
    """A recorded count, or None for what no run records (not an integer, negative, huge)."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
    return value if ok else None


def _usd(value: Any) -> float | None:
    """A cost in USD: a finite number >= 0, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _unreadable(path: Path, name: str, why: str) -> RunEntry:
    report = path / "report.html"
    return RunEntry(path, name, "unknown", "", "", False, "unreadable", why, "", None, None,
                    None, None, report if report.is_file() else None, None)


def _when(value: Any) -> datetime | None:
    """A recorded ISO time in UTC; None when it is not one (or out of datetime's range once
    moved to UTC, such as year 1 at +05:00)."""
    try:
        moment = datetime.fromisoformat(str(value))
        return moment.astimezone(timezone.utc) if moment.tzinfo else moment
    except (ValueError, OverflowError):
        return None


def _mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    except OSError:
        return None


def _file_name(value: Any) -> str:
    """A dataset given as a path or a bundled name, as its file name."""
    return _text(Path(str(value)).name) if value else ""


def _report(path: Path, current: bool) -> tuple[Path | None, bool | None]:
    report = path / "report.html"
    if not report.is_file():
        return None, None
    return report, (report_is_current(path) if current else None)


def _status(path: Path, manifest: dict[str, Any], summary: dict[str, Any]
            ) -> tuple[Status, str]:
    """run.json's status and its note; a ``running`` one checked against the lock's
    holder."""
    status = _known(manifest.get("status"))
    if status == "running":
        return _running(path)
    failed = _dict(summary.get("failed_units") or manifest.get("failed_units"))
    if status == "partial" and (units := _count(failed.get("units"))):
        return status, f"{units} item{'s' * (units != 1)} without a decision"
    if status == "unfinished" and manifest.get("status") is not None:
        return status, _text(f"status {manifest.get('status')!r}")
    return status, ""


def _known(value: Any) -> Status:
    """A recorded status, ``unfinished`` when it is none jurybox writes."""
    for status in _SEVERITY:
        if value == status and status != "unreadable":
            return status
    return "unfinished"


def _running(path: Path) -> tuple[Status, str]:
    """``running`` while the process RUN/lock names runs, ``killed`` when it is gone."""
    holder = lock_holder(path)
    if holder is None:
        return "running", "no lock file names its process"
    alive = holder.alive()
    if alive is False:
        return "killed", "ended without saying so (its process is gone)"
    return "running", _text(f"process {holder.pid}" if alive else
                            f"process {holder.pid} on {holder.host}")


def _judge(model: dict[str, Any]) -> str:
    if model.get("simulated"):
        return "simulated"
    return _text(model.get("label") or model.get("spec") or "")


def _run_entry(path: Path, name: str) -> RunEntry:
    from ..rundir import read_run_files

    manifest, summary = read_run_files(path)
    kind = str(manifest.get("kind") or "bench")
    if manifest.get("replayed") is True:
        kind = "score"
    results = (judge_results(summary) if kind == "judge" else
               personalize_results(summary) if kind == "personalize" else
               bench_results(summary))
    config = _dict(manifest.get("config"))
    named = _dict(manifest.get("dataset")).get("name")  # a name as recorded, kept whole
    dataset = _text(named) if named else _file_name(
        config.get("ratings") or config.get("input") or config.get("dataset"))
    model = _dict(manifest.get("model"))
    totals = _dict(manifest.get("totals"))
    status, note = _status(path, manifest, summary)
    report, current = _report(path, True)
    return RunEntry(path, name, kind, dataset, _judge(model),
                    bool(model.get("simulated")), status, note, _text(results),
                    _count(totals.get("model_calls")), _count(totals.get("cache_hits")),
                    _usd(_dict(summary.get("cost")).get("usd")),
                    _when(manifest.get("started")), report, current)


def _load(path: Path) -> dict[str, Any]:
    """A JSON object file of a run (summary.json, jury.json).

    Raises:
        DataError: not JSON, or not an object.
    """
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:
        raise DataError(path, f"is not valid JSON ({str(exc)[:80]})") from None
    if not isinstance(value, dict):
        raise DataError(path, f"must be a JSON object, got {type(value).__name__}")
    return value


def _jury_entry(path: Path, name: str) -> RunEntry:
    jury = _load(path / "jury.json")
    summary = _load(path / "summary.json") if (path / "summary.json").is_file() else {}
    judges = _dict(summary.get("judges"))
    names = list(judges) or [str(_dict(j).get("name") or _dict(j).get("model"))
                             for j in _list(jury.get("judges")) if isinstance(j, dict)]
    simulated = bool(judges) and all(_dict(j).get("simulated") for j in judges.values())
    statuses = [_known(_dict(j).get("status")) for j in judges.values()]
    status = min(statuses, key=_SEVERITY.index) if statuses else "unfinished"
    calls = [_count(_dict(j).get("model_calls")) for j in judges.values()]
    hits = [_count(_dict(j).get("cache_hits")) for j in judges.values()]
    usd = [u for j in judges.values() if (u := _usd(_dict(j).get("usd"))) is not None]
    report, _ = _report(path, False)
    return RunEntry(path, name, "jury", _text(summary.get("dataset") or jury.get("dataset")),
                    _text(f"jury of {len(names)}: {', '.join(names)}"
                          + (" (simulated)" if simulated else "")),
                    simulated, status, "", _text(jury_results(summary)),
                    sum(c for c in calls if c is not None) if calls else None,
                    sum(h for h in hits if h is not None) if hits else None,
                    sum(usd) if usd else None, _mtime(path / "jury.json"), report, None)


def _summary_entry(path: Path, name: str) -> RunEntry:
    summary = _load(path / "summary.json")
    if "groups" in summary:
        kind, results = "agreement", agreement_results(summary)
        dataset, judge = summary.get("ratings"), "human raters"
    elif "scores" in summary and "source" in summary:
        kind, results, dataset = "score", recorded_results(summary), summary.get("source")
        judges = {str(_dict(s).get("judge")) for s in _list(summary.get("scores"))
                  if _dict(s).get("judge")}
        judge = "recorded" + (f": {', '.join(sorted(judges))}" if judges else "")
    elif summary.get("kind") == "rank":
        kind, results, dataset = "rank", rank_results(summary), summary.get("source")
        judge = ("simulated" if summary.get("simulated") is True
                 else summary.get("judge") or "recorded")
    elif isinstance(summary.get("selective"), dict):
        selective = summary["selective"]
        kind, results = "score", selective_results(summary)
        dataset = selective.get("source") or None
        judge = "a run's verdicts" if selective.get("of") == "run" else "recorded"
    else:
        raise DataError(path / "summary.json", "not a summary jurybox wrote (no run.json, "
                                               "no groups, no scores, not a ranking)")
    report, current = _report(path, kind == "agreement")
    partial = kind == "rank" and bool(_count(summary.get("n_failed")))
    return RunEntry(path, name, kind, _file_name(dataset), _text(judge),
                    kind == "rank" and summary.get("simulated") is True,
                    "partial" if partial else "complete",
                    f"{summary.get('n_failed')} pairs without a decision" if partial else "",
                    _text(results), None, None, None, _mtime(path / "summary.json"),
                    report, current)


def _settle_juries(entries: list[RunEntry]) -> list[RunEntry]:
    """A jury without its summary.json is ``running`` while a judge runs, else the worst of
    its judges' statuses (``unfinished`` without any)."""
    out = []
    for entry in entries:
        if entry.kind == "jury" and entry.status == "unfinished":
            prefix = f"{entry.name}/judges/" if entry.name != "." else "judges/"
            judges = [e.status for e in entries if e.name.startswith(prefix)]
            if "running" in judges:
                entry = replace(entry, status="running", note="its judges are running")
            elif judges:
                worst = min(judges, key=_SEVERITY.index)
                entry = replace(entry, status="unfinished" if worst == "complete" else worst,
                                note="no summary.json: the jury did not decide yet")
        out.append(entry)
    return out
