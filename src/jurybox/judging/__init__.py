"""Judging candidates without gold: best-of-N selection and pairwise preference.

``jurybox judge FILE`` and :func:`judge` (items in memory; ``await ajudge(...)`` on a running
event loop) run one protocol and return per-item winners, C_i and its components, agreement
across permutations and flags.
"""

from .results import CSV_COLUMNS, ItemJudgment, JudgeSummary, read_judgments, write_judgments
from .run import (JudgeConfig, JudgeResult, Judgments, ajudge, arun_judge, default_judge_out,
                  judge, prepare_judge, run_judge)

__all__ = ["CSV_COLUMNS", "ItemJudgment", "JudgeConfig", "JudgeResult", "JudgeSummary",
           "Judgments", "ajudge", "arun_judge", "default_judge_out", "judge", "prepare_judge",
           "read_judgments", "run_judge", "write_judgments"]
