"""Parse and validate a listwise judgment against the request that produced it."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..errors import ParseError
from .extract import final_object
from .numbers import digits_hint, number_field, shorten

__all__ = ["CandidateJudgment", "ListwiseJudgment", "parse_listwise"]

_FLAGS = ("major_factual_error", "hallucinated_specificity", "calibrated_uncertainty")
#: The keys that make a JSON object a listwise answer (an object with none of them, after it,
#: is data the judge quoted: :func:`~jurybox.parsing.extract.final_object`).
ANSWER_KEYS = ("candidates", "ranking", "rationale")


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


def _score(label: str, value: object, problems: list[str]) -> float | None:
    """The score, or None after adding why it cannot be read to ``problems``."""
    try:
        score = number_field(f"score of {label}", value, scale_max=100)
    except ParseError:
        score = math.nan
    if not 0 <= score <= 100:
        problems.append(f"score of {label} must be a number 0-100, got {shorten(value)}"
                        f"{digits_hint(value)}")
        return None
    return score


def _flag(label: str, name: str, value: object, problems: list[str]) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    problems.append(f"{name} of {label} must be true or false, got {shorten(value)}")
    return False


def _scale_problem(scores: list[float]) -> str | None:
    """The 0-1 scale rule: every score within [0, 1] and one at least fractional is a judge
    scoring 0-1, not 0-100 (0.9 would read as 0.9 of 100, the worst score). Integer scores
    (0 and 1 only) are read as written: nothing shows another scale."""
    if scores and all(0 <= s <= 1 for s in scores) and not all(s.is_integer() for s in scores):
        shown = ", ".join(f"{s:g}" for s in scores[:6]) + (", ..." if len(scores) > 6 else "")
        return (f"scores are on a 0-100 scale, but every score is between 0 and 1 ({shown}): "
                f"write 90 for 0.9")
    return None


def _validate(obj: dict, labels: tuple[str, ...]) -> ListwiseJudgment:
    """The judgment in ``obj``; every problem found is named in one ParseError (so one re-ask
    can fix them all): labels missing or unknown, each candidate's score and flags, the
    ranking, and the 0-1 scale rule (:func:`_scale_problem`)."""
    per = obj.get("candidates", obj.get("scores"))
    problems: list[str] = []
    judged: dict[str, CandidateJudgment] = {}
    if not isinstance(per, dict):
        problems.append('missing "candidates" object mapping each label to its judgment')
    else:
        unknown = sorted(set(per) - set(labels))
        missing = [lab for lab in labels if lab not in per]
        if unknown or missing:
            problems.append(f"candidates must be exactly {list(labels)}; missing {missing}, "
                            f"unknown {shorten(unknown, 80)}")
        for lab in labels:
            if lab not in per:
                continue
            entry = per[lab]
            if not isinstance(entry, dict):
                entry = {"score": entry}
            if "score" not in entry:
                problems.append(f"candidate {lab} has no score")
            absent = [f for f in _FLAGS if f not in entry]
            if absent:
                problems.append(f"candidate {lab} lacks {absent}")
            score = _score(lab, entry["score"], problems) if "score" in entry else None
            flags = [_flag(lab, f, entry[f], problems) for f in _FLAGS if f in entry]
            if score is not None and not absent:
                judged[lab] = CandidateJudgment(score, *flags)
    ranking = _ranking(obj.get("ranking"), labels, problems)
    if len(judged) == len(labels) and (scale := _scale_problem(
            [judged[lab].score for lab in labels])):
        problems.append(scale)
    if problems:
        raise ParseError("; ".join(problems))
    rationale = obj.get("rationale", "")
    return ListwiseJudgment(labels=labels, candidates=judged, ranking=ranking,
                            rationale=rationale if isinstance(rationale, str) else str(rationale))


def _ranking(value: object, labels: tuple[str, ...], problems: list[str]) -> tuple[str, ...]:
    """The ranking as labels; a list that is not a permutation of ``labels`` adds to
    ``problems`` the labels that break it (duplicated, missing, unknown)."""
    if not isinstance(value, list):
        problems.append(f"ranking must list every label exactly once, as a JSON list of "
                        f"{list(labels)}; got {shorten(value)}")
        return ()
    ranking = tuple(r if isinstance(r, str) else shorten(r) for r in value)
    counts = Counter(ranking)
    found = [(what, labs) for what, labs in (
        ("duplicate", sorted(lab for lab, n in counts.items() if n > 1)),
        ("missing", [lab for lab in labels if lab not in counts]),
        ("unknown", sorted(set(ranking) - set(labels)))) if labs]
    if found:
        problems.append("ranking must list every label exactly once: "
                        + ", ".join(f"{what} {shorten(labs, 80)}" for what, labs in found))
    return ranking


def parse_listwise(text: str, labels: tuple[str, ...]) -> ListwiseJudgment:
    """Extract a listwise judgment for ``labels`` from raw judge text.

    The judge's answer is the **last** JSON object of the visible text (think blocks removed;
    fenced, bare or in prose) that holds ``candidates``, ``ranking`` or ``rationale``: when it
    is invalid the call fails, whatever valid draft came before; an object after it with none of
    them is not an answer (:func:`~jurybox.parsing.extract.final_object`). Scores are numbers
    0-100 or numeric strings in ASCII decimal digits ("85/100" and "85 out of 100" read as 85, a
    fraction out of anything else fails; "1_0", "１０", NaN, infinities fail); flags booleans or
    "true"/"false" strings. Scores that are all within [0, 1], one at least fractional, are a
    0-1 scale and fail (see :func:`_scale_problem`). An object that repeats a key at any level
    fails, naming the key.

    Raises:
        ParseError: the last object does not validate (the message names **every** problem
            found, for the re-ask), cannot be read, or there is none (``kind="refusal"`` when
            the text reads as a refusal); the text is over the
            answer budget (:func:`~jurybox.parsing.extract.check_length`). ``raw`` holds the text.
    """
    return final_object(text, lambda obj: _validate(obj, labels), ANSWER_KEYS)
