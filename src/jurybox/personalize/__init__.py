"""Pluralistic rubric judges: zero-shot, aggregate and personalized few-shot judges, evaluated
against each rater (arXiv 2604.22517). The judges themselves are the ``rubric`` protocol
(:class:`jurybox.protocols.RubricJudge`); this package plans the units and evaluates."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["AlignmentRow", "MeanCI", "PersonalizeConfig", "PersonalizeResult",
           "PersonalizeSummary", "PreparedPersonalize", "ReasoningSimilarity",
           "ShotComparison", "alignment", "arun_personalize", "check_scales", "conditions",
           "paired_personalized_vs_aggregate", "prepare_personalize", "reasoning_similarity",
           "run_personalize", "select_units"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .evaluate import (AlignmentRow, MeanCI, ReasoningSimilarity, ShotComparison, alignment,
                           paired_personalized_vs_aggregate, reasoning_similarity)
    from .plan import conditions, select_units
    from .run import (PersonalizeConfig, PersonalizeResult, PersonalizeSummary, PreparedPersonalize,
                      arun_personalize, check_scales, prepare_personalize, run_personalize)
