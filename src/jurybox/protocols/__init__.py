"""Judging protocols: each takes an item and a way to make calls and returns a decision."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = [
    "APOCJudge", "BothOrders", "Calls", "Condition", "Consensus", "Decision", "DimensionResult",
    "CallBudget", "DirectProtocol", "Example", "JUDGE_KINDS", "JudgeKind", "JudgingProtocol",
    "KeyedJudge",
    "ListwiseDecision", "PCFProtocol", "PROTOCOLS", "PairwiseDecision", "PairwiseDirect",
    "PairwiseRule", "PlannedCall", "PlannedProtocol", "ProtocolClass", "RUBRIC_ANSWER_FORMATS",
    "RUBRIC_MARKER", "RubricAnswerFormat", "RubricContext", "RubricDecision", "RubricJudge",
    "RunView", "Selection", "Task", "Unit", "Vote", "Weights", "apoc_verdict",
    "base_order", "build_protocol", "consensus", "credit", "decoding_seed", "escape_text",
    "labels_for", "listwise_request", "listwise_schema", "net_verdict", "pairwise_request",
    "permutation_set", "protocol_class", "protocol_label", "protocol_names", "register",
    "request_tag",
    "rubric_parser", "rubric_request", "rubric_schema", "run_view", "select_examples",
    "strict_verdict", "to_original", "verdict_schema", "vote", "winners",
]

_exported, __dir__ = _lazy_exports(__name__)
#: Names that need every built-in protocol registered: reading them imports the modules whose
#: ``@register`` decorators fill the registry.
_REGISTRY = frozenset({"PROTOCOLS", "build_protocol", "protocol_class", "protocol_names"})


def __getattr__(name: str) -> _typing.Any:
    if name in _REGISTRY:
        from . import listwise, pairwise, rubric  # noqa: F401 - they register the protocols
    return _exported(name)


if _typing.TYPE_CHECKING:
    from .aggregate import Consensus, RunView, Weights, consensus, credit, run_view, winners
    from .base import (PROTOCOLS, CallBudget, Calls, JudgingProtocol, PlannedCall, PlannedProtocol,
                       ProtocolClass, Task, build_protocol, protocol_class, protocol_label,
                       protocol_names, register)
    from .examples import JUDGE_KINDS, Example, JudgeKind, Selection, select_examples
    from .listwise import DirectProtocol, ListwiseDecision, PCFProtocol
    from .pairwise import (APOCJudge, BothOrders, KeyedJudge, PairwiseDecision, PairwiseDirect,
                           PairwiseRule, apoc_verdict, net_verdict, strict_verdict, to_original)
    from .pairwise_prompts import pairwise_request
    from .permutations import base_order, permutation_set
    from .prompts import escape_text, labels_for, listwise_request, request_tag
    from .rubric import (Condition, DimensionResult, RubricContext, RubricDecision, RubricJudge,
                         Unit, Vote, decoding_seed, vote)
    from .rubric_prompts import (RUBRIC_ANSWER_FORMATS, RUBRIC_MARKER, RubricAnswerFormat,
                                 rubric_parser, rubric_request)
    from .schemas import listwise_schema, rubric_schema, verdict_schema
    from .decisions import Decision
