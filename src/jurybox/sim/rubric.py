"""The simulated judge's answers to rubric prompts.

It knows every rater's scores of the items it was loaded with. For a prompt it predicts the
item's consensus (the mean over raters) and shifts it toward the tendency the few-shot
examples show: the mean of (example score - that example item's consensus), weighted by
``shift_weight``. Examples from the target rater reveal that rater's leniency, so
personalized examples help more than pooled ones when raters differ. Confidence falls with
how much the raters disagree on the item. Per-call noise is seeded by the request.

It answers in the format the prompt asks for: a JSON object, or (when the prompt asks for
Prometheus-style feedback and a result marker) the reasoning as feedback, then
``[RESULT] <score>`` (no confidence: that format has none).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import statistics
from collections.abc import Mapping

from ..datasets import RatingsTable
from ..protocols.prompts import escape_text
from ..protocols.rubric_prompts import RESULT_FORMAT_MARKER

__all__ = ["RubricKnowledge", "rubric_answer"]

_DIMENSION = re.compile(r"^Dimension: (.+)$", re.M)
_SCALE = re.compile(r"^Scale: (-?\d+) to (-?\d+)$", re.M)
_ITEM = re.compile(r"\[\[item ([0-9a-f]+)\]\]\n(.*?)\n\[\[end item \1\]\]", re.S)
_EXAMPLE = re.compile(r"\[\[example (\d+) ([0-9a-f]+)\]\]\n(.*?)\n\[\[end example \1 \2\]\]\n"
                      r"Score given: (-?[\d.]+)", re.S)


class RubricKnowledge:
    """What the simulated judge knows of rated items: text -> item, consensus and spread.

    Args:
        ratings: every rater's scores.
        texts: item id -> the text shown to judges.
    """

    def __init__(self, ratings: RatingsTable, texts: Mapping[str, str]) -> None:
        self._item = {escape_text(text): item for item, text in texts.items()}
        scores: dict[tuple[str, str], list[float]] = {}
        for r in ratings.ratings:
            if isinstance(r.score, float) and not math.isnan(r.score):
                scores.setdefault((r.item_id, r.dimension), []).append(r.score)
        self._mean = {k: statistics.fmean(v) for k, v in scores.items()}
        self._sd = {k: statistics.pstdev(v) for k, v in scores.items()}

    def digest(self) -> str:
        """sha256 (hex) of what it knows: each text's item and each (item, dimension)'s
        consensus and spread; equal knowledge, equal digest, whatever the order read."""
        h = hashlib.sha256()
        for entry in sorted(self._item.items()):
            h.update(json.dumps(entry).encode())
        for key in sorted(self._mean):
            h.update(json.dumps([*key, self._mean[key], self._sd[key]]).encode())
        return h.hexdigest()

    def consensus(self, text: str, dimension: str) -> tuple[float, float] | None:
        item = self._item.get(text)
        key = (item, dimension)
        return (self._mean[key], self._sd[key]) if key in self._mean else None


def rubric_answer(user: str, knowledge: RubricKnowledge | None, noise: float,
                  shift_weight: float = 0.9) -> str:
    """The answer to a rubric prompt, in the format it asks for (JSON, or feedback then
    ``[RESULT] <score>``); ``noise`` is a standard normal draw for this call."""
    dim_match, scale_match, item_match = (_DIMENSION.search(user), _SCALE.search(user),
                                          _ITEM.search(user))
    if not (dim_match and scale_match and item_match):
        return "I can only rate prompts that name a dimension, a scale and an item."
    dimension = dim_match.group(1).strip()
    low, high = int(scale_match.group(1)), int(scale_match.group(2))
    span = high - low
    known = knowledge.consensus(item_match.group(2), dimension) if knowledge else None
    centre, spread = known if known else ((low + high) / 2, span / 4)
    shifts = []
    for _, _, text, score in _EXAMPLE.findall(user):
        ex = knowledge.consensus(text, dimension) if knowledge else None
        if ex is not None:
            shifts.append(float(score) - ex[0])
    shift = statistics.fmean(shifts) if shifts else 0.0
    raw = centre + shift_weight * shift + 0.08 * span * noise
    score = int(min(high, max(low, round(raw))))
    confidence = int(min(100, max(5, round(100 - 80 * spread / span + 6 * noise))))
    tendency = ("this rater scores above the consensus" if shift > 0.25 * span / 4 else
                "this rater scores below the consensus" if shift < -0.25 * span / 4 else
                "this rater scores close to the consensus")
    words = " ".join(item_match.group(2).split()[:8])
    reasoning = (f"On {dimension}, the item ({words} ...) sits near {centre:.1f} of "
                 f"{low}-{high}; {tendency}.")
    if RESULT_FORMAT_MARKER in user:
        return f"Feedback: {reasoning}\n[RESULT] {score}"
    return json.dumps({"score": score, "confidence": confidence, "reasoning": reasoning})
