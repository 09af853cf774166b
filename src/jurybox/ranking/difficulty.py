"""Instruction difficulty: one number per prompt, estimated from many systems' comparisons
against one baseline, the covariate of AlpacaEval's length-controlled GLM (Dubois et al.
2024, arXiv 2404.04475).

AlpacaEval loads its difficulties from a hub file (``instruction_difficulty.csv``, fitted in
early 2024 on the systems of then); its ``notebooks/instruction_difficulty.ipynb`` shows how
they were computed, and that is what :func:`estimate_difficulty` does, on the comparisons
given: one joint logistic regression of the share each system won against the baseline, with

- a bias per system,
- a slope per system on ``tanh(delta_len / sd_s)``, ``delta_len`` = the baseline's length
  minus the system's (characters), ``sd_s`` its standard deviation (ddof 1) over that
  system's rows (no centring, as the notebook's ``rand_delta_len_std_only``),
- a term per prompt (treatment coding: the first prompt is 0): the prompt's difficulty.

L1-penalised, no intercept, soft targets, the penalty chosen by 5-fold grouped CV
(:mod:`._soft_logistic`, as the notebook's ``fit_LogisticRegressionCV``). Rows whose system
output is empty are left out, as the notebook does (``len_2 != 0``). Left out of the
notebook's formula: its ``not_gamed_baseline`` column (a constant on these rows, and the
per-system biases already span it) and the 1e-4 jitter it adds to the lengths (only there to
avoid a zero standard deviation; a zero or undefined one is taken as 1 here).

A higher difficulty is a prompt on which systems beat the baseline more often (the
notebook's sign). The values are on the logit scale, only their differences matter to the
GLM (its per-system bias absorbs a shift).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from . import _soft_logistic
from .comparisons import Comparisons

__all__ = ["BaselineRows", "InstructionDifficulty", "against_baseline", "estimate_difficulty"]


@dataclass(frozen=True)
class BaselineRows:
    """The comparisons involving the baseline, seen from the other system.

    Attributes:
        rows: shape (m,), int: row numbers in the :class:`Comparisons`.
        system: shape (m,), int: the other system (index into ``Comparisons.systems``).
        prompt: shape (m,), int: the prompt (index into ``Comparisons.prompts``).
        outcome: shape (m,), float in [0, 1]: the share the system won.
        delta_len: shape (m,), float: the baseline's length minus the system's, characters.
        system_len: shape (m,), float: the system's output length, characters.
    """

    rows: np.ndarray
    system: np.ndarray
    prompt: np.ndarray
    outcome: np.ndarray
    delta_len: np.ndarray
    system_len: np.ndarray


def against_baseline(comparisons: Comparisons, baseline: str) -> BaselineRows:
    """Every comparison with ``baseline`` on either side, flipped so the share is the other
    system's (rows between two other systems are not used).

    Raises:
        KeyError: no system named ``baseline``.
        ValueError: no row against the baseline; a used row without both lengths (the
            message names the prompt and system).
    """
    base = comparisons.system_index(baseline)
    on_b = comparisons.b == base
    on_a = comparisons.a == base
    rows = np.flatnonzero(on_a | on_b)
    if rows.size == 0:
        raise ValueError(f"no comparison against the baseline {baseline!r}")
    flip = on_a[rows]
    system = np.where(flip, comparisons.b[rows], comparisons.a[rows])
    outcome = np.where(flip, 1.0 - comparisons.outcome[rows], comparisons.outcome[rows])
    len_system = np.where(flip, comparisons.length_b[rows], comparisons.length_a[rows])
    len_base = np.where(flip, comparisons.length_a[rows], comparisons.length_b[rows])
    missing = np.flatnonzero(np.isnan(len_system) | np.isnan(len_base))
    if missing.size:
        r = comparisons.rows[rows[missing[0]]]
        raise ValueError(f"the length-controlled win rate needs both outputs' lengths; "
                         f"{missing.size} comparisons against {baseline!r} lack them (the "
                         f"first: {r.a!r} vs {r.b!r} on prompt {r.prompt!r}); give "
                         f"length_a and length_b (characters)")
    return BaselineRows(rows, system, comparisons.prompt[rows], outcome, len_base - len_system,
                        len_system)


def scaled_length(delta_len: np.ndarray, system: np.ndarray) -> np.ndarray:
    """``tanh(delta_len / sd)``, sd the standard deviation (ddof 1) of ``delta_len`` over the
    rows of the same system (a zero or undefined sd taken as 1), shape (m,)."""
    out = np.zeros(len(delta_len))
    for s in np.unique(system):
        mask = system == s
        sd = float(np.std(delta_len[mask], ddof=1)) if mask.sum() > 1 else math.nan
        if not math.isfinite(sd) or sd == 0:
            sd = 1.0
        out[mask] = np.tanh(delta_len[mask] / sd)
    return out


@dataclass(frozen=True)
class InstructionDifficulty:
    """A difficulty per prompt.

    Attributes:
        prompts: the prompts' ids.
        values: shape (len(prompts),), float, logit scale: each prompt's difficulty.
        c: the penalty C chosen by cross-validation (NaN when given, not fitted).
        n_systems: how many systems the fit used (0 when given).
    """

    prompts: tuple[str, ...]
    values: np.ndarray
    c: float = math.nan
    n_systems: int = 0

    @classmethod
    def of(cls, values: Mapping[str, float]) -> InstructionDifficulty:
        """Difficulties given per prompt id (e.g. AlpacaEval's hub file, keyed by the
        instruction's position as text)."""
        return cls(tuple(str(k) for k in values),
                   np.array([float(v) for v in values.values()]))

    def for_prompts(self, prompts: tuple[str, ...] | list[str]) -> np.ndarray:
        """The difficulties of ``prompts`` (shape (len(prompts),)).

        Raises:
            ValueError: a prompt without a difficulty (the message names the first).
        """
        index = {p: i for i, p in enumerate(self.prompts)}
        unknown = [p for p in prompts if p not in index]
        if unknown:
            raise ValueError(f"no instruction difficulty for {len(unknown)} prompts (the "
                             f"first: {unknown[0]!r}); estimate them on comparisons that "
                             f"include these prompts")
        return self.values[[index[p] for p in prompts]]


def estimate_difficulty(comparisons: Comparisons, baseline: str, *,
                        cs: tuple[float, ...] = _soft_logistic.DEFAULT_CS,
                        folds: int = 5) -> InstructionDifficulty:
    """Each prompt's difficulty from the joint fit above, on the comparisons against
    ``baseline`` (all systems at once; the more systems, the better determined).

    Args:
        comparisons: the comparisons, with lengths.
        baseline: the baseline's name.
        cs: the grid of penalties C to choose from by cross-validation (one value: no CV).
        folds: the cross-validation folds (rows are the groups).

    Returns:
        The difficulty of every prompt that has a row against the baseline, in
        ``comparisons.prompts`` order; the first such prompt's is 0.

    Raises:
        KeyError, ValueError: as :func:`against_baseline`; no row with a non-empty output.

    Cost: on AlpacaEval's 57 systems x 805 prompts (45,875 rows), the 10-C grid x 5 folds
    and the refit take 14-21 s on one core (benchmarks/alpaca_eval_check.py).
    """
    from scipy import sparse

    rows = against_baseline(comparisons, baseline)
    used = rows.system_len > 0
    if not used.any():
        raise ValueError("no comparison against the baseline with a non-empty output")
    prompts_present = np.unique(rows.prompt)
    prompt_ids = tuple(comparisons.prompts[p] for p in prompts_present)
    system = rows.system[used]
    prompt = rows.prompt[used]
    y = rows.outcome[used]
    length = scaled_length(rows.delta_len[used], system)
    systems, s_col = np.unique(system, return_inverse=True)
    p_col = np.searchsorted(prompts_present, prompt)
    n, n_s, n_p = len(y), len(systems), len(prompts_present)
    # columns: [bias per system | length slope per system | prompt 1.. P-1]
    r = np.arange(n)
    has_prompt = p_col > 0
    data = np.concatenate([np.ones(n), length, np.ones(int(has_prompt.sum()))])
    row_idx = np.concatenate([r, r, r[has_prompt]])
    col_idx = np.concatenate([s_col, n_s + s_col, 2 * n_s + p_col[has_prompt] - 1])
    x = sparse.csr_matrix((data, (row_idx, col_idx)), shape=(n, 2 * n_s + n_p - 1))
    w = np.ones(n)
    c = cs[0] if len(cs) == 1 else _soft_logistic.choose_c(x, y, w, r, cs=cs, folds=folds)
    beta = _soft_logistic.fit(x, y, w, c)
    values = np.concatenate([[0.0], beta[2 * n_s:]])
    return InstructionDifficulty(prompt_ids, values, float(c), int(n_s))
