"""Statistics: accuracy, paired comparison, order diagnostics. Result objects, not floats."""

from .accuracy import AccuracyResult, accuracy
from .order import OrderDiagnostics, order_diagnostics
from .paired import PairedComparison, paired_comparison

__all__ = ["AccuracyResult", "OrderDiagnostics", "PairedComparison", "accuracy",
           "order_diagnostics", "paired_comparison"]
