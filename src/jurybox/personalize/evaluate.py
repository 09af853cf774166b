"""How well rubric judges align with each target rater (arXiv 2604.22517's evaluation).

Per condition and dimension, for each target rater over that rater's units: Krippendorff's
alpha (ordinal by default) between the judge's final scores and the rater's labels, exact
agreement, mean absolute error, coverage; then the mean over raters with a percentile
bootstrap CI over raters. Gated units and predicted exclusion codes are missing by design:
left out of coverage and counted apart; abstentions, failures and blocked units (a
prerequisite without a usable score) count against coverage. ``coverage`` is pooled over
units; ``coverage_by_rater`` is the mean over raters with its CI.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..limits import MIN_UNITS_FOR_CI
from ..rundir import unit_of
from ..stats import (ConfidenceInterval, DegenerateAlphaWarning, InsufficientRatingsError,
                     PairedComparison, TfidfIndex, bootstrap_mean_ci, krippendorff_alpha,
                     paired_comparison)

__all__ = ["AlignmentRow", "MeanCI", "ReasoningSimilarity", "ShotComparison", "alignment",
           "paired_personalized_vs_aggregate", "reasoning_similarity"]


@dataclass(frozen=True)
class MeanCI:
    """A mean over raters with a 95% percentile bootstrap CI over raters (NaN, NaN with fewer
    than ``limits.MIN_UNITS_FOR_CI`` raters); ``n`` raters where the per-rater value is
    defined (NaN values left out)."""

    mean: float
    ci: ConfidenceInterval
    n: int


@dataclass(frozen=True)
class AlignmentRow:
    """Alignment of one condition with the target raters on one dimension.

    Attributes:
        n_raters: target raters with units; units: (rater, item) units with a label.
        scored, excluded, abstain, failed, blocked, gated: units by status.
        coverage: scored / asked units, pooled (gated and excluded are not asked).
        alpha, exact, mae, coverage_by_rater: per rater, then the mean over raters with CI.
    """

    condition: str
    dimension: str
    n_raters: int
    units: int
    scored: int
    excluded: int
    abstain: int
    failed: int
    blocked: int
    gated: int
    coverage: float
    alpha: MeanCI
    exact: MeanCI
    mae: MeanCI
    coverage_by_rater: MeanCI


@dataclass(frozen=True)
class ShotComparison:
    """Personalized vs aggregate at ``k`` shots on absolute error (positive difference:
    personalized is closer to the rater)."""

    k: int
    comparison: PairedComparison

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, **asdict(self.comparison)}


@dataclass(frozen=True)
class ReasoningSimilarity:
    """Spearman's rho between rater-pair agreement and judge-reasoning similarity."""

    condition: str
    dimension: str
    n_pairs: int
    rho: float
    ci: ConfidenceInterval
    reason: str | None


def _mean_ci(values: list[float], seed: int) -> MeanCI:
    """The mean over raters; its CI NaN for fewer than MIN_UNITS_FOR_CI raters."""
    arr = np.array([v for v in values if not math.isnan(v)], dtype=float)
    mean = float(arr.mean()) if arr.size else math.nan
    ci = (bootstrap_mean_ci(arr, confidence=0.95, n_resamples=2000, seed=seed)
          if arr.size >= MIN_UNITS_FOR_CI else ConfidenceInterval(math.nan, math.nan))
    return MeanCI(mean, ci, int(arr.size))


