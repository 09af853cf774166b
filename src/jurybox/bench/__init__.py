"""Benchmarks of judging protocols on datasets: orchestration over the other layers."""

from .engine import judge_items
from .run import BenchConfig, BenchResult, open_provider, run_bench, select_items
from .summary import summarize

__all__ = ["BenchConfig", "BenchResult", "judge_items", "open_provider", "run_bench",
           "select_items", "summarize"]
