"""Win rates: each system against a named baseline (AlpacaEval's headline figure), with a
prompt-bootstrap CI, and the matrix of win rates between every pair of systems that met.

The win rate of a system against the baseline is the mean, over their comparisons, of the
share of each verdict that went to the system (1 a win, 0.5 a tie, 0 a loss; AlpacaEval's
weighted preferences in between), in percent: AlpacaEval's ``win_rate`` (Dubois et al. 2024,
arXiv 2404.04475; ``alpaca_eval.metrics.pairwise_to_winrate``: ``(preference - 1).mean()``
times 100, a draw counting half).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..stats.interval import ConfidenceInterval
from .bootstrap import DEFAULT_ROUNDS, Bootstrap, percentile_ci, prompt_counts
from .comparisons import Comparisons

__all__ = ["WinRate", "WinRateMatrix", "WinRates", "win_rate_matrix", "win_rates"]


@dataclass(frozen=True)
class WinRate:
    """One system's win rate against the baseline.

    Attributes:
        system: its name. baseline: the baseline's name.
        win_rate: percent in [0, 100]: mean share of the verdicts that went to ``system``.
        ci: the prompt-bootstrap percentile interval of ``win_rate`` (percent).
        n: comparisons of ``system`` with the baseline.
        wins, ties, losses: comparisons whose share for ``system`` is above, exactly at,
            below one half (AlpacaEval's ``n_wins``, ``n_draws``, ``n_losses``).
    """

    system: str
    baseline: str
    win_rate: float
    ci: ConfidenceInterval
    n: int
    wins: int
    ties: int
    losses: int


@dataclass(frozen=True)
class WinRates:
    """Every system's win rate against one baseline.

    Attributes:
        baseline: the baseline's name.
        rates: one :class:`WinRate` per system that met the baseline, best first (ties by
            name); the baseline itself is not listed.
        unmatched: systems that never met the baseline (no win rate), sorted.
        bootstrap: how the CIs were drawn (rounds, seed, confidence).
    """

    baseline: str
    rates: tuple[WinRate, ...]
    unmatched: tuple[str, ...]
    bootstrap: Bootstrap

    def __getitem__(self, system: str) -> WinRate:
        """The win rate of ``system``. Raises KeyError: it never met the baseline."""
        for rate in self.rates:
            if rate.system == system:
                return rate
        raise KeyError(f"{system!r} has no comparison with the baseline {self.baseline!r}")


@dataclass(frozen=True)
class WinRateMatrix:
    """Win rates between every pair of systems.

    Attributes:
        systems: the names, the rows and columns (sorted).
        rate: shape (k, k), percent: ``rate[i, j]`` the mean share of the verdicts of ``i``
            against ``j`` that went to ``i``; NaN where the two never met and on the diagonal.
            ``rate[i, j] + rate[j, i] == 100`` where they met.
        n: shape (k, k), int: comparisons of ``i`` with ``j`` (symmetric, 0 diagonal).
    """

    systems: tuple[str, ...]
    rate: np.ndarray = field(compare=False)
    n: np.ndarray = field(compare=False)

    def cell(self, system: str, opponent: str) -> tuple[float, int]:
        """(win rate in percent, n) of ``system`` against ``opponent``.

        Raises:
            ValueError: an unknown name.
        """
        if system not in self.systems or opponent not in self.systems:
            raise ValueError(f"unknown system in ({system!r}, {opponent!r}); the systems "
                             f"are: {', '.join(self.systems)}")
        i, j = self.systems.index(system), self.systems.index(opponent)
        return float(self.rate[i, j]), int(self.n[i, j])


def win_rates(comparisons: Comparisons, baseline: str, *, rounds: int = DEFAULT_ROUNDS,
              seed: int = 0, confidence: float = 0.95) -> WinRates:
    """Each system's win rate against ``baseline``, with a prompt-bootstrap CI.

    Comparisons where the baseline is ``a`` count for the other system with outcome
    ``1 - outcome``; comparisons between two non-baseline systems are not used.

    The bootstrap is vectorised: per prompt and system, the summed share and the count of
    comparisons with the baseline; each round's win rate is the count-weighted ratio
    ``(counts @ share_sums) / (counts @ n)`` for the prompt counts of
    :func:`~jurybox.ranking.bootstrap.prompt_counts` (one matrix product for all rounds). A
    round that draws none of a system's prompts is left out of its CI.

    Args:
        comparisons: the judged pairs.
        baseline: the baseline's name.
        rounds: bootstrap rounds over prompts (0: no CIs).
        seed: the bootstrap's seed (the same seed as the other statistics of one ranking
            resamples the same prompts).
        confidence: the CIs' level, in (0, 1).

    Returns:
        a :class:`WinRates`.

    Raises:
        KeyError: ``baseline`` names no system.
    """
    ref = comparisons.system_index(baseline)
    k = len(comparisons.systems)
    a, b, y = comparisons.a, comparisons.b, comparisons.outcome
    use = (a == ref) | (b == ref)
    other = np.where(a == ref, b, a)[use]
    share = np.where(a == ref, 1.0 - y, y)[use]
    prompt = comparisons.prompt[use]
    n_prompts = len(comparisons.prompts)
    sums = np.zeros((n_prompts, k))
    ns = np.zeros((n_prompts, k))
    np.add.at(sums, (prompt, other), share)
    np.add.at(ns, (prompt, other), 1.0)
    counts = prompt_counts(n_prompts, rounds, seed).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = 100.0 * (counts @ sums) / (counts @ ns)  # (rounds, k); NaN: none drawn
    rates = []
    for i in np.unique(other):
        mine = share[other == i]
        rates.append(WinRate(
            system=comparisons.systems[i], baseline=baseline,
            win_rate=float(100.0 * mine.mean()), ci=percentile_ci(boot[:, i], confidence),
            n=int(mine.size), wins=int((mine > 0.5).sum()), ties=int((mine == 0.5).sum()),
            losses=int((mine < 0.5).sum())))
    rates.sort(key=lambda r: (-r.win_rate, r.system))
    met = set(int(i) for i in np.unique(other)) | {ref}
    unmatched = tuple(s for i, s in enumerate(comparisons.systems) if i not in met)
    return WinRates(baseline, tuple(rates), unmatched, Bootstrap(rounds, seed, confidence))


def win_rate_matrix(comparisons: Comparisons) -> WinRateMatrix:
    """The win rate of every system against every other it met (percent, with n).

    Returns:
        a :class:`WinRateMatrix` over ``comparisons.systems``.
    """
    k = len(comparisons.systems)
    a, b, y = comparisons.a, comparisons.b, comparisons.outcome
    share = np.zeros((k, k))
    n = np.zeros((k, k), dtype=np.int64)
    np.add.at(share, (a, b), y)
    np.add.at(share, (b, a), 1.0 - y)
    np.add.at(n, (a, b), 1)
    np.add.at(n, (b, a), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, 100.0 * share / np.maximum(n, 1), math.nan)
    return WinRateMatrix(comparisons.systems, rate, n)
