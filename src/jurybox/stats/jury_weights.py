"""Jury weights learned from labels or from the judges' agreement alone, and how many
independent judges a jury is worth.

- :func:`log_odds_weights`: for independent judges of accuracies ``p_j`` on two options, the
  weighted majority with ``w_j = log(p_j / (1 - p_j))`` is the most accurate decision rule
  (Nitzan and Paroush 1982, "Optimal decision rules in uncertain dichotomous choice
  situations", International Economic Review 23(2): 289-297; Shapley and Grofman 1984).
  ``p_j`` is estimated from labelled items with Laplace's rule, ``(right + 1) / (decided + 2)``;
  a judge no better than chance gets weight 0.
- :func:`one_coin_dawid_skene`: the same weights without labels, by expectation-maximization
  of the one-coin Dawid-Skene model (Dawid and Skene 1979, "Maximum likelihood estimation of
  observer error-rates using the EM algorithm", JRSS C 28(1): 20-28, with every judge's
  confusion matrix reduced to one accuracy, as in Karger, Oh and Shah 2011): each judge is right
  with probability ``p_j`` and otherwise names the other option.
- :func:`effective_judges`: ``n / (1 + (n - 1) * r)``, with ``r`` the mean correlation of the
  judges' errors (Kish 1965, *Survey Sampling*, the design effect of equicorrelated units): n
  judges whose errors are correlated ``r`` are worth that many independent ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DawidSkene", "effective_judges", "log_odds_weights", "one_coin_dawid_skene"]


def log_odds_weights(correct: np.ndarray) -> np.ndarray:
    """Each judge's weight, ``max(0, log(p / (1 - p)))`` with ``p = (right + 1) / (n + 2)``.

    Args:
        correct: shape (items, judges): 1 right, 0 wrong, NaN no decision (left out).

    Returns:
        Shape (judges,), each >= 0.

    Raises:
        ValueError: not 2-d.

    A judge right on 8 of 10 items: p = 9 / 12 = 0.75, weight ln 3 = 1.0986; one right on 5 of
    10: p = 0.5, weight 0:

    >>> [round(float(w), 4) for w in log_odds_weights(np.array([[1, 1]] * 5 + [[1, 0]] * 3
    ...                                                        + [[0, 0]] * 2, dtype=float))]
    [1.0986, 0.0]
    """
    c = np.asarray(correct, dtype=float)
    if c.ndim != 2:
        raise ValueError(f"correct must be (items, judges), got shape {c.shape}")
    right = np.nansum(c, axis=0)
    n = np.sum(~np.isnan(c), axis=0)
    return _weights_of((right + 1) / (n + 2))


def _weights_of(accuracy: np.ndarray) -> np.ndarray:
    """``max(0, log(p / (1 - p)))`` of each accuracy ``p`` in (0, 1): the weighted majority's
    weight (Nitzan and Paroush 1982), 0 at or below chance."""
    return np.maximum(0.0, np.log(accuracy / (1 - accuracy)))


@dataclass(frozen=True)
class DawidSkene:
    """A one-coin Dawid-Skene fit.

    Attributes:
        accuracy: per judge, the fitted probability of naming the right option, shape (judges,).
        weights: the log-odds weights of those accuracies (>= 0), shape (judges,).
        posterior: per item, the probability that the first option is right, shape (items,);
            0.5 where no judge voted.
        iterations: EM iterations run. converged: whether the change fell below the tolerance.
    """

    accuracy: np.ndarray
    weights: np.ndarray
    posterior: np.ndarray
    iterations: int
    converged: bool


def one_coin_dawid_skene(votes: np.ndarray, *, iterations: int = 200,
                         tolerance: float = 1e-8) -> DawidSkene:
    """Fit judges' accuracies on two options without labels (module docstring).

    Args:
        votes: shape (items, judges): 1 for the first option, 0 for the second, NaN for no
            vote (a tie or a failure).
        iterations: EM iterations at most. tolerance: stop when no accuracy moves more.

    Returns:
        The :class:`DawidSkene` fit, started from the unweighted majority's posterior. Labels
        are symmetric: the fit assumes judges are better than chance on the whole.

    Raises:
        ValueError: not 2-d.

    Three judges on four items, the third always against the other two: the first two are
    fitted right and the third wrong (EM's fixed point from the majority start):

    >>> fit = one_coin_dawid_skene(np.array([[1, 1, 0], [0, 0, 1], [1, 1, 0], [0, 0, 1]], float))
    >>> [round(float(a), 2) for a in fit.accuracy], [round(float(p), 2) for p in fit.posterior]
    ([1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0])
    """
    v = np.asarray(votes, dtype=float)
    if v.ndim != 2:
        raise ValueError(f"votes must be (items, judges), got shape {v.shape}")
    voted = ~np.isnan(v)
    first = np.where(voted, v, 0.0)
    second = np.where(voted, 1 - v, 0.0)
    counts = first.sum(axis=1), second.sum(axis=1)
    total = counts[0] + counts[1]
    post = np.where(total > 0, counts[0] / np.where(total > 0, total, 1), 0.5)
    acc = np.full(v.shape[1], 0.5)
    converged, steps = False, 0
    eps = 1e-6
    while steps < iterations:
        steps += 1
        # M step: a judge's accuracy is its expected share of right votes
        right = (first * post[:, None] + second * (1 - post[:, None])).sum(axis=0)
        n = voted.sum(axis=0)
        new = np.where(n > 0, right / np.where(n > 0, n, 1), 0.5)
        # E step: the posterior that the first option is right
        a = np.clip(new, eps, 1 - eps)
        log_right, log_wrong = np.log(a), np.log(1 - a)
        l1 = (first * log_right + second * log_wrong).sum(axis=1)
        l0 = (first * log_wrong + second * log_right).sum(axis=1)
        post = 1 / (1 + np.exp(np.clip(l0 - l1, -700, 700)))
        moved = float(np.max(np.abs(new - acc))) if len(acc) else 0.0
        acc = new
        if moved < tolerance:
            converged = True
            break
    return DawidSkene(acc, _weights_of(np.clip(acc, eps, 1 - eps)), post, steps, converged)


def effective_judges(errors: np.ndarray) -> float:
    """How many independent judges ``n`` judges with correlated errors are worth.

    Args:
        errors: shape (items, judges): 1 wrong, 0 right, NaN not decided. Correlations use
            the items both judges decided; a pair with fewer than 3 such items, or a judge
            whose errors do not vary there, is left out of the mean.

    Returns:
        ``n / (1 + (n - 1) * r)`` with ``r`` the mean pairwise Pearson correlation of errors
        (clipped to [0, 1]: negatively correlated errors count as independent); ``n`` when
        no pair has a correlation; in [1, n].

    Raises:
        ValueError: not 2-d, or no judge.

    Two judges with identical errors are worth one; uncorrelated, two:

    >>> effective_judges(np.array([[1, 1], [0, 0], [1, 1], [0, 0]], float))
    1.0
    >>> effective_judges(np.array([[1, 0], [0, 1], [1, 1], [0, 0]], float))
    2.0
    """
    e = np.asarray(errors, dtype=float)
    if e.ndim != 2 or e.shape[1] == 0:
        raise ValueError(f"errors must be (items, judges) with a judge, got shape {e.shape}")
    n = e.shape[1]
    rs: list[float] = []
    for i in range(n):
        for j in range(i + 1, n):
            both = ~np.isnan(e[:, i]) & ~np.isnan(e[:, j])
            x, y = e[both, i], e[both, j]
            if len(x) < 3 or x.std() == 0 or y.std() == 0:
                continue
            rs.append(float(np.corrcoef(x, y)[0, 1]))
    if not rs:
        return float(n)
    r = min(max(float(np.mean(rs)), 0.0), 1.0)
    return n / (1 + (n - 1) * r)

