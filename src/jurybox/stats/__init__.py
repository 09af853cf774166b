"""Statistics: accuracy, paired comparison, order diagnostics. Result objects, not floats."""

from .accuracy import AccuracyResult, accuracy
from .judgebench import (BucketAccuracy, JudgeBenchCounts, bucket_accuracy, judgebench_counts,
                         judgebench_vote)
from .order import OrderDiagnostics, order_diagnostics
from .paired import PairedComparison, paired_comparison

__all__ = ["AccuracyResult", "BucketAccuracy", "JudgeBenchCounts", "OrderDiagnostics",
           "PairedComparison", "accuracy", "bucket_accuracy", "judgebench_counts",
           "judgebench_vote", "order_diagnostics", "paired_comparison"]
