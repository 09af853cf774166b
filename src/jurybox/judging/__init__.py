"""Judging candidates without gold: best-of-N selection and pairwise preference.

``jurybox judge FILE`` and :func:`judge` (items in memory; ``await ajudge(...)`` on a running
event loop) run one protocol and return per-item winners, C_i and its components, agreement
across permutations and flags.
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["CSV_COLUMNS", "ItemJudgment", "JudgeConfig", "JudgeResult", "JudgeSummary",
           "Judgments", "ajudge", "arun_judge", "default_judge_out", "judge", "prepare_judge",
           "read_judgments", "run_judge", "write_judgments"]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "CSV_COLUMNS": ".results",
    "ItemJudgment": ".results",
    "JudgeSummary": ".results",
    "read_judgments": ".results",
    "write_judgments": ".results",
    "JudgeConfig": ".run",
    "JudgeResult": ".run",
    "Judgments": ".run",
    "ajudge": ".run",
    "arun_judge": ".run",
    "default_judge_out": ".run",
    "judge": ".run",
    "prepare_judge": ".run",
    "run_judge": ".run",
})

if _typing.TYPE_CHECKING:
    from .results import CSV_COLUMNS, ItemJudgment, JudgeSummary, read_judgments, write_judgments
    from .run import (JudgeConfig, JudgeResult, Judgments, ajudge, arun_judge, default_judge_out,
                      judge, prepare_judge, run_judge)
