"""``jurybox report``: write a run directory's self-contained report.html."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated


from ._declared import argument, declared
from ..terminal import safe_text
from ._common import console, fail_cleanly


@fail_cleanly
def report(
    run: Annotated[Path, argument("report run")],
    max_items: Annotated[int, declared("report --max-items", min=1)] = 300,
    force: Annotated[bool, declared("report --force")] = False,
) -> None:
    """Write RUN/report.html: one self-contained page (no network) with the summary table,
    the run's totals (calls, cache hits, retries, re-asks, failures, tokens, cost) and
    warnings, accuracy against the number of permutations used, position effects, flip
    rates, length bias, agreement or alignment, and an item browser with filters. Every
    judging command writes it at the end; this rewrites it (say after an interrupted run)
    with no model calls. A report already written by this jurybox from the run's files as
    they are now is left as it is (--force rewrites it). Given a folder of runs, it writes
    each run's report that is missing or out of date, then FOLDER/index.html: one page
    listing every run (kind, data, judge, status, results, calls, cost) with a link to each
    report."""
    from ..jury.report import is_jury_dir

    if is_jury_dir(run) and not (run / "run.json").exists():  # a jury's run directory
        from ..jury.report import write_jury_report

        console.print(safe_text(f"written: {write_jury_report(run)}"), markup=False)
        return
    from ..reports.index import is_run_folder

    if run.is_dir() and not is_run_folder(run):  # a folder of runs: index.html
        from .runs import print_index

        print_index(run, force=force, max_items=max_items)
        return
    from ..reports import report_is_current

    if not force and run.is_dir() and report_is_current(run, max_items=max_items):
        console.print(safe_text(f"up to date: {run / 'report.html'} (the run has not changed "
                                f"since it was written; --force rewrites it)"), markup=False)
        return
    from ..reports import write_report  # the statistics and templates: only to write

    console.print(safe_text(f"written: {write_report(run, max_items=max_items)}"),
                  markup=False)


__all__ = ["report"]
