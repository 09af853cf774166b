"""Robust extraction and validation of judge output."""

from .extract import json_objects, looks_like_refusal, strip_thinking
from .listwise import CandidateJudgment, ListwiseJudgment, parse_listwise
from .rubric import RubricJudgment, parse_rubric
from .verdict import ShownVerdict, VerdictJudgment, parse_verdict, token_verdict

__all__ = [
    "CandidateJudgment",
    "ListwiseJudgment",
    "RubricJudgment",
    "ShownVerdict",
    "VerdictJudgment",
    "json_objects",
    "looks_like_refusal",
    "parse_listwise",
    "parse_rubric",
    "parse_verdict",
    "strip_thinking",
    "token_verdict",
]
