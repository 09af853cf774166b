"""Figures of listwise recordings (:mod:`jurybox.recorded.listwise`): accuracy per order,
by gold slot, position bias, flips, the top-set vote over orders, PCF's consensus, sign
tests, and juries of several judges.

Rules, per item with gold set G (empty: unlabelled), K orders, picks p_1..p_K (original
indices, None = unparsed):

- **order k**: credit 1 when p_k is in G, else 0; None when p_k is unparsed. Unlabelled
  items have no credit (they are left out of every accuracy, not counted as failures).
- **by gold slot s**: the credits of the (item, order) pairs whose one gold candidate was
  shown in slot s (0-based); items with several gold are left out (their gold has no one
  slot).
- **slot rates**: share of parsed picks shown in each slot, labelled or not (an unbiased
  judge: 1/n each); ``first_slot`` and ``last_slot`` with Wilson 95% intervals
  (:func:`jurybox.stats.length.wilson_interval`); counted by
  :class:`jurybox.stats.OrderTally`, which also gives the flip rate (share of items with >= 2
  parsed orders whose picks are not all the same candidate) and the mean disagreement.
- **consistency**: share of items with every order parsed whose picks are one candidate
  (unparsed orders excluded with their item); ``consistency_strict``: those consistent items
  over all items (an unparsed order counts as inconsistent, as in Shi et al. 2024, "Judging
  the Judges", arXiv 2406.07791).
- **vote** (top-set vote over orders): T = the candidates picked most often over the parsed
  orders (several when tied); credit |T & G| / |T| (:func:`jurybox.protocols.aggregate.credit`:
  RewardBench 2's 1/|T| when one gold candidate is in T, else 0); None when every order is
  unparsed.
- **pcf**: PCF's consensus C_i (:func:`jurybox.protocols.aggregate.consensus`, arXiv
  2603.20562 Sec. 3, default weights) over the orders with scores, ranks from ``ranking`` or,
  when not recorded, from the scores (higher first; a tie: the pick first, then by slot),
  calibrated uncertainty 0; winners within ``tolerance`` points of the best C_i; credit as
  the vote's. Items with no scored order have no PCF credit.
- **vs_order**: paired sign tests (:func:`jurybox.stats.paired_comparison`) of the vote's
  and PCF's credits against each order's, on the items both scored.
- **jury** (several judges of one (subset, strategy), on the items all judged): each judge's
  vote set T_j gives 1/|T_j| to each of its members; the jury's set is the candidates with
  the largest total, credited as the vote. Agreement between judges: share of (item, order)
  pairs two judges both parsed with the same pick, pooled over judge pairs; and share of
  items where every judge's vote set is the same.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..protocols.aggregate import RunView, Weights, consensus, credit, winners
from ..stats import OrderTally, accuracy, paired_or_none
from ..stats.accuracy import AccuracyResult
from ..stats.interval import ConfidenceInterval
from ..stats.length import wilson_interval
from ..stats.paired import PairedComparison
from .listwise import ListwiseItem, ListwiseRecording

__all__ = ["ListwiseScore", "ListwiseJury", "score_listwise", "score_listwise_jury",
           "listwise_jury_groups", "top_set", "pcf_consensus", "UNLABELLED"]

Credits = dict[str, float | None]

#: ``no_accuracy`` of a recording with no labelled item.
UNLABELLED = "no labelled item: position figures only"


def top_set(picks: Sequence[int | None]) -> tuple[int, ...]:
    """The candidates picked most often over the parsed orders, ascending (() if none).

    >>> top_set([2, 2, 1]), top_set([0, 1, None]), top_set([None])
    ((2,), (0, 1), ())
    """
    counts = Counter(p for p in picks if p is not None)
    if not counts:
        return ()
    best = max(counts.values())
    return tuple(sorted(c for c, m in counts.items() if m == best))


def _ranks(item: ListwiseItem, k: int, scores: Sequence[float]) -> tuple[int, ...]:
    """1-based rank of each original index in order k: the recorded ranking, else by score."""
    ranking = item.rankings[k] if item.rankings else None
    if ranking is None:
        pick, order = item.picks[k], item.orders[k]
        ranking = tuple(sorted(range(len(scores)), key=lambda i: (
            -scores[i], i != pick, order.index(i))))
    ranks = [0] * len(ranking)
    for r, i in enumerate(ranking, start=1):
        ranks[i] = r
    return tuple(ranks)


def pcf_consensus(item: ListwiseItem, *, weights: Weights = Weights(), tolerance: float = 0.5
                  ) -> tuple[tuple[float, ...], tuple[int, ...]] | None:
    """(C_i per original index (0-100), winners) over the item's scored orders, or None
    when no order has scores (rules: the module docstring)."""
    runs = [RunView(item.orders[k], s, _ranks(item, k, s), (False,) * len(s))
            for k, s in enumerate(item.scores) if s is not None]
    if not runs:
        return None
    combined = consensus(runs, weights=weights).combined
    return combined, winners(combined, tolerance=tolerance)


@dataclass(frozen=True)
class ListwiseScore:
    """What one listwise recording scores. Every accuracy is an
    :class:`~jurybox.stats.AccuracyResult` (share in [0, 1], n, coverage, 95% percentile
    bootstrap CI, seed 0) over the labelled items; None, with the reason in ``no_accuracy``,
    when no item is labelled.

    Attributes:
        subset, judge, strategy: the recording's. n: items; n_labelled: those with gold.
        n_orders: K. n_candidates: n.
        no_accuracy: None, or why there is no accuracy (:data:`UNLABELLED`).
        by_order: accuracy of each order slot k = 0..K-1.
        by_gold_slot: accuracy of the (item, order) pairs with the one gold shown in slot s,
            s = 0..n-1 (NaN where none was).
        vote: the top-set vote over orders. pcf: PCF's consensus (None: no scores).
        n_scored: items with at least one scored order.
        slot_rates: share of parsed picks shown in each slot (1/n each: unbiased);
            n_picks: parsed picks.
        first_slot, last_slot: slot_rates' first and last; their Wilson 95% intervals.
        flip_rate: share of the n_flip items with >= 2 parsed orders whose picks differ;
            mean_disagreement: mean of 1 - (orders with the modal pick) / parsed orders.
        consistency: share of the n_consistency fully parsed items with one pick;
            consistency_strict: consistent items / n (unparsed = inconsistent).
        parse_failures: unparsed picks (of n x K); failed_items: items with one.
        vs_order: ``"vote vs order k"`` / ``"pcf vs order k"`` (k 1-based) -> paired sign test
            of that rule against order k (None: no shared item, or no PCF).
        vote_sets: item id -> its top set T (() when every order is unparsed).
        vote_credits, order_credits: item id -> credit, labelled items only.
        pcf_combined: item id -> C_i per original index, items with scores.
    """

    subset: str
    judge: str
    strategy: str
    n: int
    n_labelled: int
    n_orders: int
    n_candidates: int
    no_accuracy: str | None
    by_order: tuple[AccuracyResult, ...] | None
    by_gold_slot: tuple[AccuracyResult, ...] | None
    vote: AccuracyResult | None
    pcf: AccuracyResult | None
    n_scored: int
    slot_rates: tuple[float, ...]
    n_picks: int
    first_slot: float
    first_slot_ci: ConfidenceInterval
    last_slot: float
    last_slot_ci: ConfidenceInterval
    flip_rate: float
    n_flip: int
    mean_disagreement: float
    consistency: float
    n_consistency: int
    consistency_strict: float
    parse_failures: int
    failed_items: int
    vs_order: dict[str, PairedComparison | None]
    vote_sets: dict[str, tuple[int, ...]] = field(repr=False, default_factory=dict)
    vote_credits: Credits = field(repr=False, default_factory=dict)
    order_credits: tuple[Credits, ...] = field(repr=False, default=())
    pcf_combined: dict[str, tuple[float, ...]] = field(repr=False, default_factory=dict)



def score_listwise(rec: ListwiseRecording, *, n_resamples: int = 2000,
                   weights: Weights = Weights(), tolerance: float = 0.5) -> ListwiseScore:
    """Score one listwise recording (rules: the module docstring).

    Args:
        rec: from :func:`jurybox.recorded.listwise.read_listwise_jsonl`.
        n_resamples: bootstrap resamples per CI (>= 1).
        weights, tolerance: PCF's C_i weights and winners' tolerance in points (PCF's
            defaults: 0.50/0.25/0.20/0.05 and 0.5).
    """
    k, n = rec.n_orders, rec.n_candidates
    by_order: list[Credits] = [{} for _ in range(k)]
    by_slot: list[list[float]] = [[] for _ in range(n)]
    vote: Credits = {}
    pcf: Credits = {}
    sets: dict[str, tuple[int, ...]] = {}
    combined: dict[str, tuple[float, ...]] = {}
    tally = OrderTally()
    parsed_all = consistent = failures = failed_items = 0
    for item in rec.items:
        picks, gold = item.picks, item.gold
        parsed = [(p, item.orders[j].index(p)) for j, p in enumerate(picks) if p is not None]
        tally.add([p for p, _ in parsed], [s for _, s in parsed], n)
        missing = k - len(parsed)
        failures += missing
        failed_items += missing > 0
        if not missing:
            parsed_all += 1
            consistent += len(set(picks)) == 1
        sets[item.item_id] = top = top_set(picks)
        decided = pcf_consensus(item, weights=weights, tolerance=tolerance)
        if decided is not None:
            combined[item.item_id] = decided[0]
        if not gold:
            continue
        for j, p in enumerate(picks):
            by_order[j][item.item_id] = None if p is None else float(p in gold)
            if len(gold) == 1 and p is not None:
                by_slot[item.orders[j].index(gold[0])].append(float(p in gold))
        vote[item.item_id] = credit(top, gold) if top else None
        if decided is not None:
            pcf[item.item_id] = credit(decided[1], gold)
    diag = tally.result()
    rates = diag.win_rate_by_position.get(n, (math.nan,) * n)
    n_picks = diag.n_runs.get(n, 0)
    n_labelled = sum(bool(i.gold) for i in rec.items)

    def acc(credits: Sequence[float | None]) -> AccuracyResult:
        return accuracy(list(credits), n_resamples=n_resamples)

    tests: dict[str, PairedComparison | None] = {}
    if n_labelled:
        for name, credits in (("vote", vote), ("pcf", pcf)):
            for j in range(k):
                tests[f"{name} vs order {j + 1}"] = paired_or_none(
                    by_order[j], credits, n_resamples=n_resamples)
    return ListwiseScore(
        subset=rec.subset, judge=rec.judge, strategy=rec.strategy, n=rec.n,
        n_labelled=n_labelled, n_orders=k, n_candidates=n,
        no_accuracy=None if n_labelled else UNLABELLED,
        by_order=tuple(acc(list(c.values())) for c in by_order) if n_labelled else None,
        by_gold_slot=tuple(acc(s) for s in by_slot) if n_labelled else None,
        vote=acc(list(vote.values())) if n_labelled else None,
        pcf=acc(list(pcf.values())) if pcf else None, n_scored=len(combined),
        slot_rates=tuple(rates), n_picks=n_picks,
        first_slot=rates[0], first_slot_ci=_wilson(rates[0], n_picks),
        last_slot=rates[-1], last_slot_ci=_wilson(rates[-1], n_picks),
        flip_rate=diag.flip_rate, n_flip=diag.n_items,
        mean_disagreement=diag.mean_disagreement,
        # one order: nothing to be consistent with (NaN, not a vacuous 100%)
        consistency=consistent / parsed_all if parsed_all and rec.n_orders > 1 else math.nan,
        n_consistency=parsed_all,
        consistency_strict=consistent / rec.n if rec.n and rec.n_orders > 1 else math.nan,
        parse_failures=failures, failed_items=failed_items, vs_order=tests,
        vote_sets=sets, vote_credits=vote, order_credits=tuple(by_order),
        pcf_combined=combined)


def _wilson(share: float, n: int) -> ConfidenceInterval:
    return ConfidenceInterval(math.nan, math.nan) if not n else wilson_interval(share, n)


@dataclass(frozen=True)
class ListwiseJury:
    """Several judges of one (subset, strategy) as one jury, on the items all of them judged.

    Attributes:
        subset, strategy: the group's. judges: the judges, in file order.
        n: shared items; n_labelled: those with gold.
        vote: the jury's accuracy (None: no labelled item); judge_vote: each judge's vote
            accuracy on the same items.
        best_judge: the judge of highest vote accuracy (first on a tie; None: unlabelled);
            vs_best: paired sign test of the jury's credits against the best judge's.
        pick_agreement: share of the n_pick_pairs (item, order, judge pair) that both judges
            parsed with the same pick (NaN: none).
        set_agreement: share of the n_set_items items every judge decided (a non-empty vote
            set) where all the vote sets are the same (NaN: none).
        jury_sets: item id -> the jury's top set (() when no judge decided the item).
    """

    subset: str
    strategy: str
    judges: tuple[str, ...]
    n: int
    n_labelled: int
    vote: AccuracyResult | None
    judge_vote: dict[str, AccuracyResult] | None
    best_judge: str | None
    vs_best: PairedComparison | None
    pick_agreement: float
    n_pick_pairs: int
    set_agreement: float
    n_set_items: int
    jury_sets: dict[str, tuple[int, ...]] = field(repr=False, default_factory=dict)


def listwise_jury_groups(recordings: Sequence[ListwiseRecording]
                         ) -> dict[tuple[str, str], list[ListwiseRecording]]:
    """(subset, strategy) -> its recordings, for the groups of two or more judges."""
    groups: dict[tuple[str, str], list[ListwiseRecording]] = {}
    for rec in recordings:
        groups.setdefault((rec.subset, rec.strategy), []).append(rec)
    return {key: recs for key, recs in groups.items() if len(recs) >= 2}


def score_listwise_jury(recordings: Sequence[ListwiseRecording], *,
                        n_resamples: int = 2000) -> ListwiseJury:
    """Score the judges of one (subset, strategy) as a jury (rules: the module docstring).

    Raises:
        ValueError: fewer than two recordings, recordings of different (subset, strategy),
            or no item judged by every judge.
    """
    if len(recordings) < 2 or len({(r.subset, r.strategy) for r in recordings}) != 1:
        raise ValueError("a jury is two or more judges of one (subset, strategy)")
    by_judge = [{i.item_id: i for i in r.items} for r in recordings]
    shared = [i.item_id for i in recordings[0].items if all(i.item_id in b for b in by_judge)]
    if not shared:
        raise ValueError(f"no item of {recordings[0].subset!r} was judged by every judge")
    jury: Credits = {}
    judge_credits: list[Credits] = [{} for _ in recordings]
    jury_sets: dict[str, tuple[int, ...]] = {}
    agree = pairs = same_sets = set_items = 0
    for item_id in shared:
        items = [b[item_id] for b in by_judge]
        sets = [top_set(i.picks) for i in items]
        totals: dict[int, float] = {}
        for t in sets:
            for c in t:
                totals[c] = totals.get(c, 0.0) + 1 / len(t)
        best = max(totals.values(), default=0.0)
        jury_sets[item_id] = tuple(sorted(c for c, v in totals.items()
                                          if math.isclose(v, best)))
        if all(sets):
            set_items += 1
            same_sets += len(set(sets)) == 1
        for a in range(len(items)):
            for b in range(a + 1, len(items)):
                for pa, pb in zip(items[a].picks, items[b].picks):
                    if pa is not None and pb is not None:
                        pairs += 1
                        agree += pa == pb
        gold = items[0].gold
        if gold:
            jury[item_id] = credit(jury_sets[item_id], gold) if jury_sets[item_id] else None
            for j, t in enumerate(sets):
                judge_credits[j][item_id] = credit(t, gold) if t else None
    names = tuple(r.judge for r in recordings)
    vote = judge_vote = best_judge = vs_best = None
    if jury:
        vote = accuracy(list(jury.values()), n_resamples=n_resamples)
        judge_vote = {name: accuracy(list(c.values()), n_resamples=n_resamples)
                      for name, c in zip(names, judge_credits)}
        best_judge = max(names, key=lambda name: _or_minus(judge_vote[name].accuracy))
        vs_best = paired_or_none(judge_credits[names.index(best_judge)], jury,
                                 n_resamples=n_resamples)
    return ListwiseJury(
        subset=recordings[0].subset, strategy=recordings[0].strategy, judges=names,
        n=len(shared), n_labelled=len(jury), vote=vote, judge_vote=judge_vote,
        best_judge=best_judge, vs_best=vs_best,
        pick_agreement=agree / pairs if pairs else math.nan, n_pick_pairs=pairs,
        set_agreement=same_sets / set_items if set_items else math.nan,
        n_set_items=set_items, jury_sets=jury_sets)


def _or_minus(x: float) -> float:
    return -1.0 if math.isnan(x) else x
