"""Bradley-Terry scores of systems from pairwise comparisons, on the Elo scale, with prompt
bootstrap CIs and rank intervals.

The model (Bradley & Terry 1952, "Rank analysis of incomplete block designs", Biometrika 39:
324-345): system ``i`` beats ``j`` with probability ``sigmoid(beta_i - beta_j)``. It is fit,
as arena-hard-auto's ``compute_mle_elo`` (github lmarena/arena-hard-auto, utils_math.py, and
Chatbot Arena's notebook before it) does, as a logistic regression without intercept whose
design row is +1 in ``a``'s column and -1 in ``b``'s; a tie or a fractional outcome ``y`` is
two rows, label 1 with sample weight ``y`` and label 0 with weight ``1 - y`` (so a tie is half
a win and half a loss). The fit is scikit-learn's ``LogisticRegression`` (Newton-Cholesky;
lbfgs beyond 500 systems), with a negligible ridge (``C`` = 1e6: half the squared
coefficients against 1e6 times the weighted log-loss) so that a system that won or lost every
comparison gets a huge finite score instead of a non-converging fit.

Rows are collapsed first: the design row depends only on the pair, so the weighted
log-likelihood is exactly that of one row per (pair, label) weighing the summed outcomes. A
bootstrap round is then a fit on 2 x (pairs met) rows whatever the number of prompts.

Scores: ``1000 + 400 / ln 10 * (beta - beta_baseline)`` Elo points (400 / ln 10 = 173.72 per
logit unit: a 10:1 odds is 400 points), the baseline at 1000; without a baseline the mean
score is 1000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from ..stats.interval import ConfidenceInterval
from ._bt_design import (_check_connected, _fit_pairs, _Fitter, _order_sums,
                         _pair_design, _pair_sums, _reachable, _solver)
from .bootstrap import DEFAULT_ROUNDS, Bootstrap, percentile_ci, prompt_counts
from .comparisons import Comparisons

__all__ = ["BTScore", "BradleyTerry", "ELO_PER_LOGIT", "fit_bradley_terry", "rank_intervals"]

#: Elo points per logit unit: 400 / ln 10
ELO_PER_LOGIT = 400.0 / math.log(10.0)
#: the anchor: the baseline's score (or the mean score without a baseline)
ANCHOR = 1000.0


@dataclass(frozen=True)
class BTScore:
    """One system's Bradley-Terry score.

    Attributes:
        system: its name.
        score: Elo points (baseline 1000, or mean 1000 without a baseline).
        ci: the bootstrap percentile interval of ``score`` (Elo points).
        rank: 1 + the number of systems with a higher score.
        rank_ci: (best, worst) rank from the CIs (:func:`rank_intervals`).
        win_rate: the BT-predicted win rate against the baseline, percent
            (``100 * sigmoid(beta - beta_baseline)``); None without a baseline.
        win_rate_ci: its bootstrap interval (percent); None without a baseline.
        n: comparisons in which it took part.
    """

    system: str
    score: float
    ci: ConfidenceInterval
    rank: int
    rank_ci: tuple[int, int]
    win_rate: float | None
    win_rate_ci: ConfidenceInterval | None
    n: int


@dataclass(frozen=True)
class BradleyTerry:
    """A Bradley-Terry fit with bootstrap CIs.

    Attributes:
        scores: one :class:`BTScore` per system, best first (ties by name).
        baseline: the anchor system, or None (mean anchor).
        bootstrap: how the CIs were drawn (rounds, seed, confidence).
        samples: shape (rounds, systems), the Elo scores of each round in the order of
            ``systems`` (NaN for a system that no drawn comparison connects to the anchor).
        systems: the systems' names, the columns of ``samples`` (sorted).
        first_shown: with ``first_shown=True``, the fitted advantage of the output shown
            first (logits: the judge's position bias; 0 none, positive favours the first
            shown; times :data:`ELO_PER_LOGIT` for Elo points); None otherwise.
        first_shown_ci: its bootstrap percentile interval (logits); None otherwise.
    """

    scores: tuple[BTScore, ...]
    baseline: str | None
    bootstrap: Bootstrap
    systems: tuple[str, ...]
    samples: np.ndarray = field(repr=False, compare=False)
    first_shown: float | None = field(default=None, kw_only=True)
    first_shown_ci: ConfidenceInterval | None = field(default=None, kw_only=True)

    def __getitem__(self, system: str) -> BTScore:
        """The score of ``system``. Raises KeyError: no such system."""
        for s in self.scores:
            if s.system == system:
                return s
        raise KeyError(f"no system named {system!r}; the systems are: {', '.join(self.systems)}")


def rank_intervals(cis: list[ConfidenceInterval] | tuple[ConfidenceInterval, ...]
                   ) -> list[tuple[int, int]]:
    """(best, worst) rank of each system from the CIs of their scores (higher is better).

    best = 1 + the number of systems whose CI low is above this one's CI high (they are
    surely better); worst = the number of systems whose CI high is not below this one's CI
    low, itself included (n minus those surely worse). This is Chatbot Arena's "rank (UB)"
    (Chiang et al. 2024, "Chatbot Arena", arXiv 2403.04132, section 6; FastChat's
    ``elo_analysis.py``) and arena-hard-auto's leaderboard rank, with its lower counterpart.
    A system with a NaN bound is never surely better or worse than another.

    >>> rank_intervals([ConfidenceInterval(10, 20), ConfidenceInterval(15, 25),
    ...                 ConfidenceInterval(30, 40)])
    [(2, 3), (2, 3), (1, 1)]
    """
    low = np.array([c.low for c in cis], dtype=float)
    high = np.array([c.high for c in cis], dtype=float)
    with np.errstate(invalid="ignore"):
        better = low[None, :] > high[:, None]  # [i, j]: j surely above i
        worse = high[None, :] < low[:, None]  # [i, j]: j surely below i
    n = len(low)
    return [(1 + int(better[i].sum()), n - int(worse[i].sum())) for i in range(n)]


def fit_bradley_terry(comparisons: Comparisons, baseline: str | None = None, *,
                  rounds: int = DEFAULT_ROUNDS, seed: int = 0,
                  confidence: float = 0.95, first_shown: bool = False) -> BradleyTerry:
    """Bradley-Terry scores of every system, with prompt-bootstrap CIs.

    With ``first_shown``, the fit has one more term, the advantage ``gamma`` of the output
    shown first: each recorded order verdict is a row of its own, the first-shown system
    ``f`` beating the other ``s`` with probability ``sigmoid(beta_f - beta_s + gamma)``
    (the Bradley-Terry model with an order effect: Davidson & Beaver 1977, "On extending the
    Bradley-Terry model to incorporate within-pair order effects", Biometrics 33: 693-702;
    Agresti 2013, *Categorical Data Analysis*, 3rd ed., section 11.6.3, the "home-team
    advantage"). Under a judge's position bias, plain BT scores are pulled toward the
    baseline (each comparison's expected outcome is the mean over the orders, closer to
    0.5); this term removes that pull. A comparison without recorded orders is one row
    without the term (``gamma`` does not apply).

    Args:
        comparisons: the judged pairs (any pairing: against a baseline, all pairs, sampled).
        baseline: the system anchored at 1000 Elo, whose predicted win rates are reported;
            None: the mean score is 1000 and no win rate is predicted.
        rounds: bootstrap rounds (each refits on the comparisons of ``n_prompts`` prompts
            drawn with replacement, :func:`~jurybox.ranking.bootstrap.prompt_counts`).
        seed: the bootstrap's seed (same seed, same prompts drawn, same CIs).
        confidence: level of the percentile intervals.
        first_shown: fit the first-shown advantage (above) from the comparisons' order
            verdicts (:attr:`Comparison.orders`).

    Returns:
        a :class:`BradleyTerry`.

    Raises:
        KeyError: ``baseline`` names no system.
        ValueError: a system that no chain of comparisons connects to the others (the
            message names it: its score is not defined), or fewer than two systems.
    """
    setup = _fit_start(comparisons, baseline, by_order=first_shown)
    systems, ref, anchor, pairs = setup.systems, setup.ref, setup.anchor, setup.pairs
    lo_share, hi_share, k = setup.lo_share, setup.hi_share, len(systems)
    design = _pair_design(pairs, k, anchor)

    lo_w = np.asarray(lo_share.sum(axis=0)).ravel()
    hi_w = np.asarray(hi_share.sum(axis=0)).ravel()
    beta = _fit_pairs(design, lo_w, hi_w, anchor, k, tol=1e-10)

    counts = prompt_counts(len(comparisons.prompts), rounds, seed).astype(float)
    lo_r = np.asarray((lo_share.T @ counts.T).T)  # (rounds, pairs)
    hi_r = np.asarray((hi_share.T @ counts.T).T)
    betas = np.full((rounds, len(beta)), math.nan)
    fitter = _Fitter(tol=1e-8, solver=_solver(k))
    for r in range(rounds):
        b = _fit_pairs(design, lo_r[r], hi_r[r], anchor, k, fitter=fitter, start=beta)
        betas[r, :k] = setup.reached(b[:k], lo_r[r] + hi_r[r])
        betas[r, k:] = b[k:]

    scores, samples = _bt_scores(comparisons, beta[:k], betas[:, :k], ref, confidence)
    if not first_shown:
        return BradleyTerry(scores, baseline, Bootstrap(rounds, seed, confidence), systems,
                            samples)
    return BradleyTerry(scores, baseline, Bootstrap(rounds, seed, confidence), systems, samples,
                        first_shown=float(beta[k]),
                        first_shown_ci=percentile_ci(betas[:, k], confidence))


class _FitStart(NamedTuple):
    """What a Bradley-Terry fit (plain or style-controlled) starts from.

    Attributes:
        systems: the systems' names (sorted).
        ref: the baseline's index, or None (the mean anchor).
        anchor: the system whose coefficient is fixed at 0 (the baseline, else the first).
        pairs, lo_share, hi_share: as :func:`_pair_sums` (or :func:`_order_sums`).
    """

    systems: tuple[str, ...]
    ref: int | None
    anchor: int
    pairs: np.ndarray
    lo_share: Any
    hi_share: Any

    def reached(self, beta: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """A bootstrap round's coefficients ``beta`` (changed in place) with NaN for the
        systems its pairs of positive ``weight`` do not connect to the anchor, and for every
        system when one is cut off and the anchor is the mean (it needs every system)."""
        present = _reachable(self.pairs, weight, len(self.systems), self.anchor)
        beta[~present] = math.nan
        if self.ref is None and not present.all():
            beta[:] = math.nan
        return beta


def _fit_start(comparisons: Comparisons, baseline: str | None, *,
               by_order: bool = False) -> _FitStart:
    """The systems, the baseline's index and the pairs met of ``comparisons`` (with
    ``by_order``, one row per order verdict: :func:`_order_sums`).

    Raises:
        KeyError: ``baseline`` names no system.
        ValueError: as :func:`_check_connected`.
    """
    systems = comparisons.systems
    ref = comparisons.system_index(baseline) if baseline is not None else None
    pairs, lo_share, hi_share = (_order_sums if by_order else _pair_sums)(comparisons)
    _check_connected(systems, pairs, ref)
    return _FitStart(systems, ref, 0 if ref is None else ref, pairs, lo_share, hi_share)


def _bt_scores(comparisons: Comparisons, beta: np.ndarray, betas: np.ndarray, ref: int | None,
               confidence: float) -> tuple[tuple[BTScore, ...], np.ndarray]:
    """The systems' scores, best first (ties by name), and the rounds' Elo scores, of the
    coefficients ``beta`` (shape (k,), logits) and the bootstrap rounds' ``betas`` (shape
    (rounds, k)), anchored at ``ref`` (None: the mean)."""
    systems = comparisons.systems
    k = len(systems)
    point = _elo(beta, ref)
    samples = _elo(betas, ref)
    cis = [percentile_ci(samples[:, i], confidence) for i in range(k)]
    ranks = rank_intervals(cis)
    n_of = np.bincount(comparisons.a, minlength=k) + np.bincount(comparisons.b, minlength=k)
    rates: list[float | None] = [None] * k
    rate_cis: list[ConfidenceInterval | None] = [None] * k
    if ref is not None:
        pred = 100.0 / (1.0 + np.exp(-(betas - betas[:, [ref]])))
        for i in range(k):
            rates[i] = float(100.0 / (1.0 + math.exp(-(beta[i] - beta[ref]))))
            rate_cis[i] = percentile_ci(pred[:, i], confidence)
    scores = [BTScore(systems[i], float(point[i]), cis[i], 1 + int((point > point[i]).sum()),
                      ranks[i], rates[i], rate_cis[i], int(n_of[i])) for i in range(k)]
    scores.sort(key=lambda s: (-s.score, s.system))
    return tuple(scores), samples


def _elo(beta: np.ndarray, ref: int | None) -> np.ndarray:
    """Elo points of coefficients ``beta`` (shape (..., k)), anchored at ``ref`` or the mean."""
    centre = beta[..., [ref]] if ref is not None else beta.mean(axis=-1, keepdims=True)
    return ANCHOR + ELO_PER_LOGIT * (beta - centre)
