"""The union of the decisions the built-in protocols return."""

from .listwise import ListwiseDecision
from .pairwise import PairwiseDecision
from .rubric import RubricDecision

__all__ = ["Decision"]

#: What a protocol's ``judge`` returns.
Decision = ListwiseDecision | PairwiseDecision | RubricDecision
