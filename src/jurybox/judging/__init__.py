"""Judging candidates without gold: best-of-N selection and pairwise preference.

``jurybox judge FILE`` and :func:`judge` (items in memory; ``await ajudge(...)`` on a running
event loop) run one protocol and return per-item winners, C_i and its components, agreement
across permutations and flags. :mod:`.config` defines a run, :mod:`.run` runs one,
:mod:`.call` judges items given in memory; juries are :func:`jurybox.judge`'s
(:mod:`jurybox.api`).
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["CSV_COLUMNS", "ItemJudgment", "JudgeConfig", "JudgeResult", "JudgeSummary",
           "Judgments", "ajudge", "arun_judge", "check_judge_arguments", "check_judge_settings",
           "default_judge_out", "judge", "prepare_judge", "read_judgments", "run_judge",
           "write_judgments"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .results import CSV_COLUMNS, ItemJudgment, JudgeSummary, read_judgments, write_judgments
    from .call import ajudge, check_judge_arguments, check_judge_settings, judge
    from .config import JudgeConfig, default_judge_out, prepare_judge
    from .run import JudgeResult, Judgments, arun_judge, run_judge
