"""Scores of one recording: per order, both orders (net and strict), agree-only, position
effects, parse failures, paired sign tests against order 1, and LLMBar's own statistics.

Rules, per item with verdicts v_1..v_k (original-response terms, None = unparsed):

- **order j**: credit 1 when v_j equals the label (a tie label needs a tie verdict), else 0;
  None (not scored) when v_j is unparsed.
- **both orders, net** (jurybox's rule; JudgeBench's vote, :func:`jurybox.stats.judgebench_vote`):
  +1 per order for A, -1 for B, 0 for tie or unparsed; the decision is A (> 0), B (< 0) or
  tie (0); credit 1 when it equals the label; None when every order is unparsed.
- **both orders, strict**: credit 1 when every order's verdict equals the label; None when
  any is unparsed.
- **agree-only**: the items whose orders all parsed and agree, scored on that verdict;
  ``coverage`` = those items / all items.
- **consistency**: share of items with every order parsed whose verdicts agree (an item with
  an unparsed order left out); ``consistency_strict``: consistent items over all items (it
  counted inconsistent, as Shi et al. 2024 count it).
- **unlabelled items** (label None) count for consistency, the first-shown rate and parse
  failures, never for an accuracy.
- **first-shown rate**: share of decisive (A/B) verdicts picking the response shown first;
  its CI resamples items (both orders of an item together: a cluster bootstrap of the ratio,
  :func:`jurybox.stats.bootstrap_ratio_ci`), over the items with a decisive verdict.

Every CI is a 95% percentile bootstrap, 2,000 resamples, seed 0 (the same interval as
``scipy.stats.bootstrap(method="percentile")``: :mod:`jurybox.stats._bootstrap`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..protocols.pairwise import net_verdict
from ..stats import accuracy, bootstrap_ratio_ci, judgebench_vote, paired_or_none
from ..stats.accuracy import AccuracyResult
from ..stats.interval import ConfidenceInterval
from ..stats.paired import PairedComparison
from .llmbar_stats import LLMBarStatistics, llmbar_statistics
from .model import Recording, Verdict, shown_first

__all__ = ["RecordingScore", "score_recording", "net_decision", "Credits"]

Credits = dict[str, float | None]


def net_decision(verdicts: tuple[Verdict | None, ...]) -> Verdict | None:
    """The both-orders decision under the net rule (None when every order is unparsed)."""
    return net_verdict(list(verdicts))


def _net_credit(verdicts: tuple[Verdict | None, ...], label: str) -> float | None:
    if all(v is None for v in verdicts):
        return None
    if label == "tie":
        return float(net_decision(verdicts) == "tie")
    return float(judgebench_vote(verdicts, label) == "correct")


@dataclass(frozen=True)
class RecordingScore:
    """What one recording scores (every accuracy a :class:`~jurybox.stats.AccuracyResult`
    with n, coverage and a 95% percentile-bootstrap CI, seed 0).

    Attributes:
        subset, judge, strategy, orders: the recording's.
        n: items.
        by_order: accuracy of each order slot (unparsed verdicts not scored).
        net, strict: both-orders accuracy under the net and strict rules.
        agree_only: accuracy on the items whose orders agree; its coverage is those / n.
        consistency: share of fully parsed items whose orders agree (NaN: none);
            n_consistency: those items.
        first_shown_rate: share of decisive verdicts for the response shown first, in
            [0, 1] (NaN: none); n_decisive: those verdicts; first_shown_ci: its 95% percentile
            bootstrap CI, items resampled (NaN bounds: fewer than 2 items with a decisive
            verdict).
        parse_failures: unparsed verdicts (of n x orders); failed_items: items with one.
        vs_order1: name -> paired sign test of that rule's credits against order 1's on
            the items both scored (None when none is shared); names ``order 2`` ...,
            ``net``, ``strict``, ``agree-only``.
        llmbar: LLMBar's statistics (two orders AB, BA), else None.
        reference_mismatches: keys where the source's own statistics.json differs from
            ``llmbar`` (empty = reproduced), or None when there is no reference.
        net_decisions: item id -> the both-orders net decision (None: all unparsed).
        net_credits: item id -> the net rule's credit (for juries and paired tests).
        consistency_strict: consistent items / n: an item with an unparsed order counts as
            inconsistent (Shi et al. 2024, "Judging the Judges", position consistency).
        n_labelled: items with a label. Accuracies count only these (an unlabelled item
            counts for consistency, the first-shown rate and parse failures); with none, every
            accuracy has n 0 and a NaN value.
    """

    subset: str
    judge: str
    strategy: str
    orders: tuple[str, ...]
    n: int
    by_order: tuple[AccuracyResult, ...]
    net: AccuracyResult
    strict: AccuracyResult
    agree_only: AccuracyResult
    consistency: float
    n_consistency: int
    first_shown_rate: float
    n_decisive: int
    first_shown_ci: ConfidenceInterval
    parse_failures: int
    failed_items: int
    vs_order1: dict[str, PairedComparison | None]
    llmbar: LLMBarStatistics | None
    reference_mismatches: list[str] | None
    net_decisions: dict[str, Verdict | None] = field(repr=False, default_factory=dict)
    net_credits: Credits = field(repr=False, default_factory=dict)
    order_credits: tuple[Credits, ...] = field(repr=False, default=())
    n_labelled: int = 0
    consistency_strict: float = math.nan



def _no_interval(credits: Credits) -> AccuracyResult:
    """Accuracy with its n and coverage but no CI (NaN bounds): a figure shown without one."""
    judged = [c for c in credits.values() if c is not None]
    n_total = len(credits)
    return AccuracyResult(sum(judged) / len(judged) if judged else math.nan, len(judged),
                          n_total, len(judged) / n_total if n_total else math.nan,
                          ConfidenceInterval(math.nan, math.nan), 0.95)


def score_recording(rec: Recording, *, n_resamples: int = 2000,
                    intervals: str = "all") -> RecordingScore:
    """Score one recording (rules: the module docstring).

    Args:
        rec: from a reader of :mod:`jurybox.recorded`.
        n_resamples: bootstrap resamples per CI (0 is not allowed by the stats; use >= 1).
        intervals: ``"all"``: every CI and every paired sign test; ``"position"``: only the
            CIs of ``net`` and ``first_shown_ci`` (what ``jurybox score``'s default table
            shows), the other accuracies with NaN bounds and ``vs_order1`` empty (every
            figure itself is the same).

    Raises:
        ValueError: ``intervals`` is neither.
    """
    if intervals not in ("all", "position"):
        raise ValueError(f"intervals is 'all' or 'position', got {intervals!r}")
    every = intervals == "all"

    def acc(credits: Credits) -> AccuracyResult:
        return (accuracy(list(credits.values()), n_resamples=n_resamples) if every
                else _no_interval(credits))

    k = len(rec.orders)
    by_order: list[Credits] = [{} for _ in range(k)]
    net: Credits = {}
    strict: Credits = {}
    agree: Credits = {}
    decisions: dict[str, Verdict | None] = {}
    consistent = parsed_all = failures = failed_items = labelled = 0
    first_of, decisive_of = [], []  # per item: verdicts for the one shown first; decisive
    for item in rec.items:
        vs, label = item.verdicts, item.label
        item_first = item_decisive = 0
        for j, v in enumerate(vs):
            if label is not None:  # an unlabelled item counts for position only
                by_order[j][item.item_id] = None if v is None else float(v == label)
            if v in ("A", "B"):
                item_decisive += 1
                item_first += v == shown_first(rec.orders[j])
        first_of.append(item_first)
        decisive_of.append(item_decisive)
        missing = sum(v is None for v in vs)
        failures += missing
        failed_items += missing > 0
        decisions[item.item_id] = net_decision(vs)
        if label is not None:
            labelled += 1
            net[item.item_id] = _net_credit(vs, label)
            strict[item.item_id] = None if missing else float(all(v == label for v in vs))
        if not missing:
            parsed_all += 1
            if len(set(vs)) == 1:
                consistent += 1
                if label is not None:
                    agree[item.item_id] = float(vs[0] == label)
    n = rec.n
    first, decisive = sum(first_of), sum(decisive_of)
    agree_acc = acc(agree)
    agree_acc = AccuracyResult(agree_acc.accuracy, agree_acc.n, labelled,
                               agree_acc.n / labelled if labelled else math.nan,
                               agree_acc.confidence_interval, agree_acc.confidence_level)
    tests: dict[str, PairedComparison | None] = {}
    for j in range(1, k if every else 1):
        tests[f"order {j + 1}"] = paired_or_none(by_order[0], by_order[j], n_resamples=n_resamples)
    rules = (("net", net), ("strict", strict), ("agree-only", agree)) if every else ()
    for name, credits in rules:
        tests[name] = paired_or_none(by_order[0], credits, n_resamples=n_resamples)
    stats = llmbar_statistics(rec)
    mismatches = (stats.mismatches(rec.reference) if stats is not None
                  and rec.reference is not None else None)
    return RecordingScore(
        subset=rec.subset, judge=rec.judge, strategy=rec.strategy, orders=rec.orders, n=n,
        by_order=tuple(acc(c) for c in by_order),
        net=accuracy(list(net.values()), n_resamples=n_resamples),
        strict=acc(strict),
        agree_only=agree_acc,
        # one order: nothing to be consistent with (NaN, not a vacuous 100%)
        consistency=consistent / parsed_all if parsed_all and k > 1 else math.nan,
        n_consistency=parsed_all,
        consistency_strict=consistent / n if n and k > 1 else math.nan,
        first_shown_rate=first / decisive if decisive else math.nan, n_decisive=decisive,
        first_shown_ci=bootstrap_ratio_ci(np.array(first_of, dtype=float),
                                          np.array(decisive_of, dtype=float), confidence=0.95,
                                          n_resamples=n_resamples, seed=0),
        parse_failures=failures, failed_items=failed_items, vs_order1=tests, llmbar=stats,
        reference_mismatches=mismatches, net_decisions=decisions, net_credits=net,
        order_credits=tuple(by_order), n_labelled=labelled)
