"""A jury: several judges (models) as one panel (PoLL, Verga et al. 2024, arXiv 2404.18796).

- ``rules``: how the judges' decisions become the jury's (pure functions, no model calls),
  shared by live juries and by juries of recorded judgments.
- ``panel``: the jury file (YAML) and the short form ``--model a,b,c``.
- ``run``: each judge runs the protocol on every item in a run directory of its own
  (``OUT/judges/<name>``), then the jury decides (``OUT/items.jsonl``, ``OUT/summary.json``).
- ``combine``: the jury's records; ``summary``: per-judge and jury statistics, agreement.
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from .rules import JuryVote, check_weights, jury_listwise, jury_pairwise

__all__ = ["JudgePlan", "Juror", "Jury", "JuryResult", "JurySummary", "JuryVote", "arun_jury",
           "check_weights", "jury_from_models", "jury_listwise", "jury_of", "jury_pairwise",
           "load_jury", "plan_jury", "run_jury"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .panel import Juror, Jury, jury_from_models, jury_of, load_jury
    from .run import JudgePlan, JuryResult, arun_jury, plan_jury, run_jury
    from .summary import JurySummary
