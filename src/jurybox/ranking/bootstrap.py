"""The prompt bootstrap every ranking CI uses: resample prompts with replacement, each drawn
prompt bringing all of its comparisons (a prompt drawn twice counts twice)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..stats.interval import ConfidenceInterval

__all__ = ["DEFAULT_ROUNDS", "Bootstrap", "percentile_ci", "prompt_counts", "row_weights"]

#: bootstrap rounds when none are given
DEFAULT_ROUNDS = 1000


@dataclass(frozen=True)
class Bootstrap:
    """How a ranking's CIs were drawn: ``rounds`` resamples of the prompts
    (:func:`prompt_counts`; 0: no CIs) from ``seed``, percentile intervals at ``confidence``
    (in (0, 1))."""

    rounds: int
    seed: int
    confidence: float

    def as_dict(self) -> dict[str, object]:
        """summary.json's ``bootstrap``."""
        return {"rounds": self.rounds, "seed": self.seed, "confidence": self.confidence,
                "resamples": "prompts"}


def prompt_counts(n_prompts: int, rounds: int, seed: int) -> np.ndarray:
    """How often each prompt is drawn in each bootstrap round.

    Returns:
        shape (rounds, n_prompts), int64; each row sums to ``n_prompts`` (one multinomial draw
        of ``n_prompts`` prompts, uniform, with replacement). The same ``seed`` gives the same
        counts, so every statistic of one ranking resamples the same prompts.

    Raises:
        ValueError: ``n_prompts`` < 1 or ``rounds`` < 1.

    >>> prompt_counts(4, 3, seed=0).sum(axis=1).tolist()
    [4, 4, 4]
    """
    if n_prompts < 1 or rounds < 1:
        raise ValueError(f"the bootstrap needs at least one prompt and one round "
                         f"(got {n_prompts} prompts, {rounds} rounds)")
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_prompts, np.full(n_prompts, 1.0 / n_prompts), size=rounds)


def row_weights(counts: np.ndarray, prompt: np.ndarray) -> np.ndarray:
    """Per-comparison weights of bootstrap rounds: a row weighs as often as its prompt is drawn.

    Args:
        counts: shape (rounds, n_prompts) from :func:`prompt_counts` (or (n_prompts,) for one
            round).
        prompt: shape (n,), each row's prompt index (``Comparisons.prompt``).

    Returns:
        shape (rounds, n) (or (n,)), float: usable as ``sample_weight`` of a fit or the
        weights of a weighted mean.
    """
    return np.asarray(counts, dtype=float)[..., np.asarray(prompt)]


def percentile_ci(samples: np.ndarray, confidence: float = 0.95) -> ConfidenceInterval:
    """The percentile interval of bootstrap ``samples`` (shape (rounds,)); NaN samples (a
    round in which the statistic is undefined) are left out. Fewer than 2 finite samples:
    (nan, nan). ``standard_error`` is their standard deviation (ddof 1), as scipy's.

    >>> [round(x, 9) for x in percentile_ci(np.arange(101.0), 0.9)]
    [5.0, 95.0]
    """
    values = np.asarray(samples, dtype=float)
    values = values[np.isfinite(values)]
    if values.size < 2:
        return ConfidenceInterval(math.nan, math.nan)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    degenerate = bool(np.all(values == values[0]))
    return ConfidenceInterval(float(low), float(high), standard_error=float(values.std(ddof=1)),
                              degenerate=degenerate)
