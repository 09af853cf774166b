"""``index.html``: one self-contained page listing the runs in a folder (inline CSS and JS;
no URL but relative links to the runs' own report.html).

Every text from a run's files (folder names, datasets, judge names) is escaped by jinja2's
autoescape, as in report.html; links are percent-encoded relative paths. The page is
readable without JavaScript (a plain table, every run shown); the script adds sorting by any
column and filters by text, kind and status (kept in the URL hash, ``#kind=bench``).

:func:`write_index` first writes the report.html of each run that has none or an out-of-date
one (as ``jurybox report RUN`` would; a running run is left to write its own), so that every
run a report can be made for links to one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from .._version import __version__
from ..errors import ConfigError, JuryboxError
from .assets import asset, page_script
from .freshness import DEFAULT_MAX_ITEMS
from .index import MAX_DEPTH, RunEntry, is_run_folder, list_runs, no_runs_error

__all__ = ["INDEX_NAME", "RunIndex", "cost_text", "render_index", "write_index"]

#: The page's file name in the folder of runs.
INDEX_NAME = "index.html"


@dataclass(frozen=True)
class RunIndex:
    """What :func:`write_index` did.

    Attributes:
        path: the index.html written.
        runs: the runs it lists (after their reports were written).
        reports_written: names (:attr:`RunEntry.name`) of the runs whose report.html was
            written now.
        report_failures: (name, why) of the runs whose report.html could not be written.
    """

    path: Path
    runs: tuple[RunEntry, ...]
    reports_written: tuple[str, ...]
    report_failures: tuple[tuple[str, str], ...]


def _href(entry: RunEntry, target: Path) -> str:
    """``target`` (a file of the run) relative to the index, each segment percent-encoded
    (a folder named ``javascript:x`` or ``a#b`` stays a relative path)."""
    parts = [] if entry.name == "." else entry.name.split("/")
    return "/".join(quote(p, safe="") for p in [*parts, target.name])


def _when(moment: datetime | None) -> str:
    """``2026-12-02 16:21`` (UTC; a time without a zone as written)."""
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M")


def _wrap_path(name: str) -> Markup:
    """A run's name, escaped, with a break opportunity after each ``/``."""
    return Markup("/<wbr>").join(escape(part) for part in name.split("/"))


def _row(entry: RunEntry) -> dict[str, Any]:
    summary = entry.path / "summary.json"
    link = entry.report or (summary if entry.kind == "score" and summary.is_file() else None)
    return {"entry": entry, "href": _href(entry, link) if link else None,
            "link_text": "report" if entry.report else link.name if link else "",
            "when": _when(entry.started),
            "when_key": entry.started.isoformat() if entry.started else "",
            "usd": cost_text(entry)}


def cost_text(entry: RunEntry) -> str:
    """The USD cell: ``0.0123``; ``0`` for the simulated judge; ``—`` when unpriced or no
    model was called."""
    if entry.usd is not None:
        return f"{entry.usd:.4f}"
    return "0" if entry.simulated and entry.model_calls else "—"


def render_index(folder: str | Path, runs: list[RunEntry] | tuple[RunEntry, ...]) -> str:
    """The index page of ``folder`` listing ``runs`` (from :func:`~.index.list_runs`)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("jurybox.reports", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    counts = Counter(entry.status for entry in runs)
    env.globals["wrap_path"] = _wrap_path
    return env.get_template("index.html.j2").render(
        title=Path(folder).resolve().name, rows=[_row(e) for e in runs],
        counts=sorted(counts.items(), key=lambda kv: -kv[1]),
        kinds=sorted({e.kind for e in runs}), statuses=sorted(counts),
        simulated=any(e.simulated for e in runs), css=asset("report.css"),
        js=page_script("index.js"), jurybox_version=__version__,
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


def write_index(folder: str | Path, *, update_reports: bool = True, force: bool = False,
                max_items: int = DEFAULT_MAX_ITEMS, max_depth: int = MAX_DEPTH) -> RunIndex:
    """Write ``folder/index.html`` listing every run in it (:func:`~.index.list_runs`).

    Args:
        folder: a folder of runs (not itself a run).
        update_reports: first write the report.html of each run that has none or an
            out-of-date one (not of a running or unreadable run, nor of recorded scores,
            which have none); False: link the reports as they are.
        force: rewrite every run's report.html (with ``update_reports``).
        max_items: the reports' item browser size (see :func:`~.html.write_report`).
        max_depth: folder levels searched.

    Raises:
        DataError: ``folder`` does not exist or holds no run (:func:`~.index.no_runs_error`).
        ConfigError: ``folder`` is itself a run (its report is report.html).
        RunWriteError: index.html cannot be written.
    """
    folder = Path(folder)
    if folder.is_dir() and is_run_folder(folder):
        raise ConfigError(f"{str(folder)!r} is a run directory, not a folder of runs: "
                          f"its page is report.html (jurybox report {folder})")
    runs = list_runs(folder, max_depth=max_depth)
    if not runs:
        raise no_runs_error(folder, max_depth)
    written: list[str] = []
    failures: list[tuple[str, str]] = []
    if update_reports:
        for i, entry in enumerate(runs):
            outcome = _update_report(entry, force=force, max_items=max_items)
            if isinstance(outcome, Path):
                written.append(entry.name)
                runs[i] = replace(entry, report=outcome,
                                  report_current=None if entry.kind == "jury" else True)
            elif outcome:
                failures.append((entry.name, outcome))
    from ..rundir import write_text_atomic  # the run directory's writer, loaded when writing

    path = folder / INDEX_NAME
    write_text_atomic(path, render_index(folder, runs))
    return RunIndex(path, tuple(runs), tuple(written), tuple(failures))


def _update_report(entry: RunEntry, *, force: bool, max_items: int) -> Path | str | None:
    """Write ``entry``'s report.html when due: its path; the reason when it could not be
    written; None when not due (up to date, running, unreadable, recorded scores)."""
    if entry.status in ("running", "unreadable") or entry.kind not in REPORTED:
        return None
    if entry.kind == "score" and not (entry.path / "run.json").is_file():
        return None  # scores of recorded outputs: summary.json is all there is
    try:
        if entry.kind == "jury":
            if entry.report is not None and not force:
                return None  # a jury's page records no inputs to compare with
            from ..jury.report import write_jury_report

            return write_jury_report(entry.path)
        from .freshness import report_is_current

        if not force and report_is_current(entry.path, max_items=max_items):
            return None
        from .html import write_report

        return write_report(entry.path, max_items=max_items)
    except (JuryboxError, OSError, ValueError, KeyError, TypeError) as exc:  # a damaged run
        return " ".join(str(exc).split())[:200]


#: Kinds of run that have a report.html.
REPORTED = ("bench", "judge", "personalize", "score", "jury", "agreement")
