"""``jurybox runs``: the runs in a folder, one row each, in the terminal."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated


from ._declared import argument
from ..terminal import data, safe_text
from ._common import console, fail_cleanly

if TYPE_CHECKING:
    from rich.table import Table

    from ..reports.index import RunEntry

#: Status styles: green when complete, red when something is missing, blue while running.
_STYLES = {"complete": "green", "running": "blue", "partial": "red", "interrupted": "red",
           "failed": "red", "killed": "red", "unfinished": "red", "unreadable": "bold red"}


#: Narrowest widths: results legible (``both-orders 86.4%``), a status on one line.
_MIN_WIDTHS = {"results": 12, "status": 11, "started": 11}
#: Widest, when narrow (the rest for the results).
_MAX_WIDTHS = {"run": 20, "status": 12}
#: Below this many columns the table folds kind, data and judge under the run's name.
WIDE = 140


def runs_table(runs: list[RunEntry], title: str, *, width: int) -> Table:
    """One row per run: name, kind, data, judge, status (and its note), results, model
    calls, USD (a column only when some run was priced), start time (UTC). Narrower than
    :data:`WIDE` columns, kind, data and judge go under the name and each result on its own
    line, so 80 columns stay readable. Every text from a run's files goes through
    :func:`jurybox.terminal.data`."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from ..reports.index_page import cost_text
    from ..reports.index_results import SEPARATOR

    wide, priced = width >= WIDE, any(e.usd is not None for e in runs)
    table = Table(title=data(title), title_justify="left", caption_justify="left",
                  box=box.HEAVY_HEAD if wide else box.SIMPLE_HEAD, pad_edge=wide, show_edge=wide,
                  leading=0 if wide else 1,
                  caption=(
                      "results: accuracy per protocol (bench, score); items, flip rate, "
                      "candidate 0's won/lost/tied (pairwise) and accuracy on labelled items "
                      "(judge); alpha (agreement, jury, personalize); Bradley-Terry scores "
                      "(rank); sets certified (score --target-agreement). calls: model calls over "
                      "every session of the run (cache hits not counted: 0 for a run answered "
                      "from the cache). started: UTC."))
    columns = ["run", *(["kind", "data", "judge"] if wide else []), "status", "results",
               "calls", *(["USD"] if priced else []), "started"]
    for name in columns:
        table.add_column(name, justify="right" if name in ("calls", "USD") else "left",
                         overflow="fold",
                         min_width=_MIN_WIDTHS.get(name),
                         max_width=None if wide else _MAX_WIDTHS.get(name))
    for e in runs:
        status = data(e.status, style=_STYLES.get(e.status, ""))
        if e.note:
            status.append("\n" + safe_text(e.note), style="dim")
        run = data(e.name, style="bold")
        if not wide:
            run.append("\n" + safe_text(" · ".join(x for x in (e.kind, e.dataset, e.judge)
                                                    if x)), style="dim")
        results = (data(e.results) if wide else
                   Text("\n").join(data(part) for part in e.results.split(SEPARATOR)))
        table.add_row(run, *([data(e.kind), data(e.dataset or "—"), data(e.judge or "—")]
                             if wide else []),
                      status, results if e.results else "—",
                      "—" if e.model_calls is None else f"{e.model_calls:,}",
                      *([cost_text(e)] if priced else []),
                      e.started.strftime("%Y-%m-%d %H:%M" if wide else "%m-%d %H:%M")
                      if e.started else "—")
    return table


def _where(folder: Path) -> str:
    """The line saying where index.html is, or how to write it (for one run: its report)."""
    from ..reports.index import is_run_folder

    index = folder / "index.html"
    command = f"jurybox report {shlex.quote(str(folder))}"
    if is_run_folder(folder):
        return f"a run directory: its page is {folder / 'report.html'} ({command} updates it)"
    if index.is_file():
        return (f"index.html: {index} ({command} rewrites it, and any report out of date); "
                f"open it in a browser")
    return (f"{command} writes {index}: this table as one page linking each run's "
            f"report.html")


def print_index(folder: Path, *, force: bool, max_items: int) -> None:
    """``jurybox report FOLDER`` for a folder of runs: write the reports that are due and
    index.html, then say what was written (a report that could not be written: a warning
    line naming the run and why)."""
    from collections import Counter

    from ..reports.index_page import write_index
    from ._common import warn

    done = write_index(folder, force=force, max_items=max_items)
    for name, why in done.report_failures:
        warn(f"no report for {name}: {why}")
    counts = Counter(e.status for e in done.runs)
    statuses = ", ".join(f"{n} {status}" for status, n in counts.most_common())
    written = len(done.reports_written)
    console.print(safe_text(
        f"written: {done.path} ({len(done.runs)} run{'s' * (len(done.runs) != 1)}: "
        f"{statuses}; {written} run report{'s' * (written != 1)} written: missing or out "
        f"of date)"), markup=False, soft_wrap=True,
        highlight=False)


@fail_cleanly
def runs(
    folder: Annotated[Path, argument("runs folder")] = Path("runs"),
) -> None:
    """The runs in a folder, one row each: kind, data, judge (simulated said plainly),
    status (complete, partial, interrupted, failed, killed, running, or unreadable with the
    reason), the headline results, model calls, USD when priced, and when it started. Reads
    run.json and summary.json only (no model calls); `jurybox report FOLDER` writes the same
    table as FOLDER/index.html, linking each run's report."""
    from ..reports.index import list_runs, no_runs_error

    found = list_runs(folder)
    if not found:
        raise no_runs_error(folder)
    console.print(runs_table(found, f"{len(found)} run{'s' * (len(found) != 1)} in {folder}",
                             width=console.width))
    console.print(safe_text(_where(folder)), markup=False, highlight=False, soft_wrap=True)


__all__ = ["print_index", "runs", "runs_table"]
