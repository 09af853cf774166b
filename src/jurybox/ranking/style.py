"""Style-controlled Bradley-Terry: the BT fit with the outputs' style differences as
covariates, so that a system is not ranked up for being longer or heavier in markdown.

After arena-hard-auto's style control (github lmarena/arena-hard-auto: ``utils_math.py``
``construct_style_matrices`` and ``utils/add_markdown_info.py``, v0.1 with style control;
Li et al. 2024, "Does style matter? Disentangling style and substance in Chatbot Arena",
lmsys.org blog, 2024-08-29):

- features of each output: its length in characters (``len(text)``, or the recorded
  ``length_a``/``length_b`` when the texts are not recorded) and, from the text with fenced
  code blocks removed, its markdown headers (lines ``#`` to ``######`` then a space), list
  items (lines ``1.``, ``-``, ``*`` or ``+`` then a space) and bold spans (``**x**``,
  ``__x__``);
- per comparison and feature, the normalised difference ``(f_a - f_b) / (f_a + f_b + 1)``, in
  (-1, 1);
- each divided by its standard deviation over the comparisons (ddof 0), and appended to the BT
  design (:mod:`jurybox.ranking.bradley_terry`), same logistic regression, same two-row ties.

One deliberate difference: the columns are scaled but not centred. arena-hard-auto centres
them too; then zero means "the average style difference", and when every comparison is a
system against one baseline the centring offset moves every system against the baseline by
the same amount, so a system that is longer than the baseline everywhere keeps its length
advantage. Uncentred, the style-controlled score difference is the log-odds of a win at equal
style (zero difference), which is what the control is for.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..stats.interval import ConfidenceInterval
from .bootstrap import DEFAULT_ROUNDS, Bootstrap, percentile_ci, prompt_counts, row_weights
from ._bt_design import _Fitter, _solver
from .bradley_terry import BradleyTerry, _bt_scores, _fit_start
from .comparisons import Comparison, Comparisons

__all__ = ["LENGTH", "MARKDOWN", "StyleCoefficient", "StyleControlled", "markdown_counts",
           "style_controlled_bt", "style_differences"]

#: the length feature's name
LENGTH = "length"
#: the markdown features' names, in column order
MARKDOWN = ("headers", "lists", "bold")

_CODE = re.compile(r"```[^`]*```")
_PATTERNS = {
    "headers": re.compile(r"^#{1,6}\s", re.MULTILINE),
    "lists": re.compile(r"^\s*(?:\d+\.|[-*+])\s", re.MULTILINE),
    "bold": re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__"),
}


@dataclass(frozen=True)
class StyleCoefficient:
    """The fitted effect of one style feature.

    Attributes:
        feature: ``length``, ``headers``, ``lists`` or ``bold``.
        coefficient: logits per standard deviation of the feature's normalised difference
            (positive: the output with more of it is preferred).
        ci: its bootstrap percentile interval (logits).
    """

    feature: str
    coefficient: float
    ci: ConfidenceInterval


@dataclass(frozen=True)
class StyleControlled(BradleyTerry):
    """Style-controlled Bradley-Terry scores: a :class:`~jurybox.ranking.BradleyTerry` whose
    ``scores`` are Elo points at equal style (baseline 1000, or mean 1000), with CIs, rank
    intervals and the predicted win rate against the baseline at equal style.

    Attributes (besides :class:`~jurybox.ranking.BradleyTerry`'s):
        coefficients: one :class:`StyleCoefficient` per feature used.
        features: the features used, in column order.
        notes: what was left out and why (no texts recorded: length only; a feature
            constant over every comparison: dropped).
    """

    coefficients: tuple[StyleCoefficient, ...]
    features: tuple[str, ...]
    notes: tuple[str, ...]


def markdown_counts(text: str) -> tuple[int, int, int]:
    """(headers, list items, bold spans) of ``text``, fenced code blocks left out.

    >>> markdown_counts("# Title\\n\\n- one\\n- **two**\\n1. three\\n```\\n# not a header\\n```")
    (1, 3, 1)
    """
    text = _CODE.sub("", text)
    return tuple(len(_PATTERNS[name].findall(text)) for name in MARKDOWN)  # type: ignore


def style_differences(comparisons: Comparisons, features: tuple[str, ...] | None = None
                      ) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """The normalised style differences ``(f_a - f_b) / (f_a + f_b + 1)`` of each comparison.

    Args:
        features: the features wanted (a subset of ``length`` and :data:`MARKDOWN`); None:
            length, and the markdown features when every comparison records both texts.

    Returns:
        (differences of shape (n, features) in (-1, 1), the features' names, notes).

    Raises:
        ValueError: an unknown feature; some comparison with neither a text nor a recorded
            length for an output; markdown features asked for, or texts recorded for some
            comparisons but not others (the message counts them and names the first).
    """
    known = (LENGTH, *MARKDOWN)
    if features is not None and (bad := [f for f in features if f not in known]):
        raise ValueError(f"unknown style feature(s) {', '.join(bad)}; known: "
                         f"{', '.join(known)}")
    rows = comparisons.rows
    texts = [r.text_a is not None and r.text_b is not None for r in rows]
    notes: list[str] = []
    if features is None:
        if not any(texts):
            features = (LENGTH,)
            notes.append("no output text recorded: length only, markdown not controlled")
        else:
            features = known
    want_markdown = any(f in MARKDOWN for f in features)
    if want_markdown and not all(texts):
        first = rows[texts.index(False)]
        raise ValueError(f"markdown style control needs both outputs' texts: "
                         f"{texts.count(False)} of {len(rows)} comparisons lack one (first: "
                         f"prompt {first.prompt!r}, {first.a!r} vs {first.b!r}); record "
                         f"the texts, or control length only")
    columns = []
    for which in ("a", "b"):
        values = [_features(r, which, want_markdown) for r in rows]
        columns.append(np.array(values, dtype=float))
    fa, fb = columns
    diff = (fa - fb) / (fa + fb + 1.0)
    order = [known.index(f) for f in features]
    return diff[:, order], tuple(features), tuple(notes)


def _features(row: Comparison, which: str, markdown: bool) -> list[float]:
    """[length, headers, lists, bold] of one output (markdown zeros when not wanted)."""
    text = row.text_a if which == "a" else row.text_b
    length = row.length_a if which == "a" else row.length_b
    if text is not None:
        length = len(text)
    if length is None:
        name = row.a if which == "a" else row.b
        raise ValueError(f"style control needs every output's length: the output of {name!r} "
                         f"on prompt {row.prompt!r} has neither a text nor a recorded length")
    counts = markdown_counts(text) if markdown and text is not None else (0, 0, 0)
    return [float(length), *map(float, counts)]


def style_controlled_bt(comparisons: Comparisons, baseline: str | None = None, *,
                        features: tuple[str, ...] | None = None,
                        rounds: int = DEFAULT_ROUNDS, seed: int = 0,
                        confidence: float = 0.95) -> StyleControlled:
    """Bradley-Terry scores with style differences as covariates, with bootstrap CIs.

    Each bootstrap round refits on all comparisons weighted by
    :func:`~jurybox.ranking.bootstrap.row_weights` (rows of undrawn prompts left out), warm
    started at the full-data fit; the style columns keep the full data's scaling.

    Args:
        comparisons: the judged pairs, with both outputs' texts or lengths.
        baseline: the system anchored at 1000 (None: the mean at 1000).
        rounds: bootstrap rounds over prompts (0: no CIs).
        seed: the bootstrap's seed.
        confidence: the CIs' level, in (0, 1).
        features: as :func:`style_differences`.

    Returns:
        a :class:`StyleControlled`.

    Raises:
        KeyError: ``baseline`` names no system.
        ValueError: as :func:`style_differences`; a system not connected to the others.
    """
    setup = _fit_start(comparisons, baseline)
    systems, ref, anchor, k = setup.systems, setup.ref, setup.anchor, len(setup.systems)
    diff, names, notes_ = style_differences(comparisons, features)
    notes = list(notes_)
    spread = diff.std(axis=0)
    keep = spread > 0
    for name, kept in zip(names, keep.tolist()):
        if not kept:
            notes.append(f"style feature {name!r} is the same in every comparison: dropped")
    names = tuple(name for name, kept in zip(names, keep.tolist()) if kept)
    style = diff[:, keep] / spread[keep]

    n = len(comparisons)
    x = np.zeros((n, k))
    x[np.arange(n), comparisons.a] = 1.0
    x[np.arange(n), comparisons.b] = -1.0
    x = np.hstack([np.delete(x, anchor, axis=1), style])
    # sparse: the system columns hold two non-zeros a row (measured: a fit 4 to 8 times
    # faster than dense on 47,000 comparisons of 60 systems)
    # each comparison as four rows of half weight: (x, a won) and its mirror (-x, b won) with
    # the share that went to a, (x, b won) and (-x, a won) with the rest. The likelihood is
    # that of (x, a won; share) + (x, b won; 1 - share) (no intercept: the model is odd in
    # x), but both classes are present whenever any row is, so a bootstrap round in which
    # every drawn verdict went to the same side (a small set) still fits
    design = sparse.csr_matrix(np.vstack([x, -x, x, -x]))
    label = np.concatenate([np.ones(n), np.zeros(n), np.zeros(n), np.ones(n)])
    out = comparisons.outcome
    share = np.concatenate([out, out, 1.0 - out, 1.0 - out]) / 2.0
    prompt = np.tile(comparisons.prompt, 4)

    def fit(weight: np.ndarray, fitter: _Fitter, start: np.ndarray | None) -> np.ndarray:
        used = weight > 0
        return fitter.fit(design[used], label[used], weight[used], start)

    solver = _solver(design.shape[1])
    coef = fit(share, _Fitter(tol=1e-10, solver=solver), None)
    counts = prompt_counts(len(comparisons.prompts), rounds, seed)
    pair_weight = np.asarray(((setup.lo_share + setup.hi_share).T @ counts.T.astype(float)).T)
    coefs = np.full((rounds, len(coef)), math.nan)
    fitter = _Fitter(tol=1e-8, solver=solver)
    betas = np.full((rounds, k), math.nan)
    for r in range(rounds):
        c = fit(share * row_weights(counts[r], prompt), fitter, coef)
        coefs[r] = c
        betas[r] = setup.reached(np.insert(c[:k - 1], anchor, 0.0), pair_weight[r])

    beta = np.insert(coef[:k - 1], anchor, 0.0)
    scores, samples = _bt_scores(comparisons, beta, betas, ref, confidence)
    style_coefs = tuple(
        StyleCoefficient(name, float(coef[k - 1 + j]),
                         percentile_ci(coefs[:, k - 1 + j], confidence))
        for j, name in enumerate(names))
    return StyleControlled(scores, baseline, Bootstrap(rounds, seed, confidence), systems, samples,
                           coefficients=style_coefs, features=names, notes=tuple(notes))
