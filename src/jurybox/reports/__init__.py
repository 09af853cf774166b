"""Reports of a run directory (stored by :mod:`jurybox.rundir`): typed per-item views, the
self-contained HTML report with its charts, the index of runs, and exports."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["DEFAULT_MAX_ITEMS", "EXPORT_FORMATS", "FLAG_NAMES", "Attempt", "CallView",
           "CurveCollector", "CurvePoint", "ExportResult", "ItemFlags", "ItemView",
           "PermutationCurve", "ProtocolView", "RunEntry", "RunIndex", "RunReader", "export_run",
           "is_run_folder", "list_runs", "write_index", "permutation_curve", "render_report",
           "report_is_current", "write_report"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .curve import CurveCollector, CurvePoint, PermutationCurve, permutation_curve
    from .freshness import DEFAULT_MAX_ITEMS, report_is_current
    from .html import render_report, write_report
    from .reader import RunReader
    from .index import RunEntry, is_run_folder, list_runs
    from .index_page import RunIndex, write_index
    from .export import EXPORT_FORMATS, ExportResult, export_run
    from .flags import FLAG_NAMES, ItemFlags
    from .views import Attempt, CallView, ItemView, ProtocolView
