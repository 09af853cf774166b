"""AlpacaEval's length-controlled win rate against a baseline (Dubois et al. 2024, arXiv
2404.04475; alpaca_eval ``metrics/glm_winrate.py``, ``get_length_controlled_winrate`` with
``length_controlled_v1``), with a 95% CI from resampling prompts.

Per system, a logistic regression of the share it won against the baseline on prompt ``i``:

    logit q_i = b_len * tanh(delta_len_i / sd) + b_diff * difficulty_i + b_sys

``delta_len`` the baseline's length minus the system's (characters), ``sd`` its standard
deviation (ddof 1) over the system's rows, ``difficulty`` the prompt's instruction
difficulty (:mod:`.difficulty`), ``b_sys`` the term of AlpacaEval's ``not_gamed_baseline``
column. L1-penalised, no intercept, soft targets, C chosen by 5-fold grouped CV
(:mod:`._soft_logistic`, as ``fit_LogisticRegressionCV``). The length-controlled win rate is
the mean over the system's rows of the prediction with no length difference:
``100 * mean_i logistic(b_sys + b_diff * difficulty_i)``.

Regularised to the baseline (``regularize_to_baseline_lambda = 0.2``): when the comparisons
hold the baseline's own length-gamed variants (AlpacaEval: ``<baseline>_verbose`` and
``<baseline>_concise``, its ``df_gamed``), their rows join every system's fit with the system
column at 0, each gamed system's rows weighing ``lambda / (number of gamed systems)``: the
length and difficulty slopes are then shared with "the baseline made longer or shorter".
Without gamed variants the fit is AlpacaEval's ``length_controlled_noreg``.

The CI: :func:`~.bootstrap.prompt_counts` rounds (one seed: every system resamples the same
prompts), each round refitting the GLM with the prompt-count weights at the C chosen on the
full data (the CV is not rerun per round), the difficulties and ``sd`` held fixed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..stats.interval import ConfidenceInterval
from . import _soft_logistic
from .bootstrap import DEFAULT_ROUNDS, percentile_ci, prompt_counts
from .comparisons import Comparisons
from .difficulty import (InstructionDifficulty, against_baseline, estimate_difficulty,
                         scaled_length)

__all__ = ["LengthControlled", "REGULARIZE_TO_BASELINE", "gamed_baselines",
           "length_controlled_win_rates"]

#: AlpacaEval's ``regularize_to_baseline_lambda`` of ``length_controlled_v1``.
REGULARIZE_TO_BASELINE = 0.2


@dataclass(frozen=True)
class LengthControlled:
    """One system against the baseline.

    Attributes:
        system: its name.
        n: its comparisons against the baseline.
        win_rate, win_rate_ci: the raw win rate (mean share won, ties half), percent, and
            its bootstrap CI.
        lc_win_rate, lc_ci: the length-controlled win rate, percent, and its CI.
        coefficients: the GLM's ``length``, ``difficulty`` and ``system`` terms.
        c: the penalty C chosen by cross-validation.
        regularized: whether gamed baselines' rows joined the fit.
    """

    system: str
    n: int
    win_rate: float
    win_rate_ci: ConfidenceInterval
    lc_win_rate: float
    lc_ci: ConfidenceInterval
    coefficients: dict[str, float]
    c: float
    regularized: bool


def gamed_baselines(systems: Sequence[str], baseline: str) -> tuple[str, ...]:
    """The systems AlpacaEval takes for the baseline's length-gamed variants: names holding
    the baseline's and ``verbose`` or ``concise`` (``notebook_helpers.make_data``).

    >>> gamed_baselines(["gpt4", "gpt4_verbose", "gpt4_concise", "x_verbose"], "gpt4")
    ('gpt4_verbose', 'gpt4_concise')
    """
    return tuple(s for s in systems if s != baseline and baseline in s
                 and ("verbose" in s or "concise" in s))


def length_controlled_win_rates(
        comparisons: Comparisons, baseline: str, *,
        difficulty: InstructionDifficulty | None = None,
        gamed: Sequence[str] | None = None,
        regularize_to_baseline: float = REGULARIZE_TO_BASELINE,
        rounds: int = DEFAULT_ROUNDS, seed: int = 0, confidence: float = 0.95,
        cs: tuple[float, ...] = _soft_logistic.DEFAULT_CS,
        folds: int = 5) -> dict[str, LengthControlled]:
    """The length-controlled and raw win rates of every system against ``baseline``.

    Args:
        comparisons: comparisons with lengths; rows with the baseline on either side are used.
        baseline: the baseline's name.
        difficulty: the prompts' difficulties; None: :func:`~.difficulty.estimate_difficulty`
            on these comparisons (all systems jointly).
        gamed: the baseline's length-gamed variants among the systems; None:
            :func:`gamed_baselines`; ``()``: no regularisation.
        regularize_to_baseline: the gamed rows' total weight per unit (AlpacaEval's 0.2);
            0: no regularisation.
        rounds: bootstrap rounds (0: no CI, the intervals NaN).
        seed: the bootstrap's seed.
        confidence: the CIs' level.
        cs, folds: the CV grid of penalties and its folds.

    Returns:
        ``{system: LengthControlled}`` for every system with a row against the baseline, in
        ``comparisons.systems`` order.

    Raises:
        KeyError: no system named ``baseline``, or a named gamed system unknown.
        ValueError: no row against the baseline, a row without lengths (the message says
            which), a prompt without a difficulty.
    """
    rows = against_baseline(comparisons, baseline)
    if difficulty is None:
        difficulty = estimate_difficulty(comparisons, baseline, cs=cs, folds=folds)
    diff = difficulty.for_prompts([comparisons.prompts[p] for p in rows.prompt])
    length = scaled_length(rows.delta_len, rows.system)
    gamed_names = gamed_baselines(comparisons.systems, baseline) if gamed is None \
        else tuple(gamed)
    gamed_ids = [comparisons.system_index(g) for g in gamed_names]
    is_gamed = np.isin(rows.system, gamed_ids)
    regularized = bool(gamed_ids) and regularize_to_baseline > 0 and bool(is_gamed.any())
    counts = prompt_counts(len(comparisons.prompts), rounds, seed) if rounds > 0 else None

    out: dict[str, LengthControlled] = {}
    for s in np.unique(rows.system):
        mine = np.flatnonzero(rows.system == s)
        train = mine
        x_sys = np.ones(mine.size)
        w = np.ones(mine.size)
        if regularized:
            g = np.flatnonzero(is_gamed)
            train = np.concatenate([mine, g])
            x_sys = np.concatenate([x_sys, np.zeros(g.size)])
            w = np.concatenate([w, np.full(g.size, regularize_to_baseline / len(gamed_ids))])
        x = np.column_stack([length[train], diff[train], x_sys])
        y = rows.outcome[train]
        c = cs[0] if len(cs) == 1 else _soft_logistic.choose_c(
            x, y, w, np.arange(train.size), cs=cs, folds=folds)
        beta = _soft_logistic.fit(x, y, w, c)
        x_test = np.column_stack([np.zeros(mine.size), diff[mine], np.ones(mine.size)])
        lc = float(_soft_logistic.predict(x_test, beta).mean() * 100)
        raw = float(rows.outcome[mine].mean() * 100)
        raw_ci = lc_ci = ConfidenceInterval(math.nan, math.nan)
        if counts is not None:
            raw_samples, lc_samples = _bootstrap(counts, rows.prompt[train], x, y, w, x_test,
                                                 mine.size, c)
            raw_ci = percentile_ci(raw_samples, confidence)
            lc_ci = percentile_ci(lc_samples, confidence)
        name = comparisons.systems[int(s)]
        out[name] = LengthControlled(
            name, int(mine.size), raw, raw_ci, lc, lc_ci,
            {"length": float(beta[0]), "difficulty": float(beta[1]), "system": float(beta[2])},
            float(c), regularized)
    return out


def _bootstrap(counts: np.ndarray, prompt: np.ndarray, x: np.ndarray, y: np.ndarray,
               w: np.ndarray, x_test: np.ndarray, m: int,
               c: float) -> tuple[np.ndarray, np.ndarray]:
    """Per round: the raw and LC win rates (percent) refitted with prompt-count weights; the
    system's own rows are the first ``m`` of the training rows. A round that draws none of
    the system's prompts gives NaN."""
    raw = np.full(len(counts), math.nan)
    lc = np.full(len(counts), math.nan)
    weights = counts[:, prompt].astype(float)  # (rounds, rows)
    for r, round_w in enumerate(weights):
        own = round_w[:m]
        total = own.sum()
        if total == 0:
            continue
        raw[r] = float(own @ y[:m]) / total * 100
        beta = _soft_logistic.fit(x, y, w * round_w, c)
        lc[r] = float(own @ _soft_logistic.predict(x_test, beta)) / total * 100
    return raw, lc
