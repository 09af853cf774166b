"""Judging protocols: build requests, turn parsed judgments into decisions."""

from .aggregate import Consensus, RunView, Weights, consensus, credit, run_view, winners
from .base import (PROTOCOLS, ListwiseDecision, JudgingProtocol, PlannedCall, build_protocol,
                   protocol_names, register)
from .listwise import DirectProtocol, PCFProtocol
from .pairwise import (APOCJudge, BothOrders, KeyedJudge, PairwiseDecision, PairwiseDirect,
                       apoc_verdict, net_verdict, to_original)
from .examples import CONFIGS, Example, Selection, select_examples
from .pairwise_prompts import pairwise_request
from .rubric import RUBRIC_MARKER, Vote, rubric_parser, rubric_request, vote
from .permutations import base_order, permutation_set
from .prompts import escape_text, labels_for, listwise_request, request_tag

__all__ = [
    "CONFIGS",
    "PROTOCOLS",
    "RUBRIC_MARKER",
    "Example",
    "Selection",
    "Vote",
    "rubric_parser",
    "rubric_request",
    "select_examples",
    "vote",
    "APOCJudge",
    "BothOrders",
    "KeyedJudge",
    "PairwiseDecision",
    "PairwiseDirect",
    "apoc_verdict",
    "net_verdict",
    "pairwise_request",
    "to_original",
    "Consensus",
    "DirectProtocol",
    "ListwiseDecision",
    "JudgingProtocol",
    "PCFProtocol",
    "PlannedCall",
    "RunView",
    "Weights",
    "base_order",
    "build_protocol",
    "consensus",
    "credit",
    "escape_text",
    "labels_for",
    "listwise_request",
    "permutation_set",
    "protocol_names",
    "register",
    "request_tag",
    "run_view",
    "winners",
]
