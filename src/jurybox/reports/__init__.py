"""Run directories and reports."""

from .rundir import SCHEMA_VERSION, RunDir, read_jsonl, write_json_atomic

__all__ = ["SCHEMA_VERSION", "RunDir", "read_jsonl", "write_json_atomic"]
