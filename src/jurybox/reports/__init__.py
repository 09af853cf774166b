"""Run directories and reports."""

from .rundir import (SCHEMA_VERSION, Records, RunDir, iter_records, read_jsonl, unit_of,
                     write_json_atomic)

__all__ = ["SCHEMA_VERSION", "Records", "RunDir", "iter_records", "read_jsonl", "unit_of",
           "write_json_atomic"]
