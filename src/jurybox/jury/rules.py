"""The jury's decision from its judges' decisions.

Verga et al. 2024 ("Replacing Judges with Juries", PoLL, arXiv 2404.18796, section 2.2) pool
a panel's judgments by max voting (categorical answers) and average pooling (scores). jurybox
uses the weighted forms of both:

- **pairwise**: each judge's decision (``"A"``, ``"B"`` or ``"tie"``, in terms of the original
  responses, after that judge's own protocol, e.g. both orders or APOC) is a vote with the
  judge's weight; the jury's decision is the option with the largest total weight, and
  ``"tie"`` when two options share it. A judge that failed the item has no vote (a failure is
  never a vote); with no vote at all the jury failed the item (None).
- **listwise**: the jury's C_i is the weighted mean, over the judges that judged the item,
  of their C_i (PCF's combined score, 0-100); winners are the candidates within the
  tolerance of the best, as for one judge (:func:`jurybox.protocols.aggregate.winners`).

Weights are finite numbers >= 0, not all zero (:func:`check_weights`); a judge of weight 0
is judged and reported but never moves the jury.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, NamedTuple

__all__ = ["JuryVote", "Verdict", "check_weights", "jury_listwise", "jury_pairwise"]

Verdict = Literal["A", "B", "tie"]


class JuryVote(NamedTuple):
    """A pairwise jury decision and the weight behind each option.

    Attributes:
        decision: ``"A"``, ``"B"``, ``"tie"``, or None when no judge decided the item.
        weights: option -> total weight of the judges that chose it.
        voters: judges with a decision (failed judges are not counted).
    """

    decision: Verdict | None
    weights: dict[str, float]
    voters: int


def check_weights(weights: Sequence[float]) -> list[float]:
    """``weights`` as floats, checked.

    >>> check_weights([1, 0.5])
    [1.0, 0.5]
    >>> check_weights([0, 0])
    Traceback (most recent call last):
    ...
    ValueError: the judges' weights are all 0: at least one judge must count

    Raises:
        ValueError: an empty list, a weight that is not a finite number >= 0 (booleans
            included), or every weight 0.
    """
    if not weights:
        raise ValueError("a jury needs at least one judge")
    out = []
    for i, w in enumerate(weights):
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) \
                or w < 0:
            raise ValueError(f"judge {i + 1}'s weight must be a finite number >= 0, got {w!r}")
        out.append(float(w))
    if not any(out):
        raise ValueError("the judges' weights are all 0: at least one judge must count")
    return out


def jury_pairwise(decisions: Sequence[Verdict | None], weights: Sequence[float]) -> JuryVote:
    """The weighted vote of the judges' pairwise decisions.

    Args:
        decisions: one per judge: ``"A"``, ``"B"``, ``"tie"``, or None (the judge failed the
            item: no vote).
        weights: one per judge (:func:`check_weights`).

    >>> jury_pairwise(["A", "B", "A"], [1, 1, 1]).decision
    'A'
    >>> jury_pairwise(["A", "B", None], [1, 1, 1]).decision   # 1 against 1: a tie
    'tie'
    >>> jury_pairwise(["A", "B", "B"], [3, 1, 1]).decision    # GPT-4 weighted 3
    'A'
    >>> jury_pairwise([None, None], [1, 1]).decision is None
    True

    Raises:
        ValueError: lengths differ, a decision outside A/B/tie/None, bad weights.
    """
    weights = check_weights(weights)
    if len(decisions) != len(weights):
        raise ValueError(f"{len(decisions)} decisions for {len(weights)} judges")
    totals = {"A": 0.0, "B": 0.0, "tie": 0.0}
    voters = 0
    for d, w in zip(decisions, weights):
        if d is None:
            continue
        if d not in totals:
            raise ValueError(f"a decision is 'A', 'B', 'tie' or None, got {d!r}")
        totals[d] += w
        voters += 1
    if not voters:
        return JuryVote(None, totals, 0)
    best = max(totals.values())
    top = [k for k, v in totals.items() if v == best]
    decision: Verdict = top[0] if len(top) == 1 else "tie"  # type: ignore[assignment]
    return JuryVote(decision, totals, voters)


def jury_listwise(scores: Sequence[Sequence[float] | None], weights: Sequence[float], *,
                  tolerance: float = 0.5) -> tuple[tuple[float, ...], tuple[int, ...]] | None:
    """The weighted mean of the judges' C_i and the jury's winners.

    Args:
        scores: per judge, C_i of every candidate (0-100, the candidates in their original
            order), or None (the judge failed the item).
        weights: one per judge (:func:`check_weights`).
        tolerance: winners are within this many points of the best mean C_i.

    Returns:
        (mean C_i per candidate, winners ascending), or None when no judge with a weight
        above 0 judged the item.

    >>> jury_listwise([[80, 20], [40, 60], None], [1, 1, 1])
    ((60.0, 40.0), (0,))
    >>> jury_listwise([[80, 20], [40, 60]], [1, 3])
    ((50.0, 50.0), (0, 1))

    Raises:
        ValueError: lengths differ, judges scored different numbers of candidates.
    """
    weights = check_weights(weights)
    if len(scores) != len(weights):
        raise ValueError(f"{len(scores)} score lists for {len(weights)} judges")
    judged = [(list(map(float, s)), w) for s, w in zip(scores, weights) if s is not None and w]
    if not judged:
        return None
    n = len(judged[0][0])
    if any(len(s) != n for s, _ in judged):
        raise ValueError("the judges scored different numbers of candidates")
    total = sum(w for _, w in judged)
    mean = tuple(sum(s[i] * w for s, w in judged) / total for i in range(n))
    best = max(mean)
    return mean, tuple(i for i, c in enumerate(mean) if c >= best - tolerance)
