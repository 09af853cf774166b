"""Comparing judging protocols on labelled datasets (``jurybox bench``, ``jurybox score``)."""

from .rescore import (DecisionDiff, OutputsScore, RecordedAnswers, SkippedLinesWarning,
                      config_from_manifest, rescore_run, score_outputs)
from .run import (DEFAULT_PROTOCOLS, BenchConfig, BenchResult, PreparedBench, arun_bench,
                  prepare_bench, replay_bench, run_bench)
from .summary import BenchSummary, JudgeBenchRule, ProtocolSummary, summarize

__all__ = ["BenchConfig", "BenchResult", "BenchSummary", "DEFAULT_PROTOCOLS", "DecisionDiff",
           "JudgeBenchRule", "OutputsScore", "PreparedBench", "ProtocolSummary",
           "RecordedAnswers", "SkippedLinesWarning", "arun_bench", "config_from_manifest",
           "prepare_bench", "replay_bench", "rescore_run", "run_bench", "score_outputs",
           "summarize"]
