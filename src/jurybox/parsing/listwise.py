"""Parse and validate a listwise judgment against the request that produced it."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..errors import ParseError
from .extract import last_valid_object, number_field

__all__ = ["CandidateJudgment", "ListwiseJudgment", "parse_listwise"]

_FLAGS = ("major_factual_error", "hallucinated_specificity", "calibrated_uncertainty")


@dataclass(frozen=True)
class CandidateJudgment:
    """A judge's view of one shown candidate: score in [0, 100] plus three flags."""

    score: float
    major_factual_error: bool
    hallucinated_specificity: bool
    calibrated_uncertainty: bool


@dataclass(frozen=True)
class ListwiseJudgment:
    """One parsed listwise call, by label in shown order.

    Attributes:
        labels: the labels shown, e.g. ('A', 'B', 'C', 'D').
        candidates: label -> judgment.
        ranking: every label once, best first.
        rationale: the judge's short rationale ('' if absent).
    """

    labels: tuple[str, ...]
    candidates: dict[str, CandidateJudgment]
    ranking: tuple[str, ...]
    rationale: str


def _score(label: str, value: object) -> float:
    try:
        score = number_field(f"score of {label}", value, scale_max=100)
    except ParseError:
        score = math.nan
    if not 0 <= score <= 100:
        raise ParseError(f"score of {label} must be a number 0-100, got {value!r}")
    return score


def _flag(label: str, name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    raise ParseError(f"{name} of {label} must be true or false, got {value!r}")


def _validate(obj: dict, labels: tuple[str, ...]) -> ListwiseJudgment:
    per = obj.get("candidates", obj.get("scores"))
    if not isinstance(per, dict):
        raise ParseError('missing "candidates" object mapping each label to its judgment')
    unknown = sorted(set(per) - set(labels))
    missing = [lab for lab in labels if lab not in per]
    if unknown or missing:
        raise ParseError(f"candidates must be exactly {list(labels)}; missing {missing}, "
                         f"unknown {unknown}")
    judged = {}
    for lab in labels:
        entry = per[lab]
        if not isinstance(entry, dict):
            entry = {"score": entry}
        if "score" not in entry:
            raise ParseError(f"candidate {lab} has no score")
        absent = [f for f in _FLAGS if f not in entry]
        if absent:
            raise ParseError(f"candidate {lab} lacks {absent}")
        judged[lab] = CandidateJudgment(_score(lab, entry["score"]),
                                        *(_flag(lab, f, entry[f]) for f in _FLAGS))
    ranking = _ranking(obj.get("ranking"), labels)
    rationale = obj.get("rationale", "")
    return ListwiseJudgment(labels=labels, candidates=judged, ranking=ranking,
                            rationale=rationale if isinstance(rationale, str) else str(rationale))


def _ranking(value: object, labels: tuple[str, ...]) -> tuple[str, ...]:
    """The ranking as labels; a list that is not a permutation of ``labels`` fails with the
    labels that break it (duplicated, missing, unknown)."""
    if not isinstance(value, list):
        raise ParseError(f"ranking must list every label exactly once, as a JSON list of "
                         f"{list(labels)}; got {value!r}")
    ranking = tuple(str(r) for r in value)
    counts = Counter(ranking)
    problems = [(what, found) for what, found in (
        ("duplicate", sorted(lab for lab, n in counts.items() if n > 1)),
        ("missing", [lab for lab in labels if lab not in counts]),
        ("unknown", sorted(set(ranking) - set(labels)))) if found]
    if problems:
        raise ParseError("ranking must list every label exactly once: "
                         + ", ".join(f"{what} {found}" for what, found in problems))
    return ranking


def parse_listwise(text: str, labels: tuple[str, ...]) -> ListwiseJudgment:
    """Extract a listwise judgment for ``labels`` from raw judge text.

    Accepts JSON in code fences, in prose or after ``<think>`` blocks; the last object that
    validates wins. Scores may be numbers or numeric strings (0-100, "85/100" and "85 out of
    100" read as 85, a fraction out of anything else fails); flags booleans or "true"/"false"
    strings. An object that repeats a key at any level fails, naming the key.

    Raises:
        ParseError: no object validates (message = the first validation error, for the re-ask;
            ``kind="refusal"`` when the text reads as a refusal). ``raw`` holds the text.
    """
    return last_valid_object(text, lambda obj: _validate(obj, labels))
