"""Calibrating a whole cascade at once: one fixed sequence of tests on the verdicts the
cascade accepts together, at the full delta.

A cascade's stages are tried in order (cheapest first, the strongest last); an item is
accepted by the first stage whose confidence reaches that stage's threshold, and abstained on
when none does. Calibrating each stage alone at ``delta / stages``
(:func:`~jurybox.stats.selective.calibrate_on`, Trust or Escalate's section 3.2) guarantees
each stage's accepted verdicts; here the thresholds are chosen together, so that the
cascade's accepted verdicts as a whole agree with the labels at least ``1 - alpha`` of the
time, with probability at least ``1 - delta`` over the calibration draw. The guarantee covers
every accepted verdict together, not each stage's.

The thresholds move along a path fixed from the calibration confidences alone (before any
label is read), step by step:

1. the strongest stage at its highest calibration confidence, every other stage off;
2. each cheaper stage in turn, from the one just before the strongest back to the cheapest,
   its threshold going down its distinct calibration confidences (high to low), the stages
   already lowered held at their lowest value (so a weak cheap stage, whose first test
   fails, ends the sequence only after the stronger ones have taken what they can);
3. last, the strongest stage's threshold going down the same way (reached only when every
   cheaper stage passed at its lowest value).

Each step tests "the cascade's disagreement rate on what it accepts exceeds alpha" with the
exact binomial p-value ``P(Binomial(n, alpha) <= k)`` (``n`` accepted calibration items, ``k``
of them disagreeing); fixed-sequence testing (Bauer 1991; Angelopoulos et al. 2021, "Learn then
Test") keeps the last step rejected at level ``delta`` before the first that is not. A step
accepting fewer than ``log(delta) / log(1 - alpha)`` items could not pass whatever the labels
and is not tested (as :func:`~jurybox.stats.selective.calibrate_threshold`). Sending an item
to a later stage only when the earlier ones are unsure, the path first lets the strongest
judge keep its surest verdicts and then lets the cheap stages take as much as the guarantee
allows: fewer items reach the strongest judge than when every stage spends only its share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .selective import check_shares, clopper_pearson_upper, least_testable

__all__ = ["JointCalibration", "calibrate_cascade", "cascade_stage_of"]


@dataclass(frozen=True)
class JointCalibration:
    """A cascade's thresholds, chosen together (module docstring).

    Attributes:
        target, delta: the agreement guaranteed (1 - alpha) and the failure probability.
        thresholds: per stage its threshold (None: the stage accepts nothing); all None when
            no step passed.
        n_calibration: calibration items.
        n_accepted, n_disagree: calibration items the cascade accepts at ``thresholds``, and
            their disagreements with the label (0 when none passed).
        upper_bound: the Clopper-Pearson upper bound (confidence 1 - delta) of the
            disagreement share of the accepted items; None when no step passed.
        tested: each step tested, ``(thresholds, n_accepted, n_disagree, p_value)``, in order.
    """

    target: float
    delta: float
    thresholds: tuple[float | None, ...]
    n_calibration: int
    n_accepted: int
    n_disagree: int
    upper_bound: float | None
    tested: tuple[tuple[tuple[float | None, ...], int, int, float], ...]

    @property
    def certified(self) -> bool:
        """True when some step passed (the cascade accepts verdicts)."""
        return any(t is not None for t in self.thresholds)


def cascade_stage_of(confidence: Sequence[np.ndarray], thresholds: Sequence[float | None],
                     items: np.ndarray) -> np.ndarray:
    """Per item of ``items`` (indices), the stage that accepts it (0-based), or -1: abstained.

    ``confidence[s]`` is stage s's confidence per item, shape (n,), NaN where it has no
    verdict (never accepted).
    """
    stage = np.full(len(items), -1)
    for s in range(len(confidence) - 1, -1, -1):  # the earliest accepting stage wins
        lam = thresholds[s]
        if lam is not None:
            stage[confidence[s][items] >= lam] = s
    return stage


def _path(confidence: Sequence[np.ndarray], items: np.ndarray) -> list[tuple[float | None, ...]]:
    values = [np.unique(c[items][~np.isnan(c[items])])[::-1] for c in confidence]
    k = len(confidence)
    steps: list[tuple[float | None, ...]] = []
    held: list[float | None] = [None] * k
    if len(values[-1]):
        held[-1] = float(values[-1][0])
        steps.append(tuple(held))
    for s in [*range(k - 2, -1, -1), k - 1]:
        for lam in values[s][1:] if s == k - 1 else values[s]:
            held[s] = float(lam)
            steps.append(tuple(held))
    return steps


def calibrate_cascade(confidence: Sequence[np.ndarray], agree: Sequence[np.ndarray],
                      items: np.ndarray, *, target: float, delta: float) -> JointCalibration:
    """The thresholds of a cascade's stages, chosen together on the calibration ``items``.

    Args:
        confidence: per stage, cheapest first, its confidence per item, shape (n,) each; NaN
            where the stage has no verdict.
        agree: per stage, whether its verdict agrees with the label, shape (n,) each.
        items: the calibration items (indices into those arrays).
        target: the agreement to guarantee, 1 - alpha, in (0, 1).
        delta: the probability that the guarantee fails, in (0, 1).

    Raises:
        ValueError: no stage, arrays of different shapes, target or delta outside (0, 1).

    Hand-computed (two stages, six items, target 0.5, delta 0.2; at least 3 accepted to be
    tested): the strong stage's top confidence 1 takes items 3, 4, 5 (no disagreement,
    p = 0.125); the cheap stage at 0.9 then takes items 0, 1 (0 of 5 disagree, p = 0.03125),
    at 0.5 item 2 too (1 of 6, p = 0.109); the strong stage at 0.5: nothing new (the same
    test passes); thresholds (0.5, 0.5).

    >>> cheap = np.array([0.9, 0.9, 0.5, np.nan, np.nan, np.nan])
    >>> strong = np.array([0.5, 0.5, 0.5, 1.0, 1.0, 1.0])
    >>> ok = [np.array([1, 1, 0, 0, 0, 0], bool), np.ones(6, bool)]
    >>> c = calibrate_cascade([cheap, strong], ok, np.arange(6), target=0.5, delta=0.2)
    >>> (c.thresholds, c.n_accepted, c.n_disagree)
    ((0.5, 0.5), 6, 1)
    """
    from scipy.stats import binom

    check_shares(target=target, delta=delta)
    if not confidence or len(confidence) != len(agree):
        raise ValueError("a cascade needs at least one stage, with a confidence and an "
                         "agreement per stage")
    shapes = {np.shape(c) for c in confidence} | {np.shape(a) for a in agree}
    if len(shapes) != 1:
        raise ValueError(f"every stage's arrays must have one shape, got {sorted(shapes)}")
    conf = [np.asarray(c, dtype=float) for c in confidence]
    ok = [np.asarray(a, dtype=bool) for a in agree]
    alpha = 1 - target
    least = least_testable(target, delta)
    tested: list[tuple[tuple[float | None, ...], int, int, float]] = []
    chosen: tuple[tuple[float | None, ...], int, int] | None = None
    for step in _path(conf, items):
        stage = cascade_stage_of(conf, step, items)
        taken = stage >= 0
        n = int(taken.sum())
        k = int(sum((~ok[s][items[stage == s]]).sum() for s in range(len(conf))))
        if n < least:
            continue
        p = float(binom.cdf(k, n, alpha))
        tested.append((step, n, k, p))
        if p > delta:
            break
        chosen = (step, n, k)
    if chosen is None:
        return JointCalibration(target, delta, (None,) * len(conf), len(items), 0, 0, None,
                                tuple(tested))
    step, n, k = chosen
    return JointCalibration(target, delta, step, len(items), n, k,
                            clopper_pearson_upper(k, n, 1 - delta), tuple(tested))
