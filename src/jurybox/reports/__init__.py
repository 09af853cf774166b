"""Run directories and reports."""

from .export import EXPORT_FORMATS, ExportResult, export_run
from .rundir import (SCHEMA_VERSION, FailedUnits, Records, RunDir, RunDirBusyError,
                     iter_records, previous_sessions, read_jsonl, read_manifest, unit_of,
                     write_json_atomic)

__all__ = ["EXPORT_FORMATS", "ExportResult", "export_run", "SCHEMA_VERSION", "FailedUnits",
           "Records", "RunDir", "RunDirBusyError", "iter_records", "previous_sessions",
           "read_jsonl", "read_manifest", "unit_of", "write_json_atomic"]
