"""Whether report.html is up to date: the page records a digest of the run files it was made
from, so ``jurybox report`` on an unchanged run returns at once (a light module: it imports
neither the report's statistics nor its templates)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .._version import __version__

__all__ = ["DEFAULT_MAX_ITEMS", "INPUTS_META", "report_inputs", "report_is_current"]

#: Items the report's item browser holds at most (the default of ``jurybox report``).
DEFAULT_MAX_ITEMS = 300
#: The ``<meta>`` of report.html naming what it was made from (:func:`report_inputs`).
INPUTS_META = "jurybox-report-inputs"
_INPUTS_RE = re.compile(rf'<meta name="{INPUTS_META}" content="([0-9a-f]+)">')


def report_inputs(run_dir: str | Path, *, max_items: int = DEFAULT_MAX_ITEMS) -> str:
    """A digest (32 hex digits) of what a report is made from: the jurybox version,
    ``max_items``, and the name, size and modification time (ns) of every file of the run
    directory but report.html and the lock. Any change to the run gives another digest."""
    entries = []
    for path in sorted(Path(run_dir).iterdir()):
        if path.name.startswith("report.html") or path.name == "lock" or not path.is_file():
            continue
        stat = path.stat()
        entries.append([path.name, stat.st_size, stat.st_mtime_ns])
    payload = json.dumps([__version__, max_items, entries]).encode()
    return hashlib.sha256(payload).hexdigest()[:32]


def report_is_current(run_dir: str | Path, *, max_items: int = DEFAULT_MAX_ITEMS) -> bool:
    """``run_dir/report.html`` was written by this jurybox from the run's files as they are
    now (its :data:`INPUTS_META` equals :func:`report_inputs`): rewriting it would give the
    same page. Reads the page's first 4 KB only."""
    try:
        with (Path(run_dir) / "report.html").open("rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
        found = _INPUTS_RE.search(head)
        return found is not None and found.group(1) == report_inputs(run_dir,
                                                                      max_items=max_items)
    except OSError:
        return False


