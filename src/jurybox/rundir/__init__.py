"""The run directory: where a run is stored, and the one writer of it.

Every judging command writes one folder: ``run.json`` (manifest and sessions),
``calls.jsonl`` (every model call), ``items.jsonl`` (decisions), ``summary.json``, and while
a run is in progress its lock. :class:`RunDir` writes them (resume, sessions, totals),
:mod:`.files` reads and writes the files atomically, :mod:`.lines` reads lines by item
without holding them, :mod:`.lock` keeps a second run out. :mod:`jurybox.reports` renders
what is stored here.
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["FailedUnits", "LockHolder", "RUN_FILE_NAMES", "Records", "RunDir", "RunDirBusyError",
           "RunFiles", "RunLock", "RunPaths", "SCHEMA_VERSION", "call_offsets", "iter_lines_at",
           "iter_records", "line_offsets", "lock_holder", "lock_run_dir", "previous_sessions",
           "read_jsonl", "read_lines_at", "read_manifest", "read_run_files", "unit_of",
           "write_json_atomic", "write_text_atomic"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .files import (SCHEMA_VERSION, Records, iter_records, previous_sessions, read_jsonl,
                        read_manifest, unit_of, write_json_atomic, write_text_atomic)
    from .lines import (RunFiles, call_offsets, iter_lines_at, line_offsets, read_lines_at,
                        read_run_files)
    from .lock import LockHolder, RunDirBusyError, RunLock, lock_holder
    from .layout import RUN_FILE_NAMES, RunPaths
    from .writer import FailedUnits, RunDir, lock_run_dir
