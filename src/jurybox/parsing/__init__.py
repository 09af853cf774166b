"""Robust extraction and validation of judge output."""

from .extract import json_objects, looks_like_refusal, strip_thinking
from .listwise import CandidateJudgment, ListwiseJudgment, parse_listwise

__all__ = [
    "CandidateJudgment",
    "ListwiseJudgment",
    "json_objects",
    "looks_like_refusal",
    "parse_listwise",
    "strip_thinking",
]
