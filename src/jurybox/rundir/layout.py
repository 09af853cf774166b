"""Where a run directory keeps what: the file names, written once, and :class:`RunPaths`, the
paths of one run directory's files (what the writer, :class:`~jurybox.rundir.RunDir`, and the
reader, :class:`~jurybox.reports.RunReader`, both need)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["CALLS_FILE", "INPUT_FILE", "ITEMS_FILE", "JUDGMENTS_CSV", "JUDGMENTS_JSONL",
           "MANIFEST_FILE", "REPORT_FILE", "RUN_FILE_NAMES", "RunPaths", "SELECTIVE_FILE",
           "SUMMARY_FILE"]

#: The manifest: configuration, sessions, totals, status.
MANIFEST_FILE = "run.json"
#: Every model call, appended as it happens.
CALLS_FILE = "calls.jsonl"
#: Per (item, protocol) decisions, appended as each item finishes.
ITEMS_FILE = "items.jsonl"
#: The aggregate statistics, written at the end.
SUMMARY_FILE = "summary.json"
#: The items a Python call (``jurybox.judge(items)``) judged, as the run read them.
INPUT_FILE = "input.jsonl"
#: The HTML report.
REPORT_FILE = "report.html"
#: One judgment per item, in input order (``jurybox judge``'s export).
JUDGMENTS_JSONL = "judgments.jsonl"
JUDGMENTS_CSV = "judgments.csv"
#: Selective judging of the run's verdicts (``bench``/``judge --target-agreement``).
SELECTIVE_FILE = "selective.json"
#: Names jurybox writes into a run directory (before run.json exists, a folder holding
#: anything else and none of these is someone else's: --out / or a folder of notes).
RUN_FILE_NAMES = frozenset({INPUT_FILE, MANIFEST_FILE, CALLS_FILE, ITEMS_FILE, SUMMARY_FILE,
                            REPORT_FILE, JUDGMENTS_JSONL, JUDGMENTS_CSV, SELECTIVE_FILE})


class _InRun:
    """The path of the file ``name`` in a :class:`RunPaths`' run directory (read-only)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, run: RunPaths, owner: type | None = None) -> Path:
        return run.path / self.name

    def __set__(self, run: RunPaths, value: Path) -> None:
        raise AttributeError(f"{self.name}'s path is that of the run directory")


class RunPaths:
    """The paths of the files of the run directory ``path`` (a base of the classes that open
    one; nothing is read or checked here).

    Attributes:
        path: the run directory.
        manifest_path, calls_path, items_path, summary_path: its files (``path`` joined with
            :data:`MANIFEST_FILE`, :data:`CALLS_FILE`, :data:`ITEMS_FILE`,
            :data:`SUMMARY_FILE`).
    """

    path: Path
    manifest_path = _InRun(MANIFEST_FILE)
    calls_path = _InRun(CALLS_FILE)
    items_path = _InRun(ITEMS_FILE)
    summary_path = _InRun(SUMMARY_FILE)
