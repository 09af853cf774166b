"""Benchmarks of judging protocols on datasets: orchestration over the other layers."""

from .engine import judge_items
from .rescore import (DecisionDiff, OutputsScore, RecordedAnswers, config_from_manifest,
                      rescore_run, score_outputs)
from .run import (BenchConfig, BenchResult, open_provider, run_bench, replay_bench,
                  select_items)
from .summary import summarize

__all__ = ["BenchConfig", "BenchResult", "DecisionDiff", "OutputsScore", "RecordedAnswers",
           "config_from_manifest", "judge_items", "open_provider", "rescore_run", "run_bench",
           "replay_bench", "score_outputs", "select_items", "summarize"]
