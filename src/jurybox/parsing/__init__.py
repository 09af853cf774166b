"""Robust extraction and validation of judge output."""

from .extract import json_objects, looks_like_refusal, strip_thinking
from .listwise import CandidateJudgment, ListwiseJudgment, parse_listwise
from .rubric import MARKER_CONFIDENCE, RubricJudgment, parse_rubric, parse_rubric_marker
from .verdict import ShownVerdict, VerdictJudgment, parse_verdict, token_verdict

__all__ = [
    "MARKER_CONFIDENCE",
    "CandidateJudgment",
    "ListwiseJudgment",
    "RubricJudgment",
    "ShownVerdict",
    "VerdictJudgment",
    "json_objects",
    "looks_like_refusal",
    "parse_listwise",
    "parse_rubric",
    "parse_rubric_marker",
    "parse_verdict",
    "strip_thinking",
    "token_verdict",
]
