"""Async execution of judge jobs: concurrency, retries, cache, re-ask."""

from .gc_tuning import tune_gc
from .records import CallRecord, Failure, FailureKind, Outcome, Totals
from .retry import RetryPolicy
from .runner import AnswerStore, Job, Runner, reask_request

__all__ = ["AnswerStore", "CallRecord", "Failure", "FailureKind", "Job", "Outcome",
           "RetryPolicy", "Runner", "Totals", "reask_request", "tune_gc"]
