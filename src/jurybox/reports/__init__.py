"""Run directories and reports: the files a run writes, typed per-item views of them, and
the self-contained HTML report."""

from .curve import CurveCollector, CurvePoint, PermutationCurve, permutation_curve
from .html import DEFAULT_MAX_ITEMS, render_report, write_report
from .reader import RunReader
from .export import EXPORT_FORMATS, ExportResult, export_run
from .rundir import (SCHEMA_VERSION, FailedUnits, Records, RunDir, RunDirBusyError, RunLock,
                     iter_records, lock_run_dir, previous_sessions, read_jsonl, read_manifest,
                     unit_of, write_json_atomic)
from .views import FLAG_NAMES, Attempt, CallView, ItemFlags, ItemView, ProtocolView

__all__ = ["DEFAULT_MAX_ITEMS", "EXPORT_FORMATS", "FLAG_NAMES", "SCHEMA_VERSION", "Attempt",
           "CallView", "CurveCollector", "CurvePoint", "ExportResult", "FailedUnits", "ItemFlags",
           "ItemView", "PermutationCurve", "ProtocolView", "Records", "RunDir", "RunDirBusyError",
           "RunLock", "RunReader", "export_run", "iter_records", "lock_run_dir",
           "permutation_curve", "previous_sessions",
           "read_jsonl", "read_manifest", "render_report", "unit_of", "write_json_atomic",
           "write_report"]
