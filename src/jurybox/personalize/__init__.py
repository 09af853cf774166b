"""Pluralistic rubric judges: zero-shot, aggregate and personalized few-shot judges, evaluated
against each rater (arXiv 2604.22517)."""

from .evaluate import alignment, paired_personalized_vs_aggregate, reasoning_similarity
from .judge import JudgeContext, judge_unit
from .plan import Condition, Unit, conditions, select_units
from .run import PersonalizeConfig, PersonalizeResult, run_personalize

__all__ = ["Condition", "JudgeContext", "PersonalizeConfig", "PersonalizeResult", "Unit",
           "alignment", "conditions", "judge_unit", "paired_personalized_vs_aggregate",
           "reasoning_similarity", "run_personalize", "select_units"]
