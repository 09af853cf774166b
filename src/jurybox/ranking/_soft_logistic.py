"""An L1-penalised logistic regression on soft targets (a share in [0, 1] per row), no
intercept, with the penalty chosen by grouped K-fold cross-validation: the fit AlpacaEval's
length-controlled GLM uses (Dubois et al. 2024, arXiv 2404.04475; alpaca_eval
``metrics/glm_winrate.py``, ``fit_LogisticRegressionCV`` with ``is_ytrue_proba=True``).

A soft target ``y`` is fitted as two rows, label 1 weighing ``w * y`` and label 0 weighing
``w * (1 - y)`` (rows of weight 0 dropped), by scikit-learn's liblinear, which minimises
``C * sum(weight * log_loss) + |beta|_1``. A fold is scored by the weighted soft log loss of
its rows, ``-mean(w * (y log q + (1 - y) log(1 - q)))``; the C with the best mean score over
the folds (the smallest among equals) is refitted on all rows.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["DEFAULT_CS", "choose_c", "fit", "predict"]

#: The C grid: scikit-learn's LogisticRegressionCV default (``Cs=10``), as AlpacaEval uses.
DEFAULT_CS = tuple(float(c) for c in np.logspace(-4, 4, 10))
#: liblinear's seed, as AlpacaEval's (``random_state=123``).
SEED = 123


def fit(x, y: np.ndarray, w: np.ndarray, c: float) -> np.ndarray:
    """The coefficients (shape (k,)) of the fit of soft targets ``y`` (n,) with row weights
    ``w`` (n,) on the design ``x`` (n, k), dense or scipy sparse, at penalty ``c``. All-zero
    weight: zeros."""
    from scipy import sparse
    from sklearn.linear_model import LogisticRegression

    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    n = len(y)
    sw = np.concatenate([w * y, w * (1.0 - y)])
    rows = np.flatnonzero(sw > 0)
    if rows.size == 0:
        return np.zeros(x.shape[1])
    labels = (rows < n).astype(float)
    weights = sw[rows]
    if labels.min() == labels.max():  # one class: liblinear needs two; add the mirror row
        mirror = (rows[0] + n) % (2 * n)  # of the other label, weighing nothing to speak of
        rows, labels = np.append(rows, mirror), np.append(labels, 1.0 - labels[0])
        weights = np.append(weights, 1e-12)
    stack = sparse.vstack([x, x], format="csr") if sparse.issparse(x) else np.vstack([x, x])
    model = LogisticRegression(C=c, solver="liblinear", fit_intercept=False, random_state=SEED,
                               **_l1())
    model.fit(stack[rows], labels, sample_weight=weights)
    return np.asarray(model.coef_[0], dtype=float)


def _l1() -> dict[str, object]:
    """The L1 penalty's keyword: ``l1_ratio=1`` from scikit-learn 1.8 (``penalty`` is
    deprecated there), ``penalty="l1"`` before."""
    import sklearn

    major, minor = (int(p) for p in sklearn.__version__.split(".")[:2])
    return {"l1_ratio": 1.0} if (major, minor) >= (1, 8) else {"penalty": "l1"}


def predict(x, beta: np.ndarray) -> np.ndarray:
    """logistic(x @ beta), shape (n,)."""
    z = np.asarray(x @ beta, dtype=float).ravel()
    return np.exp(-np.logaddexp(0.0, -z))


def _score(x, y: np.ndarray, w: np.ndarray, beta: np.ndarray) -> float:
    q = np.clip(predict(x, beta), 1e-15, 1 - 1e-15)
    return float(np.mean(w * (y * np.log(q) + (1 - y) * np.log(1 - q))))


def choose_c(x, y: np.ndarray, w: np.ndarray, groups: np.ndarray, *,
             cs: tuple[float, ...] = DEFAULT_CS, folds: int = 5) -> float:
    """The C of ``cs`` with the best mean held-out score over ``folds`` grouped folds
    (scikit-learn's GroupKFold on ``groups``, shape (n,): rows of one group are held out
    together). Fewer groups than folds: as many folds as groups (at least 2); one group:
    the largest C.

    Raises:
        ValueError: ``cs`` empty.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import GroupKFold

    if not cs:
        raise ValueError("no C to choose from")
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    n_groups = len(np.unique(groups))
    if n_groups < 2:
        return float(max(cs))
    splits = list(GroupKFold(n_splits=min(folds, n_groups)).split(y, groups=groups))
    scores = []
    with warnings.catch_warnings():
        # a fold's fit at an extreme C may stop at liblinear's iteration cap (AlpacaEval's
        # own grid and cap do): it is scored on its held-out rows like any other and loses
        # the choice if it fits worse; the refit at the chosen C still warns
        warnings.simplefilter("ignore", ConvergenceWarning)
        for c in cs:
            fold_scores = [_score(x[test], y[test], w[test],
                                  fit(x[train], y[train], w[train], c))
                           for train, test in splits]
            scores.append(np.mean(fold_scores))
    return float(cs[int(np.argmax(scores))])
