"""Run directories and reports."""

from .rundir import (SCHEMA_VERSION, FailedUnits, Records, RunDir, RunDirBusyError,
                     iter_records, previous_sessions, read_jsonl, read_manifest, unit_of,
                     write_json_atomic)

__all__ = ["SCHEMA_VERSION", "FailedUnits", "Records", "RunDir", "RunDirBusyError",
           "iter_records", "previous_sessions", "read_jsonl", "read_manifest", "unit_of",
           "write_json_atomic"]
