"""Several recorded judges as one jury (no model call).

Where two or more judges judged the same items of a subset with the same strategy (LLMBar's
Processed/MT-Bench: ChatGPT, GPT-4, LLaMA2, PaLM2, both orders each), each judge's decision
is its both-orders net decision (:func:`jurybox.recorded.scoring.net_decision`) and the
jury's is their weighted vote (:func:`jurybox.jury.rules.jury_pairwise`: the option with the
largest total weight, a tie when two share it; an unparsed judge has no vote). Scored on the
items every judge judged: the jury against the best single judge (paired sign test), the
mean judge, the best judge in one order, and a jury of first-order verdicts; the judges'
agreement as raters (Krippendorff's alpha, nominal, on their decisions A/B/tie, with a
bootstrap CI, and the pairwise alpha matrix); and how often each judge differs from the jury.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..jury.rules import jury_pairwise
from ..stats import accuracy, paired_or_none
from ..stats.accuracy import AccuracyResult
from ..stats.krippendorff import (AlphaResult, DegenerateAlphaWarning,
                                  InsufficientRatingsError, krippendorff_alpha)
from ..stats.paired import PairedComparison
from ..stats.profiles import PairwiseAlpha, pairwise_alpha
from .model import Recording, Verdict, shared_items
from .scoring import net_decision

__all__ = ["JuryScore", "score_jury", "jury_groups", "judges_agreement", "CODES"]

#: Nominal codes of the decisions for Krippendorff's alpha.
CODES = {"A": 0.0, "B": 1.0, "tie": 2.0}


@dataclass(frozen=True)
class JuryScore:
    """A recorded jury on one (subset, strategy).

    Attributes:
        subset, strategy: the group. judges, weights: the jury (sorted by name).
        n: items every judge judged (the items scored).
        jury: the jury's accuracy (its decision vs the label; no vote at all = not scored).
        jury_order1: a jury of each judge's first-order verdict only.
        judges: judge -> its both-orders (net) accuracy on the same items.
        judges_order1: judge -> its order-1 accuracy on the same items.
        best_judge: the judge with the highest net accuracy (ties: first by name).
        mean_judge: mean of the judges' net accuracies.
        vs_best: jury against the best judge (paired sign test on the items both scored).
        best_order1_vs_best: the best judge's order 1 against its both-orders decision.
        alpha: Krippendorff's alpha (nominal) of the judges' decisions with a 95% CI, or
            None when there is nothing pairable.
        pairwise: the pairwise alpha matrix (nominal, pairs with >= 10 co-judged items).
        disagreement: judge -> (share of items where judge and jury both decided and
            differ, those items).
        most_disagreeing: the judge with the highest disagreement share.
    """

    subset: str
    strategy: str
    judges: tuple[str, ...]
    weights: tuple[float, ...]
    n: int
    jury: AccuracyResult
    jury_order1: AccuracyResult
    judge_net: dict[str, AccuracyResult]
    judge_order1: dict[str, AccuracyResult]
    best_judge: str
    mean_judge: float
    vs_best: PairedComparison | None
    best_order1_vs_best: PairedComparison | None
    alpha: AlphaResult | None
    pairwise: PairwiseAlpha
    disagreement: dict[str, tuple[float, int]]
    most_disagreeing: str
    decisions: dict[str, dict[str, Verdict | None]] = field(repr=False, default_factory=dict)


def jury_groups(recordings: Sequence[Recording]) -> dict[tuple[str, str], list[Recording]]:
    """(subset, strategy) -> its recordings, for groups with two or more judges."""
    groups: dict[tuple[str, str], list[Recording]] = {}
    for rec in recordings:
        groups.setdefault((rec.subset, rec.strategy), []).append(rec)
    return {k: sorted(v, key=lambda r: r.judge) for k, v in groups.items()
            if len({r.judge for r in v}) >= 2}



def judges_agreement(recordings: Sequence[Recording]) -> list[tuple[str, str, int, int]]:
    """How often two judges of one (subset, strategy) reach the same both-orders net decision
    (:func:`~jurybox.recorded.scoring.net_decision`), labels or not.

    Returns:
        Per pair of judges (sorted by name), ``(a, b, agree, n)``: the items both judged with
        a decision each (a tie counts as a decision), and of those the ones they agree on.

    >>> from jurybox.recorded.model import RecordedItem, Recording
    >>> def rec(judge, verdicts):
    ...     items = tuple(RecordedItem(str(i), None, v) for i, v in enumerate(verdicts))
    ...     return Recording("s", judge, "", ("AB", "BA"), items)
    >>> judges_agreement([rec("x", [("A", "A"), ("A", "B"), (None, None)]),
    ...                   rec("y", [("A", None), ("B", "A"), ("B", "B")])])
    [('x', 'y', 2, 2)]
    """
    from .scoring import net_decision

    decided = {r.judge: {i.item_id: d for i in r.items
                         if (d := net_decision(i.verdicts)) is not None} for r in recordings}
    names = sorted(decided)
    out = []
    for k, a in enumerate(names):
        for b in names[k + 1:]:
            shared = decided[a].keys() & decided[b].keys()
            out.append((a, b, sum(decided[a][i] == decided[b][i] for i in shared),
                        len(shared)))
    return out


def _credit(decision: str | None, label: str) -> float | None:
    return None if decision is None else float(decision == label)


def score_jury(recordings: Sequence[Recording], weights: Mapping[str, float] | None = None,
               *, n_resamples: int = 2000) -> JuryScore:
    """Score the judges of one (subset, strategy) as a jury.

    Args:
        recordings: one per judge, same subset and strategy, two or more judges.
        weights: judge -> weight (finite, >= 0, not all 0); a judge not named weighs 1;
            None = unweighted.

    Raises:
        ValueError: fewer than two judges, a judge twice, mixed subsets or strategies, no
            item judged by every judge, bad weights (:func:`jurybox.jury.rules.check_weights`).
        DataError: an item whose label differs between judges' files.
    """
    recs = sorted(recordings, key=lambda r: r.judge)
    names = tuple(r.judge for r in recs)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"a jury needs two or more different judges, got "
                         f"{', '.join(names) or 'none'}")
    if len({(r.subset, r.strategy) for r in recs}) != 1:
        raise ValueError("a recorded jury's judges must share subset and strategy")
    w = tuple(float((weights or {}).get(j, 1.0)) for j in names)
    by_judge, shared, labels = shared_items(recs, why="a jury is scored on labels")
    decisions = {j: {i: net_decision(b[i].verdicts) for i in shared}
                 for j, b in zip(names, by_judge)}
    first = {j: {i: b[i].verdicts[0] for i in shared} for j, b in zip(names, by_judge)}
    jury_dec = {i: jury_pairwise([decisions[j][i] for j in names], w).decision for i in shared}
    jury1_dec = {i: jury_pairwise([first[j][i] for j in names], w).decision for i in shared}
    jury_credit = {i: _credit(jury_dec[i], labels[i]) for i in shared}
    judge_credit = {j: {i: _credit(decisions[j][i], labels[i]) for i in shared} for j in names}
    judge1_credit = {j: {i: _credit(first[j][i], labels[i]) for i in shared} for j in names}

    def acc(c: Mapping[str, float | None]) -> AccuracyResult:
        return accuracy([c[i] for i in shared], n_resamples=n_resamples)

    judge_net = {j: acc(judge_credit[j]) for j in names}
    judge_order1 = {j: acc(judge1_credit[j]) for j in names}
    best = max(names, key=lambda j: (np.nan_to_num(judge_net[j].accuracy, nan=-1.0),
                                     -names.index(j)))
    finite = [a.accuracy for a in judge_net.values() if not math.isnan(a.accuracy)]
    codes = {j: {i: CODES[d] if d is not None else math.nan for i, d in decisions[j].items()}
             for j in names}
    matrix = np.array([[codes[j][i] for i in shared] for j in names], dtype=float)
    alpha: AlphaResult | None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateAlphaWarning)
        try:
            alpha = krippendorff_alpha(matrix, level="nominal", n_resamples=1000)
        except InsufficientRatingsError:
            alpha = None
    disagreement = {}
    for j in names:
        both = [i for i in shared if decisions[j][i] is not None and jury_dec[i] is not None]
        differ = sum(decisions[j][i] != jury_dec[i] for i in both)
        disagreement[j] = (differ / len(both) if both else math.nan, len(both))
    most = max(names, key=lambda j: (np.nan_to_num(disagreement[j][0], nan=-1.0),
                                     -names.index(j)))
    return JuryScore(
        subset=recs[0].subset, strategy=recs[0].strategy, judges=names, weights=w,
        n=len(shared), jury=acc(jury_credit),
        jury_order1=acc({i: _credit(jury1_dec[i], labels[i]) for i in shared}),
        judge_net=judge_net, judge_order1=judge_order1, best_judge=best,
        mean_judge=sum(finite) / len(finite) if finite else math.nan,
        vs_best=paired_or_none(judge_credit[best], jury_credit, n_resamples=n_resamples),
        best_order1_vs_best=paired_or_none(judge_credit[best], judge1_credit[best],
                                           n_resamples=n_resamples),
        alpha=alpha,
        pairwise=pairwise_alpha(codes, level="nominal", min_common=10),
        disagreement=disagreement, most_disagreeing=most,
        decisions={**decisions, "jury": jury_dec})
