"""Judging protocols: build requests, turn parsed judgments into decisions."""

from .aggregate import Consensus, RunView, Weights, consensus, credit, run_view, winners
from .base import (PROTOCOLS, ListwiseDecision, ListwiseProtocol, PlannedCall, build_protocol,
                   register)
from .listwise import DirectProtocol, PCFProtocol
from .permutations import base_order, permutation_set
from .prompts import escape_text, labels_for, listwise_request, request_tag

__all__ = [
    "PROTOCOLS",
    "Consensus",
    "DirectProtocol",
    "ListwiseDecision",
    "ListwiseProtocol",
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
    "register",
    "request_tag",
    "run_view",
    "winners",
]
