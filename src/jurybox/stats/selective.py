"""Selective judging with a guarantee of agreement: choose a confidence threshold on labelled
calibration items so that, with probability at least ``1 - delta`` over the calibration draw,
the judge's verdicts at or above it agree with the labels at least ``1 - alpha`` of the time.

The method is Trust or Escalate's (Jung, Brahman and Choi, "Trust or Escalate: LLM Judges with
Provable Guarantees for Human Agreement", ICLR 2025, arXiv 2407.18370, section 3.1): the risk
of a threshold ``lambda`` is ``R(lambda) = P(verdict != label | confidence >= lambda)``; each
candidate threshold, from the most confident down, is tested for ``H0: R(lambda) > alpha``
with the exact binomial p-value ``P(Binomial(n(lambda), alpha) <= k(lambda))`` (``n``: the
calibration items accepted at ``lambda``, ``k``: their disagreements), and fixed-sequence
testing (Bauer 1991; Angelopoulos et al. 2021, "Learn then Test", arXiv 2110.01052, section 3)
keeps going down while every test so far rejects at level ``delta``: the last threshold reached
is chosen. That p-value is at most ``delta`` exactly when the one-sided Clopper-Pearson upper
bound of the disagreement share at confidence ``1 - delta`` is at most ``alpha`` (Clopper and
Pearson 1934, Biometrika 26: 404-413), which is the bound reported.

When not even the most confident threshold passes, no verdict is accepted: "cannot certify at
this level" is a normal outcome, never a fallback to accepting everything.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Calibration", "SelectiveOutcome", "SelectiveResult", "calibrate_on",
           "calibrate_threshold", "check_shares", "choose_signal", "clopper_pearson_upper",
           "guarantee_text", "least_testable", "percent", "selective_outcome", "split_items"]


def clopper_pearson_upper(k: int, n: int, confidence: float) -> float:
    """The one-sided Clopper-Pearson upper bound of a share: ``k`` events in ``n`` trials.

    Args:
        k: events, 0 <= k <= n. n: trials, >= 1. confidence: in (0, 1).

    Returns:
        The bound in [0, 1] (1 when ``k == n``): the ``confidence`` quantile of
        Beta(k + 1, n - k).

    Raises:
        ValueError: arguments out of range.

    0 events in 10 trials at 95%: 1 - 0.05 ** (1 / 10) = 0.2589 (the "rule of three" case):

    >>> round(clopper_pearson_upper(0, 10, 0.95), 4)
    0.2589
    """
    if not (n >= 1 and 0 <= k <= n and 0 < confidence < 1):
        raise ValueError(f"need 0 <= k <= n, n >= 1 and confidence in (0, 1); got k={k!r}, "
                         f"n={n!r}, confidence={confidence!r}")
    if k == n:
        return 1.0
    from scipy.stats import beta

    return float(beta.ppf(confidence, k + 1, n - k))


@dataclass(frozen=True)
class Calibration:
    """A calibrated acceptance rule: accept a verdict whose confidence is >= ``threshold``.

    Attributes:
        target: the agreement guaranteed, 1 - alpha, in (0, 1).
        delta: the failure probability of the guarantee, in (0, 1).
        threshold: the chosen confidence threshold; None when none passed (accept nothing).
        n_calibration: calibration items (with a verdict and a label).
        n_accepted: calibration items at or above ``threshold`` (0 when None).
        n_disagree: their disagreements with the label.
        upper_bound: the Clopper-Pearson upper bound (confidence 1 - delta) of the
            disagreement share at ``threshold``; None when none passed.
        tested: the thresholds tested, in order, each ``(threshold, n_accepted, n_disagree,
            p_value)``; the last one failed the test unless every threshold passed.
    """

    target: float
    delta: float
    threshold: float | None
    n_calibration: int
    n_accepted: int
    n_disagree: int
    upper_bound: float | None
    tested: tuple[tuple[float, int, int, float], ...]

    @property
    def certified(self) -> bool:
        """True when some threshold passed (the rule accepts verdicts)."""
        return self.threshold is not None

    def accepts(self, confidence: float) -> bool:
        """Whether a verdict of this ``confidence`` is accepted."""
        return self.threshold is not None and confidence >= self.threshold


def check_shares(**shares: object) -> None:
    """Each named value (``target``, ``delta``, ``calibration_share``) is a number in (0, 1).

    Raises:
        ValueError: one that is not (text, a boolean, 0, 1, NaN, ...), named.

    >>> check_shares(target=0.85, delta="0.1")
    Traceback (most recent call last):
    ...
    ValueError: delta must be a number in (0, 1), got '0.1'
    """
    for name, value in shares.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not 0 < value < 1:
            raise ValueError(f"{name} must be a number in (0, 1), got {value!r:.40}")


def least_testable(target: float, delta: float) -> int:
    """The fewest accepted items a threshold can pass with: fewer fail the exact test even
    with no disagreement (``target ** n > delta``), whatever the labels, so a threshold (or a
    cascade's step) accepting fewer is not tested and cannot end the sequence; which ones are
    tested then depends on the confidences alone.

    >>> least_testable(0.8, 0.1)  # 0.8 ** 10 = 0.107 > 0.1, 0.8 ** 11 = 0.086
    11
    """
    return max(1, math.ceil(math.log(delta) / math.log(target) - 1e-9))


def calibrate_threshold(confidence: Sequence[float], agree: Sequence[bool], *, target: float,
                        delta: float) -> Calibration:
    """Choose the lowest confidence threshold whose agreement is certified (fixed-sequence
    testing with the exact binomial test; module docstring).

    Args:
        confidence: per calibration item, the judge's confidence (any real scale, higher is
            surer); shape (n,).
        agree: per item, whether its verdict agrees with the label; shape (n,).
        target: the agreement to guarantee, 1 - alpha, in (0, 1), e.g. 0.85.
        delta: the probability that the guarantee fails, in (0, 1), e.g. 0.1.

    Returns:
        The :class:`Calibration`. The candidate thresholds are the distinct confidences seen,
        from the highest down, leaving out those that accept too few items to pass even with
        no disagreement (fewer than ``log(delta) / log(1 - alpha)``: 11 at target 0.8 and
        delta 0.1), which would end the sequence whatever the labels.

    Raises:
        ValueError: shapes differ, a NaN confidence, or target/delta outside (0, 1).

    Hand-computed: confidences 3, 3, 3, 2, 2, 1 with agreements T, T, T, T, F, F, target 0.5,
    delta 0.2: at 3 no disagreement in 3 (p = 0.5**3 = 0.125 <= 0.2); at 2 one in 5
    (p = 6 / 32 = 0.1875 <= 0.2); at 1 two in 6 (p = 22 / 64 = 0.34 > 0.2): threshold 2.

    >>> c = calibrate_threshold([3, 3, 3, 2, 2, 1], [1, 1, 1, 1, 0, 0], target=0.5, delta=0.2)
    >>> (c.threshold, c.n_accepted, c.n_disagree)
    (2.0, 5, 1)
    """
    from scipy.stats import binom

    check_shares(target=target, delta=delta)
    conf = np.asarray(confidence, dtype=float)
    ok = np.asarray(agree, dtype=bool)
    if conf.shape != ok.shape or conf.ndim != 1:
        raise ValueError(f"confidence and agree must be 1-d of one length; got shapes "
                         f"{conf.shape} and {ok.shape}")
    if np.isnan(conf).any():
        raise ValueError("a confidence is NaN: leave items without a verdict out")
    alpha = 1 - target
    least = least_testable(target, delta)
    tested: list[tuple[float, int, int, float]] = []
    chosen: tuple[float, int, int] | None = None
    for lam in np.unique(conf)[::-1]:
        accepted = conf >= lam
        n, k = int(accepted.sum()), int((~ok[accepted]).sum())
        if n < least:
            continue
        p = float(binom.cdf(k, n, alpha))
        tested.append((float(lam), n, k, p))
        if p > delta:
            break
        chosen = (float(lam), n, k)
    if chosen is None:
        return Calibration(target, delta, None, len(conf), 0, 0, None, tuple(tested))
    lam, n, k = chosen
    return Calibration(target, delta, lam, len(conf), n, k,
                       clopper_pearson_upper(k, n, 1 - delta), tuple(tested))


def calibrate_on(confidence: np.ndarray, agree: np.ndarray, items: np.ndarray, *,
                 target: float, delta: float) -> Calibration:
    """:func:`calibrate_threshold` on the calibration ``items`` (indices into the ``(n,)``
    arrays ``confidence`` and ``agree``) that have a confidence: an item whose confidence is
    NaN has no verdict and is left out.

    Raises:
        ValueError: as :func:`calibrate_threshold`.
    """
    conf, ok = confidence[items], agree[items]
    has = ~np.isnan(conf)
    return calibrate_threshold(conf[has], ok[has], target=target, delta=delta)


def choose_signal(signals: Mapping[str, tuple[np.ndarray, np.ndarray]], items: np.ndarray, *,
                  target: float, delta: float) -> tuple[dict[str, Calibration], str]:
    """Calibrate each of several confidence signals on the calibration ``items`` at
    ``delta / len(signals)`` (a union bound: whichever is then chosen keeps the guarantee at
    ``delta``) and choose the one that accepts the most calibration items.

    Args:
        signals: name -> ``(confidence, agree)``, each ``(n,)`` (NaN confidence: no
            verdict), in preference order.
        items: the calibration items' indices.
        target, delta: as :func:`calibrate_threshold`.

    Returns:
        (name -> its calibration, the chosen name): the certified signal accepting the most
        calibration items, the first of those tied; the first signal when none is certified.

    Raises:
        ValueError: no signal; as :func:`calibrate_threshold`.
    """
    if not signals:
        raise ValueError("no confidence signal to calibrate")
    share = delta / len(signals)
    rules = {name: calibrate_on(conf, ok, items, target=target, delta=share)
             for name, (conf, ok) in signals.items()}
    best = max(rules, key=lambda s: rules[s].n_accepted if rules[s].certified else -1)
    return rules, best


@dataclass(frozen=True)
class SelectiveOutcome:
    """A calibrated rule applied to held-out items.

    Attributes:
        n: held-out items (an item without a verdict counts here and is never accepted).
        n_accepted: items whose confidence reached the threshold.
        n_agree: accepted items whose verdict agrees with the label.
        coverage: ``n_accepted / n`` (0 when ``n`` is 0).
        agreement: ``n_agree / n_accepted``; NaN when nothing was accepted.
        agreement_ci: Wilson 95% interval of ``agreement`` (NaN bounds when nothing was
            accepted).
    """

    n: int
    n_accepted: int
    n_agree: int
    coverage: float
    agreement: float
    agreement_ci: tuple[float, float]

    @classmethod
    def of(cls, n: int, n_accepted: int, n_agree: int) -> SelectiveOutcome:
        """The outcome of ``n_accepted`` accepted items of ``n``, ``n_agree`` of them agreeing.

        >>> SelectiveOutcome.of(5, 3, 2).coverage, round(SelectiveOutcome.of(5, 3, 2).agreement, 4)
        (0.6, 0.6667)
        """
        from .length import wilson_interval

        share = n_agree / n_accepted if n_accepted else math.nan
        ci = wilson_interval(share, n_accepted) if n_accepted else (math.nan, math.nan)
        return cls(n, n_accepted, n_agree, n_accepted / n if n else 0.0, share,
                   (float(ci[0]), float(ci[1])))


def selective_outcome(rule: Calibration, confidence: Sequence[float],
                      agree: Sequence[bool]) -> SelectiveOutcome:
    """Apply ``rule`` to held-out items: which are accepted and how often they agree.

    Args:
        rule: from :func:`calibrate_threshold`.
        confidence, agree: per held-out item, as :func:`calibrate_threshold` takes them.

    Raises:
        ValueError: shapes differ.
    """
    conf = np.asarray(confidence, dtype=float)
    ok = np.asarray(agree, dtype=bool)
    if conf.shape != ok.shape:
        raise ValueError(f"confidence and agree differ in shape: {conf.shape}, {ok.shape}")
    n = len(conf)
    accepted = (conf >= rule.threshold) if rule.threshold is not None else np.zeros(n, bool)
    return SelectiveOutcome.of(n, int(accepted.sum()), int(ok[accepted].sum()))


def split_items(n: int, share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded random split of ``n`` items: (calibration indices, test indices), sorted;
    ``round(share * n)`` items to calibration (at least 1, and at least 1 left to test).

    Raises:
        ValueError: ``share`` outside (0, 1), ``n < 2``, or a seed that is not an integer
            >= 0.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the split's seed must be an integer >= 0, got {seed!r:.40}")
    if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0 < share < 1 \
            or n < 2:
        raise ValueError(f"need a calibration share in (0, 1) and at least 2 items; got "
                         f"share={share!r:.40}, n={n!r}")
    k = min(max(round(share * n), 1), n - 1)
    order = np.random.default_rng(seed).permutation(n)
    return np.sort(order[:k]), np.sort(order[k:])


def percent(share: float) -> str:
    """A share as a percentage, never rounded up past what it is (``0.855`` is ``85.5%``,
    ``0.99999`` is ``99.999%``, ``0.8`` is ``80%``): a guarantee must not overstate itself.

    >>> percent(0.855), percent(0.99999), percent(0.8), percent(1 - 0.001)
    ('85.5%', '99.999%', '80%', '99.9%')
    """
    text = f"{100 * share:.6f}".rstrip("0").rstrip(".")
    return f"{text}%"


def guarantee_text(target: float, delta: float, signal: str | None, n_calibration: int) -> str:
    """The guarantee as a sentence, or that none could be given."""
    if signal is None:
        return (f"cannot certify {percent(target)} agreement at delta {delta:g} on "
                f"{n_calibration} calibration items: no verdict is accepted")
    return (f"with probability at least {percent(1 - delta)} over the calibration draw, "
            f"verdicts accepted on {signal} agree with the labels at least {percent(target)} "
            f"of the time (calibrated on {n_calibration} items)")


@dataclass(frozen=True)
class SelectiveResult:
    """A calibrated selective judge on one set's split (recorded judgments: a (subset,
    strategy); a run: its dataset and a protocol).

    Attributes:
        subset, strategy: the set. signal: the chosen signal's name (None: none certified).
        rules: signal name -> its calibration (each at ``delta / len(rules)``).
        n_calibration: calibration items. test: the chosen rule on the test items (nothing
            accepted when no signal was certified).
        calls_per_item: the judge calls one item costs under the chosen signal.
        unlabelled: (accepted, judged) of the set's items without a label: judged by the rule
            but never calibrated on or scored ((0, 0) when every item has a label).
    """

    subset: str
    strategy: str
    target: float
    delta: float
    signal: str | None
    rules: dict[str, Calibration]
    n_calibration: int
    test: SelectiveOutcome
    calls_per_item: int
    unlabelled: tuple[int, int] = (0, 0)

    @property
    def calls_per_accepted(self) -> float | None:
        """The cost of one accepted verdict in judge calls: every test item is judged
        (``calls_per_item`` each) and only the accepted ones are kept, so
        ``calls_per_item * test.n / test.n_accepted``; None when nothing was accepted."""
        if not self.test.n_accepted:
            return None
        return self.calls_per_item * self.test.n / self.test.n_accepted
