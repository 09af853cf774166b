"""Parse a rubric judgment: score, confidence 0-100, short reasoning.

Two answer formats: a JSON object (:func:`parse_rubric`), or feedback followed by a result
marker, ``[RESULT] 4`` (:func:`parse_rubric_marker`), as Prometheus 2 and the judges
fine-tuned after it answer (Kim et al. 2024, arXiv 2405.01535).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ParseError
from .budget import check_length
from .extract import final_object, looks_like_refusal, strip_thinking
from .numbers import digits_hint, number_field, shorten

__all__ = ["MARKER_CONFIDENCE", "RubricJudgment", "parse_rubric", "parse_rubric_marker"]

_RESULT = re.compile(r"\[\s*RESULT\s*\]", re.I)
_FEEDBACK = re.compile(r"^\s*(?:#+\s*)?\**feedback\**\s*:?\**\s*", re.I)
#: Characters around a marker's score that are decoration, not the score: ``[RESULT]: **4**.``
_DECORATION = " \t:*_`()\"'."

#: The confidence of a result-marker answer, which states none: full, so the confidence
#: filter keeps every such answer and the vote is a plain majority of the seeds.
MARKER_CONFIDENCE = 100.0
#: The keys that make a JSON object a rubric answer (an object with none of them, after it,
#: is data the judge quoted: :func:`~jurybox.parsing.extract.final_object`).
ANSWER_KEYS = ("score", "confidence", "reasoning")


@dataclass(frozen=True)
class RubricJudgment:
    """One rubric call's answer: score (an integer on the dimension's scale, or its
    exclusion code), confidence in [0, 100], reasoning text."""

    score: int
    confidence: float
    reasoning: str


def _confidence(value: object, problems: list[str]) -> float:
    """The confidence 0-100; a fractional one within [0, 1] is a 0-1 scale (0.85 would read as
    0.85 of 100) and fails, as listwise scores do."""
    try:
        confidence = number_field("confidence", value, scale_max=100)
    except ParseError as exc:
        problems.append(str(exc))
        return math.nan
    if not 0 <= confidence <= 100:
        problems.append(f"confidence must be 0-100, got {shorten(value)}")
    elif 0 < confidence < 1:
        problems.append(f"confidence is on a 0-100 scale, got {shorten(value)}: write "
                        f"{100 * confidence:g} for {confidence:g}")
    return confidence


def parse_rubric(text: str, valid: Callable[[float], bool], allowed: str, *,
                 scale_max: float | None = None) -> RubricJudgment:
    """Read ``{"score": ..., "confidence": ..., "reasoning": ...}`` from raw judge text.

    The judge's answer is the **last** JSON object of the visible text (think blocks
    removed, fenced or not) that holds ``score``, ``confidence`` or ``reasoning``: when it
    is invalid the call fails, whatever came before; a later object with none of them is
    not an answer.
    Numbers are JSON numbers or numeric strings in ASCII decimal digits
    (:func:`~jurybox.parsing.extract.number_field`).

    Args:
        valid: whether a score is allowed (on the scale, or the exclusion code).
        allowed: how to say what is allowed, for the error (e.g. ``"an integer 1-4 or 0"``).
        scale_max: the scale's maximum: a score written as a fraction out of it ("3/4") reads
            as its numerator; any other fraction fails (None: fractions fail). A confidence
            may be written out of 100; a fractional one within [0, 1] fails (a 0-1 scale).

    Raises:
        ParseError: the last object does not validate (the message names every problem:
            score and confidence), cannot be read, or there is none; a refusal
            (``kind="refusal"``); a text over the
            answer budget (:func:`~jurybox.parsing.extract.check_length`). ``raw`` holds the text.
    """
    def validate(obj: dict) -> RubricJudgment:
        problems: list[str] = []
        score = math.nan
        if "score" not in obj:
            problems.append('missing "score"')
        else:
            try:
                score = number_field("score", obj["score"], scale_max=scale_max)
            except ParseError as exc:
                problems.append(str(exc))
            else:
                if not score.is_integer() or not valid(score):
                    problems.append(f"score must be {allowed}, got {shorten(obj['score'])}")
        confidence = _confidence(obj.get("confidence"), problems)
        if problems:
            raise ParseError("; ".join(problems))
        reasoning = obj.get("reasoning", "")
        return RubricJudgment(int(score), confidence,
                              reasoning if isinstance(reasoning, str) else str(reasoning))

    return final_object(text, validate, ANSWER_KEYS)


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
        ParseError: no marker (``kind="refusal"`` when the text reads as a refusal), the
            last marker's score is not ``allowed`` (the message names the scale, for the
            re-ask; only ASCII decimal digits are read), or the text is over the
            answer budget (:func:`~jurybox.parsing.extract.check_length`). ``raw`` holds the text.
    """
    check_length(text)
    visible = strip_thinking(text)
    markers = list(_RESULT.finditer(visible))
    if not markers:
        if looks_like_refusal(visible, visible=True):
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
                         f"{shorten(written)}{digits_hint(written)}", raw=text)
    reasoning = _FEEDBACK.sub("", visible[:last.start()], count=1).strip()
    return RubricJudgment(int(score), MARKER_CONFIDENCE, reasoning)
