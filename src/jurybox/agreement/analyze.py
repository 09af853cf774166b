"""Agreement analysis of multi-rater data, per group (dimension, domain, ...).

For each group: Krippendorff's alpha over all raters with a bootstrap CI (fine agreement),
coarse Jaccard agreement for every rater pair with enough co-rated items, rater profiles
(leniency) and the pairwise alpha matrix between raters.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..datasets import RatingsTable
from ..stats import (AlphaResult, CoarseAgreement, ConfidenceInterval, DegenerateAlphaWarning,
                     InsufficientRatingsError, Level, PairwiseAlpha, RaterProfile,
                     co_rated_pairs, coarse_agreement, krippendorff_alpha, pairwise_alpha,
                     rater_profile)

__all__ = ["GroupAgreement", "analyze", "GROUP_FIELDS", "ratings_matrix"]

GROUP_FIELDS = ("dimension", "domain", "group")


@dataclass(frozen=True)
class GroupAgreement:
    """Agreement of the raters within one group.

    Attributes:
        key: the group, e.g. ``{"dimension": "coherence"}``.
        alpha: Krippendorff's alpha over all raters (with CI).
        coarse: Jaccard agreement of above-median sets, per rater pair.
        profiles: one per rater.
        pairwise: alpha between every two raters with enough co-rated items.
        n_ratings: ratings in the group (excluded codes count as missing).
    """

    key: dict[str, str]
    alpha: AlphaResult
    coarse: CoarseAgreement
    profiles: tuple[RaterProfile, ...]
    pairwise: PairwiseAlpha
    n_ratings: int
    note: str | None = None

    @property
    def label(self) -> str:
        return " / ".join(self.key.values()) or "all"


def ratings_matrix(scores: dict[str, dict[str, float | str]]
                   ) -> tuple[np.ndarray, list[str], list[str]]:
    """rater -> item -> score as a (n_raters, n_units) array (NaN = missing; object dtype
    when scores are labels), with the rater and item orders."""
    raters = sorted(scores)
    items = sorted({i for s in scores.values() for i in s})
    column = {item: k for k, item in enumerate(items)}
    labels = any(isinstance(v, str) for s in scores.values() for v in s.values())
    matrix = np.full((len(raters), len(items)), np.nan, dtype=object if labels else float)
    for r, rater in enumerate(raters):
        for item, score in scores[rater].items():
            matrix[r, column[item]] = score
    return matrix, raters, items


def analyze(table: RatingsTable, *, by: Sequence[str] = ("dimension",), level: Level = "ordinal",
            min_common: int = 10, n_resamples: int = 1000, seed: int = 0,
            max_pairwise: int = 20_000) -> list[GroupAgreement]:
    """Agreement per group of ratings.

    Args:
        table: long-format ratings.
        by: fields that form the groups, from ``dimension``, ``domain``, ``group``; it must
            include ``dimension`` unless the ratings have a single dimension.
        level: level of measurement for alpha (nominal needs ``numeric=False`` labels or
            numbers; coarse agreement and profiles need numbers and are skipped for labels).
        min_common: co-rated items a rater pair needs for Jaccard and pairwise alpha.
        n_resamples: bootstrap resamples of alpha's CI.
        seed: the bootstrap's seed.
        max_pairwise: above this many eligible rater pairs, the pairwise alpha matrix is
            skipped (it costs one alpha per pair); alpha, Jaccard and profiles are not.

    A group whose ratings hold no pairable value (a single rater, or no item rated by two)
    is reported, not fatal: its alpha is NaN with the reason (``n_units`` 0), since the
    grouping is the user's choice and the other groups still say something. When no group
    has a pairable value, there is nothing to report and it raises.

    Raises:
        InsufficientRatingsError: (a ValueError) no group has a pairable value; the message
            names the first group and why.
        ValueError: an unknown ``by`` field, ``by`` without dimension on several dimensions,
            or ratings alpha cannot take (negative at level ratio, labels of mixed types).
    """
    unknown = [f for f in by if f not in GROUP_FIELDS]
    if unknown:
        raise ValueError(f"--by takes {', '.join(GROUP_FIELDS)}, got "
                         f"{', '.join(map(repr, unknown))}")
    if "dimension" not in by and len(table.dimensions) > 1:
        raise ValueError(f"--by must include dimension: the ratings have {len(table.dimensions)} "
                         f"dimensions ({', '.join(table.dimensions[:4])}...), and agreement "
                         f"across different dimensions compares different questions")
    groups: dict[tuple, dict[str, dict[str, float | str]]] = {}
    counts: dict[tuple, int] = {}
    for r in table.ratings:
        key = tuple((f, getattr(r, f) or "-") for f in by)
        groups.setdefault(key, {}).setdefault(r.rater_id, {})[r.item_id] = r.score
        counts[key] = counts.get(key, 0) + 1
    results = []
    errors: list[InsufficientRatingsError] = []
    for key, scores in groups.items():
        matrix, raters, _ = ratings_matrix(scores)
        alpha, error = _group_alpha(matrix, scores, level=level, n_resamples=n_resamples,
                                    seed=seed)
        if error is not None:
            errors.append(error)
        numeric = matrix.dtype != object
        numeric_scores: dict[str, dict[str, float]] = (
            scores if numeric else {})  # type: ignore[assignment]
        pairs = co_rated_pairs(numeric_scores, min_common)
        results.append(GroupAgreement(
            key=dict(key), alpha=alpha,
            coarse=coarse_agreement(numeric_scores, min_common=min_common, pairs=pairs),
            profiles=tuple(rater_profile(r, numeric_scores[r]) for r in raters)
            if numeric else (),
            pairwise=pairwise_alpha(numeric_scores, level=level, min_common=min_common,
                                    pairs=pairs, max_pairs=max_pairwise),
            n_ratings=counts[key],
            note=None if numeric else "text labels: no coarse agreement or profiles"))
    if errors and len(errors) == len(results):
        first = next(g for g in results if g.alpha.n_units == 0)
        raise InsufficientRatingsError(errors[0].kind, f"no group has ratings to measure "
                                       f"agreement on; group {first.label!r}: "
                                       f"{first.alpha.reason}")
    return results


def _group_alpha(matrix: np.ndarray, scores: dict[str, dict[str, float | str]], *,
                 level: Level, n_resamples: int, seed: int
                 ) -> tuple[AlphaResult, InsufficientRatingsError | None]:
    """The group's alpha; without a pairable value, NaN with the reason in rater ids
    (``n_units`` 0), and the error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateAlphaWarning)  # reported via reason
        try:
            return krippendorff_alpha(matrix, level=level, n_resamples=n_resamples,
                                      seed=seed), None
        except InsufficientRatingsError as exc:
            rated = sorted(r for r, s in scores.items()
                           if any(v is not None and v == v for v in s.values()))  # v == v: not NaN
            reason = {
                "no ratings": "no ratings: every score is missing or excluded",
                "single rater": f"a single rater ({', '.join(rated)}): alpha needs two or more",
                "no pairable units": f"no item rated by two of the {len(rated)} raters",
            }[exc.kind]
            return AlphaResult(math.nan, level, 0, int(matrix.shape[0]), 0,
                               ConfidenceInterval(math.nan, math.nan), 0.95, n_resamples,
                               reason), exc
