"""Parse a rubric judgment: score, confidence 0-100, short reasoning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ParseError
from .extract import last_valid_object, number_field

__all__ = ["RubricJudgment", "parse_rubric"]


@dataclass(frozen=True)
class RubricJudgment:
    """One rubric call's answer: score (an integer on the dimension's scale, or its
    exclusion code), confidence in [0, 100], reasoning text."""

    score: int
    confidence: float
    reasoning: str


def parse_rubric(text: str, valid: Callable[[float], bool], allowed: str, *,
                 scale_max: float | None = None) -> RubricJudgment:
    """Read ``{"score": ..., "confidence": ..., "reasoning": ...}`` from raw judge text.

    Args:
        valid: whether a score is allowed (on the scale, or the exclusion code).
        allowed: how to say what is allowed, for the error (e.g. ``"an integer 1-4 or 0"``).
        scale_max: the scale's maximum: a score written as a fraction out of it ("3/4") reads
            as its numerator; any other fraction fails (None: fractions fail). A confidence
            may be written out of 100.

    Raises:
        ParseError: no object validates (the first error is kept for the re-ask), or a
            refusal. ``raw`` holds the text.
    """
    def validate(obj: dict) -> RubricJudgment:
        if "score" not in obj:
            raise ParseError('missing "score"')
        score = number_field("score", obj["score"], scale_max=scale_max)
        if not score.is_integer() or not valid(score):
            raise ParseError(f"score must be {allowed}, got {obj['score']!r}")
        confidence = number_field("confidence", obj.get("confidence"), scale_max=100)
        if not 0 <= confidence <= 100:
            raise ParseError(f"confidence must be 0-100, got {obj.get('confidence')!r}")
        reasoning = obj.get("reasoning", "")
        return RubricJudgment(int(score), confidence,
                              reasoning if isinstance(reasoning, str) else str(reasoning))

    return last_valid_object(text, validate)