def _per_rater(rows: list[tuple[float, float | None]], level: str) -> dict[str, float]:
    scored = [(label, score) for label, score in rows if score is not None]
    if scored:
        labels, scores = np.array(scored, dtype=float).T
        exact, mae = float(np.mean(labels == scores)), float(np.mean(np.abs(labels - scores)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateAlphaWarning)
            try:
                alpha = krippendorff_alpha(np.vstack([labels, scores]),
                                           level=level, n_resamples=0).alpha  # type: ignore
            except InsufficientRatingsError:  # no unit with both present: undefined
                alpha = math.nan
    else:
        exact = mae = alpha = math.nan
    return {"alpha": alpha, "exact": exact, "mae": mae, "coverage": len(scored) / len(rows)}


def alignment(records: Sequence[dict], *, dimensions: Sequence[str], level: str = "ordinal",
              seed: int = 0, conditions: Sequence[str] | None = None) -> list[AlignmentRow]:
    """One row per (condition, dimension): per-rater metrics averaged over raters with CIs,
    plus unit counts (units, scored, abstained, failed, gated). Conditions in the given
    order (default: as they first appear)."""
    rows_out = []
    conditions = list(conditions or dict.fromkeys(r["protocol"] for r in records))
    for cond in conditions:
        recs = [r for r in records if r["protocol"] == cond]
        for dim in dimensions:
            status: dict[str, int] = {"scored": 0, "excluded": 0, "abstain": 0, "failed": 0,
                                      "blocked": 0, "gated": 0}
            per_rater: dict[str, list[tuple[float, float | None]]] = {}
            for r in recs:
                d = r["dimensions"].get(dim)
                if d is None or d["label"] is None:
                    continue
                status[d["status"]] += 1
                if d["status"] not in ("gated", "excluded"):  # missing by design
                    score = d["score"] if d["status"] == "scored" else None
                    per_rater.setdefault(r["rater_id"], []).append((d["label"], score))
            metrics = [_per_rater(rows, level) for rows in per_rater.values()]
            units = sum(status.values())
            asked = units - status["gated"] - status["excluded"]
            rows_out.append(AlignmentRow(
                condition=cond, dimension=dim, n_raters=len(per_rater), units=units,
                scored=status["scored"], excluded=status["excluded"],
                abstain=status["abstain"], failed=status["failed"],
                blocked=status["blocked"], gated=status["gated"],
                coverage=status["scored"] / asked if asked else math.nan,
                alpha=_mean_ci([x["alpha"] for x in metrics], seed),
                exact=_mean_ci([x["exact"] for x in metrics], seed),
                mae=_mean_ci([x["mae"] for x in metrics], seed),
                coverage_by_rater=_mean_ci([x["coverage"] for x in metrics], seed)))
    return rows_out


def paired_personalized_vs_aggregate(records: Sequence[dict], *, dimensions: Sequence[str],
                                     seed: int = 0) -> list[ShotComparison]:
    """For each k with both judges: personalized vs aggregate on absolute error over the same
    (rater, item, dimension) units both scored. An improvement is a smaller error under
    personalized; the sign test and CI are paired_comparison's (difference = mean AE of
    aggregate - personalized, positive when personalized is closer). A k where no unit was
    scored by both has no comparison (left out)."""
    errors: dict[str, dict[str, float]] = {}
    for r in records:
        for dim in dimensions:
            d = r["dimensions"].get(dim)
            if d and d["score"] is not None and d["label"] is not None:
                errors.setdefault(r["protocol"], {})[f"{unit_of(r)}|{dim}"] = \
                    -abs(d["score"] - d["label"])
    out = []
    for k in sorted({r["k"] for r in records if r["k"] > 0}):
        agg, pers = errors.get(f"aggregate@{k}"), errors.get(f"personalized@{k}")
        if agg is not None and pers is not None and agg.keys() & pers.keys():
            out.append(ShotComparison(k, paired_comparison(agg, pers, seed=seed)))
    return out


def reasoning_similarity(records: Sequence[dict], *, condition: str, dimension: str,
                         span: float, n_resamples: int = 1000, seed: int = 0
                         ) -> ReasoningSimilarity:
    """Do raters who agree get similar judge reasoning? (arXiv 2604.22517, third finding.)

    For each pair of target raters with co-rated items: agreement = 1 - mean |label_a -
    label_b| / span over those items; similarity = mean TF-IDF cosine of the judge's
    reasoning produced for a and for b on the same item. Spearman's rho over pairs
    (scipy.stats.spearmanr) with a percentile bootstrap CI over pairs. Fewer than 5 pairs:
    NaN with a reason; a CI the bootstrap cannot form (resamples without variation) is NaN
    with a reason too.
    """
    by_unit = {(r["rater_id"], r["item_id"]): r["dimensions"].get(dimension) or {}
               for r in records if r["protocol"] == condition}
    texts: list[str] = []
    index_of: dict[tuple[str, str], int] = {}
    for key, d in by_unit.items():
        if d.get("reasoning"):
            index_of[key] = len(texts)
            texts.append(d["reasoning"])
    tfidf = TfidfIndex(texts)
    raters = sorted({k[0] for k in index_of})
    agree, sim = [], []
    for i, a in enumerate(raters):
        for b in raters[i + 1:]:
            items = [it for (r, it) in index_of if r == a and (b, it) in index_of]
            items = [it for it in items if by_unit[(a, it)].get("label") is not None
                     and by_unit[(b, it)].get("label") is not None]
            if not items:
                continue
            agree.append(1 - np.mean([abs(by_unit[(a, it)]["label"] - by_unit[(b, it)]["label"])
                                      for it in items]) / span)
            sim.append(float(np.mean([tfidf.cosine(index_of[(a, it)], index_of[(b, it)])
                                      for it in items])))
    if len(agree) < 5 or np.std(agree) == 0 or np.std(sim) == 0:
        return ReasoningSimilarity(condition, dimension, len(agree), math.nan,
                                   ConfidenceInterval(math.nan, math.nan),
                                   "fewer than 5 rater pairs with co-rated items, or no "
                                   "variation")
    from scipy import stats as sps  # lazy: scipy costs about a second to import

    rho = float(sps.spearmanr(agree, sim).statistic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = sps.bootstrap((np.array(agree), np.array(sim)),
                             lambda x, y: sps.spearmanr(x, y).statistic, paired=True,
                             vectorized=False, n_resamples=n_resamples, method="percentile",
                             rng=np.random.default_rng(seed))
    lo, hi = float(boot.confidence_interval.low), float(boot.confidence_interval.high)
    return ReasoningSimilarity(condition, dimension, len(agree), rho, ConfidenceInterval(lo, hi),
                               None if not math.isnan(lo) else
                               "the bootstrap CI is undefined (too few distinct pairs)")
