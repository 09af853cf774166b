"""Parse a rubric judgment: score, confidence 0-100, short reasoning.

Two answer formats: a JSON object (:func:`parse_rubric`), or feedback followed by a result
marker, ``[RESULT] 4`` (:func:`parse_rubric_marker`), as Prometheus 2 and the judges
fine-tuned after it answer (Kim et al. 2024, arXiv 2405.01535).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ParseError
from .extract import last_valid_object, looks_like_refusal, number_field, strip_thinking

__all__ = ["MARKER_CONFIDENCE", "RubricJudgment", "parse_rubric", "parse_rubric_marker"]

_RESULT = re.compile(r"\[\s*RESULT\s*\]", re.I)
_FEEDBACK = re.compile(r"^\s*(?:#+\s*)?\**feedback\**\s*:?\**\s*", re.I)
#: Characters around a marker's score that are decoration, not the score: ``[RESULT]: **4**.``
_DECORATION = " \t:*_`()\"'."

#: The confidence of a result-marker answer, which states none: full, so the confidence
#: filter keeps every such answer and the vote is a plain majority of the seeds.
MARKER_CONFIDENCE = 100.0


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


def parse_rubric_marker(text: str, valid: Callable[[float], bool], allowed: str, *,
                        scale_max: float | None = None) -> RubricJudgment:
    """Read a result-marker answer: feedback, then ``[RESULT] <score>``.

    The score is what follows the **last** ``[RESULT]`` marker of the visible text (think
    blocks removed) on its line, decoration such as ``:``, ``**`` or a final ``.`` aside;
    nothing else is read, so ``Score 3: ...`` lines of a rubric the judge echoed back never
    count. The reasoning is the text before that marker, without a leading ``Feedback:``.
    Such answers state no confidence: they get :data:`MARKER_CONFIDENCE` (100).

    Args:
        valid: whether a score is allowed (on the scale, or the exclusion code).
        allowed: how to say what is allowed, for the error (e.g. ``"an integer 1-5"``).
        scale_max: the scale's maximum: ``[RESULT] 4/5`` reads as 4 when it is 5.

    Raises:
        ParseError: no marker (``kind="refusal"`` when the text reads as a refusal), or the
            last marker's score is not ``allowed`` (the message names the scale, for the
            re-ask). ``raw`` holds the text.
    """
    visible = strip_thinking(text)
    markers = list(_RESULT.finditer(visible))
    if not markers:
        if looks_like_refusal(text):
            raise ParseError("the judge refused", raw=text, kind="refusal")
        raise ParseError(f'no [RESULT] marker found: end with "[RESULT] <{allowed}>"', raw=text)
    last = markers[-1]
    written = visible[last.end():].split("\n", 1)[0].strip(_DECORATION)
    try:
        score = number_field("[RESULT]", written, scale_max=scale_max)
    except ParseError:
        score = float("nan")
    if not score.is_integer() or not valid(score):
        raise ParseError(f"the score after the last [RESULT] must be {allowed}, got "
                         f"{written!r}", raw=text)
    reasoning = _FEEDBACK.sub("", visible[:last.start()], count=1).strip()
    return RubricJudgment(int(score), MARKER_CONFIDENCE, reasoning)
