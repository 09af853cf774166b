"""Run directories and reports: the files a run writes, typed per-item views of them, and
the self-contained HTML report."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["DEFAULT_MAX_ITEMS", "EXPORT_FORMATS", "FLAG_NAMES", "SCHEMA_VERSION", "Attempt",
           "CallView", "CurveCollector", "CurvePoint", "ExportResult", "FailedUnits", "ItemFlags",
           "ItemView", "PermutationCurve", "ProtocolView", "Records", "RunDir", "RunDirBusyError",
           "RunEntry", "RunIndex", "RunLock", "RunReader", "export_run", "is_run_folder",
           "list_runs", "write_index", "iter_records", "lock_run_dir",
           "permutation_curve", "previous_sessions",
           "read_jsonl", "read_manifest", "render_report", "unit_of", "write_json_atomic",
           "report_is_current", "write_report"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "CurveCollector": ".curve",
    "CurvePoint": ".curve",
    "PermutationCurve": ".curve",
    "permutation_curve": ".curve",
    "DEFAULT_MAX_ITEMS": ".freshness",
    "render_report": ".html",
    "write_report": ".html",
    "report_is_current": ".freshness",
    "RunReader": ".reader",
    "RunEntry": ".index",
    "is_run_folder": ".index",
    "list_runs": ".index",
    "RunIndex": ".index_page",
    "write_index": ".index_page",
    "EXPORT_FORMATS": ".export",
    "ExportResult": ".export",
    "export_run": ".export",
    "SCHEMA_VERSION": ".rundir",
    "FailedUnits": ".rundir",
    "Records": ".rundir",
    "RunDir": ".rundir",
    "RunDirBusyError": ".rundir",
    "RunLock": ".rundir",
    "iter_records": ".rundir",
    "lock_run_dir": ".rundir",
    "previous_sessions": ".rundir",
    "read_jsonl": ".rundir",
    "read_manifest": ".rundir",
    "unit_of": ".rundir",
    "write_json_atomic": ".rundir",
    "FLAG_NAMES": ".flags",
    "Attempt": ".views",
    "CallView": ".views",
    "ItemFlags": ".flags",
    "ItemView": ".views",
    "ProtocolView": ".views",
})

if _typing.TYPE_CHECKING:
    from .curve import CurveCollector, CurvePoint, PermutationCurve, permutation_curve
    from .freshness import DEFAULT_MAX_ITEMS, report_is_current
    from .html import render_report, write_report
    from .reader import RunReader
    from .index import RunEntry, is_run_folder, list_runs
    from .index_page import RunIndex, write_index
    from .export import EXPORT_FORMATS, ExportResult, export_run
    from .rundir import (SCHEMA_VERSION, FailedUnits, Records, RunDir, RunDirBusyError, RunLock,
                         iter_records, lock_run_dir, previous_sessions, read_jsonl, read_manifest,
                         unit_of, write_json_atomic)
    from .flags import FLAG_NAMES, ItemFlags
    from .views import Attempt, CallView, ItemView, ProtocolView
