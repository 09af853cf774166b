"""Benchmarks of judging protocols on datasets: orchestration over the other layers."""

from .engine import judge_items
from .rescore import (DecisionDiff, OutputsScore, ReplayProvider, config_from_manifest,
                      rescore_run, score_outputs)
from .run import (BenchConfig, BenchResult, open_provider, run_bench, run_with_provider,
                  select_items)
from .summary import summarize

__all__ = ["BenchConfig", "BenchResult", "DecisionDiff", "OutputsScore", "ReplayProvider",
           "config_from_manifest", "judge_items", "open_provider", "rescore_run", "run_bench",
           "run_with_provider", "score_outputs", "select_items", "summarize"]
