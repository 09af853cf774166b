"""Async execution of judge jobs: concurrency, retries, cache, re-ask."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["AnswerStore", "CallRecord", "Failure", "FailureKind", "Job", "Outcome",
           "RetryPolicy", "Runner", "Totals", "reask_request", "tune_gc"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .gc_tuning import tune_gc
    from .records import CallRecord, Failure, FailureKind, Outcome, Totals
    from .retry import RetryPolicy
    from .runner import AnswerStore, Job, Runner, reask_request
