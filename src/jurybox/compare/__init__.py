"""Comparing judging protocols on labelled datasets (``jurybox bench``, ``jurybox score``)."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["BenchConfig", "BenchResult", "BenchSummary", "DEFAULT_PROTOCOLS", "DecisionDiff",
           "JudgeBenchRule", "JudgingSettings", "OutputsScore", "PreparedBench", "ProtocolSummary",
           "RecordedAnswers", "SkippedLinesWarning", "arun_bench", "config_from_manifest",
           "prepare_bench", "replay_bench", "rescore_run", "run_bench", "score_outputs",
           "summarize"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .rescore import (DecisionDiff, OutputsScore, RecordedAnswers, SkippedLinesWarning,
                          config_from_manifest, rescore_run, score_outputs)
    from .config import BenchConfig, JudgingSettings
    from .run import (DEFAULT_PROTOCOLS, BenchResult, PreparedBench, arun_bench,
                      prepare_bench, replay_bench, run_bench)
    from .summary import BenchSummary, JudgeBenchRule, ProtocolSummary, summarize
