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

AlpacaEval's own ``df_gamed`` is a hub file, and the baseline's variants' annotations are
not in its repository. Without them, the length variants of other systems present
(``<system>_verbose``, ``<system>_concise``: :func:`proxy_variants`) stand in: their rows
join every fit the same way, each with a bias of its own (a variant of another system is not
as good as the baseline, a variant of the baseline is), so they only inform the length and
difficulty slopes; their total weight is ``PROXY_WEIGHT`` (1.0). Neither present: no
regularisation (AlpacaEval's ``length_controlled_noreg``).

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

__all__ = ["LengthControlled", "PROXY_WEIGHT", "REGULARIZE_TO_BASELINE", "gamed_baselines",
           "length_controlled_win_rates", "proxy_variants"]

#: AlpacaEval's ``regularize_to_baseline_lambda`` of ``length_controlled_v1``.
REGULARIZE_TO_BASELINE = 0.2
#: The total weight of other systems' length variants standing in for the baseline's: on
#: AlpacaEval's 56 recorded systems, 0.2 gave LC within 9.8 points of their leaderboard
#: (Spearman 0.984), 1.0 within 2.6 (0.991) (benchmarks/alpaca_eval_check.py).
PROXY_WEIGHT = 1.0


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
        regularized: ``"baseline"`` (the baseline's gamed variants joined the fit),
            ``"proxy"`` (other systems' length variants did) or ``""`` (neither).
    """

    system: str
    n: int
    win_rate: float
    win_rate_ci: ConfidenceInterval
    lc_win_rate: float
    lc_ci: ConfidenceInterval
    coefficients: dict[str, float]
    c: float
    regularized: str


def gamed_baselines(systems: Sequence[str], baseline: str) -> tuple[str, ...]:
    """The systems AlpacaEval takes for the baseline's length-gamed variants: names holding
    the baseline's and ``verbose`` or ``concise`` (``notebook_helpers.make_data``).

    >>> gamed_baselines(["gpt4", "gpt4_verbose", "gpt4_concise", "x_verbose"], "gpt4")
    ('gpt4_verbose', 'gpt4_concise')
    """
    return tuple(s for s in systems if s != baseline and baseline in s
                 and ("verbose" in s or "concise" in s))


def proxy_variants(systems: Sequence[str], baseline: str) -> tuple[str, ...]:
    """Other systems' length variants: names ending in ``_verbose`` or ``_concise`` that are
    not the baseline's (AlpacaEval's ``<system>_verbose``/``_concise`` runs).

    >>> proxy_variants(["gpt4", "gpt4_verbose", "x_verbose", "x_concise", "y"], "gpt4")
    ('x_verbose', 'x_concise')
    """
    gamed = set(gamed_baselines(systems, baseline))
    return tuple(s for s in systems if s not in gamed and s != baseline
                 and (s.endswith("_verbose") or s.endswith("_concise")))


def length_controlled_win_rates(
        comparisons: Comparisons, baseline: str, *,
        difficulty: InstructionDifficulty | None = None,
        gamed: Sequence[str] | None = None,
        regularize_to_baseline: float | None = None,
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
            :func:`gamed_baselines`, or when there are none, other systems' variants
            (:func:`proxy_variants`, each with a bias of its own); ``()``: no regularisation.
        regularize_to_baseline: the gamed rows' total weight (0: no regularisation); None:
            AlpacaEval's 0.2 for the baseline's variants, :data:`PROXY_WEIGHT` for proxies.
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
    gamed_names, proxy = _regularizers(comparisons.systems, baseline, gamed)
    gamed_ids = [comparisons.system_index(g) for g in gamed_names]
    weight = regularize_to_baseline if regularize_to_baseline is not None else (
        PROXY_WEIGHT if proxy else REGULARIZE_TO_BASELINE)
    if not gamed_ids or weight <= 0:
        gamed_ids = []
    regularized = "" if not gamed_ids else "proxy" if proxy else "baseline"
    g_rows = np.flatnonzero(np.isin(rows.system, gamed_ids))
    # gamed rows: length, difficulty, system column 0, and a bias of its own per proxy
    g_bias = np.zeros((g_rows.size, len(gamed_ids) if proxy else 0))
    if proxy:
        g_bias[np.arange(g_rows.size), np.searchsorted(sorted(gamed_ids),
                                                       rows.system[g_rows])] = 1.0
    g_x = np.column_stack([length[g_rows], diff[g_rows], np.zeros(g_rows.size), g_bias])
    g_w = np.full(g_rows.size, weight / max(len(gamed_ids), 1))
    counts = prompt_counts(len(comparisons.prompts), rounds, seed) if rounds > 0 else None

    out: dict[str, LengthControlled] = {}
    for s in np.unique(rows.system):
        mine = np.flatnonzero(rows.system == s)
        train = np.concatenate([mine, g_rows])
        own = np.column_stack([length[mine], diff[mine], np.ones(mine.size),
                               np.zeros((mine.size, g_bias.shape[1]))])
        x = np.vstack([own, g_x])
        w = np.concatenate([np.ones(mine.size), g_w])
        y = rows.outcome[train]
        c = cs[0] if len(cs) == 1 else _soft_logistic.choose_c(
            x, y, w, np.arange(train.size), cs=cs, folds=folds)
        beta = _soft_logistic.fit(x, y, w, c)
        x_test = np.column_stack([np.zeros(mine.size), diff[mine], np.ones(mine.size)])
        lc = float(_soft_logistic.predict(x_test, beta[:3]).mean() * 100)
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


def _regularizers(systems: Sequence[str], baseline: str,
                  gamed: Sequence[str] | None) -> tuple[tuple[str, ...], bool]:
    """(the systems whose rows regularise every fit, whether they are proxies)."""
    if gamed is not None:
        return tuple(gamed), False
    own = gamed_baselines(systems, baseline)
    if own:
        return own, False
    return proxy_variants(systems, baseline), True


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
        lc[r] = float(own @ _soft_logistic.predict(x_test, beta[:3])) / total * 100
    return raw, lc
