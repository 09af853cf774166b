"""JudgeBench's scoring: the two-order vote rule and accuracy per source bucket.

JudgeBench (Tan et al., 2024, ScalerLab/JudgeBench) judges each pair in both orders, flips the
swapped decision back, and votes: +1 per order whose decision matches the label, -1 per order
that opposes it, 0 for a tie or a missing decision. A pair is correct when the net is > 0,
incorrect when < 0, and tied at 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["VoteOutcome", "judgebench_vote", "JudgeBenchCounts", "judgebench_counts",
           "BucketAccuracy", "bucket_accuracy"]

VoteOutcome = Literal["correct", "incorrect", "tie"]


def judgebench_vote(verdicts: Iterable[str | None], better: str) -> VoteOutcome:
    """JudgeBench's rule for one pair.

    Args:
        verdicts: the per-order verdicts in terms of the original responses (``"A"``, ``"B"``,
            ``"tie"`` or None for a missing decision), the swapped one already flipped back.
        better: the labelled better response, ``"A"`` or ``"B"``.
    """
    net = sum(0 if v in (None, "tie") else 1 if v == better else -1 for v in verdicts)
    return "correct" if net > 0 else "incorrect" if net < 0 else "tie"


@dataclass(frozen=True)
class JudgeBenchCounts:
    """Pairs by JudgeBench outcome; ``accuracy`` = correct / n (ties count as not correct)."""

    correct: int
    incorrect: int
    tie: int

    @property
    def n(self) -> int:
        return self.correct + self.incorrect + self.tie

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else math.nan


def judgebench_counts(outcomes: Iterable[VoteOutcome]) -> JudgeBenchCounts:
    """Count outcomes of :func:`judgebench_vote`."""
    outcomes = list(outcomes)
    return JudgeBenchCounts(outcomes.count("correct"), outcomes.count("incorrect"),
                            outcomes.count("tie"))


@dataclass(frozen=True)
class BucketAccuracy:
    """Accuracy per bucket, micro (over pairs) and macro (mean over buckets).

    Attributes:
        by_bucket: bucket -> (accuracy, n).
        micro: mean credit over all judged pairs.
        macro: unweighted mean of the bucket accuracies (buckets with n > 0).
        n: judged pairs.
    """

    by_bucket: dict[str, tuple[float, int]]
    micro: float
    macro: float
    n: int


def bucket_accuracy(credits: Mapping[str, float | None], buckets: Mapping[str, str], *,
                    order: Sequence[str] = ()) -> BucketAccuracy:
    """Micro and macro accuracy over buckets (JudgeBench reports both).

    Args:
        credits: item id -> credit in [0, 1], or None (failed; left out).
        buckets: item id -> bucket.
        order: buckets to list first, in this order (others follow sorted).
    """
    per: dict[str, list[float]] = {}
    for item, credit in credits.items():
        if credit is not None:
            per.setdefault(buckets[item], []).append(credit)
    names = [b for b in order if b in per] + sorted(b for b in per if b not in order)
    # fsum: exact sums, so the result does not depend on the order items arrive in
    by_bucket = {b: (math.fsum(per[b]) / len(per[b]), len(per[b])) for b in names}
    judged = [c for b in names for c in per[b]]
    return BucketAccuracy(by_bucket,
                          math.fsum(judged) / len(judged) if judged else math.nan,
                          math.fsum(a for a, _ in by_bucket.values()) / len(by_bucket)
                          if by_bucket else math.nan, len(judged))
