"""Confidence signals of recorded judges, for selective judging (:mod:`.selective`).

For one (subset, strategy) judged by one or more judges in several presentation orders, each
signal gives per item a verdict (in original-response terms: ``"A"``, ``"B"``, ``"tie"``, or
None when there is none), whether it agrees with the label, and a confidence in [0, 1]:

- ``order:<judge>``: the judge's both-orders net decision; its confidence, the share of the
  judge's order verdicts that name it (both orders agree: 1; one order for it, the other a
  tie or unparsed: 0.5; the orders contradict each other, a net tie: 0). Trust or Escalate's
  "simulated annotators" use several prompts the same way (Jung et al. 2025, section 3.3);
  here the orders are the annotators.
- ``jury`` (two or more judges): the weighted plurality of every judge's order verdicts; its
  confidence, that option's share of the weight of all votes cast (an unparsed order casts
  none). Two options sharing the largest weight give the verdict ``"tie"`` at confidence 0.
- ``jury:<judge>`` (two or more judges): the judge's net decision, with the jury's weighted
  share of votes naming it as its confidence: one judge's verdict backed by the others.
- ``probability:<judge>`` (a judge recorded with ``probabilities``): the judge's net decision,
  with its token probability as the confidence: the mean over the orders with a verdict of
  the probability each gave it (:func:`~jurybox.parsing.verdict_probability.
  verdict_token_probability`; a tie verdict gives 0.5). NaN, so never accepted and left out
  of calibration, where the decision is a tie or an order's A or B verdict has no
  probability.

Built when named (:func:`named_signal`; not among a table's signals, so ``auto`` does not
split delta over them):

- ``lex:<judge>`` (two or more judges): lexicographic, the judge's order agreement first and
  the jury second. Where every order of the judge names one option, that verdict, ranked by
  the jury's weighted share for it, at ``(1 + share) / 2`` (in (1/2, 1]); elsewhere (its
  orders contradict each other, or one is unparsed) the jury's plurality, ranked below, at
  ``share / 2`` (a jury tie: ``"tie"`` at 0). Above 1/2 it orders items as ``jury:<judge>``
  does; below, where ``jury:<judge>`` has no verdict to accept, the jury still has one.
- a jury of some of the judges, ``<a>+<b>`` (a cascade stage: :func:`jury_signal`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..parsing.verdict_probability import verdict_token_probability
from .model import Recording, Verdict, shared_items
from .scoring import net_decision

__all__ = ["Signal", "SignalTable", "jury_signal", "lex_signal", "named_signal",
           "order_signal", "probability_signal", "signal_table"]


@dataclass(frozen=True)
class Signal:
    """One confidence signal over a group's items.

    Attributes:
        name: e.g. ``"order:GPT-4"``, ``"jury"``, ``"jury:GPT-4"``, ``"jury:ChatGPT+PaLM2"``.
        judges: the judges whose verdicts it reads (each costs its orders' calls an item).
        verdicts: per item, the verdict, or None (no verdict: never accepted).
        confidence: per item, in [0, 1]; NaN where ``verdicts`` is None. Shape (n,).
        agree: per item, verdict == label (False where there is no verdict). Shape (n,).
    """

    name: str
    judges: tuple[str, ...]
    verdicts: tuple[Verdict | None, ...]
    confidence: np.ndarray
    agree: np.ndarray


@dataclass(frozen=True)
class SignalTable:
    """The items every judge of a (subset, strategy) judged, and their signals.

    Attributes:
        subset, strategy: the group. judges: its judges, sorted.
        item_ids: the shared items, in the first judge's file order. labels: theirs.
        orders: recorded orders a judge's item (the calls one judge makes an item).
        verdicts: judge -> per item its order verdicts.
        signals: name -> :class:`Signal`, in the order described in the module docstring.
        weights: judge -> weight of its jury signals (judges not named weigh 1).
    """

    subset: str
    strategy: str
    judges: tuple[str, ...]
    item_ids: tuple[str, ...]
    labels: tuple[str, ...]
    orders: int
    verdicts: Mapping[str, tuple[tuple[Verdict | None, ...], ...]]
    signals: Mapping[str, Signal]
    weights: Mapping[str, float] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Items."""
        return len(self.item_ids)


def _signal(name: str, judges: tuple[str, ...], labels: Sequence[str],
            decided: Sequence[tuple[Verdict | None, float]]) -> Signal:
    verdicts = tuple(v for v, _ in decided)
    conf = np.array([np.nan if v is None else c for v, c in decided], dtype=float)
    agree = np.array([v is not None and v == label for v, label in zip(verdicts, labels)])
    return Signal(name, judges, verdicts, conf, agree)


def order_signal(judge: str, verdicts: Sequence[tuple[Verdict | None, ...]],
                 labels: Sequence[str]) -> Signal:
    """``order:<judge>``: the net decision and the share of orders naming it (per item)."""
    decided = []
    for v in verdicts:
        net = net_decision(tuple(v))
        decided.append((net, sum(x == net for x in v) / len(v) if net is not None else 0.0))
    return _signal(f"order:{judge}", (judge,), labels, decided)


def probability_signal(judge: str, verdicts: Sequence[tuple[Verdict | None, ...]],
                       probabilities: Sequence[tuple[float | None, ...]],
                       labels: Sequence[str]) -> Signal:
    """``probability:<judge>``: the net decision and its token probability (per item; an
    item's ``probabilities``, one per order, P(original A better) or None)."""
    decided: list[tuple[Verdict | None, float]] = []
    for v, p in zip(verdicts, probabilities, strict=True):
        net = net_decision(tuple(v))
        given = verdict_token_probability(net, list(v), list(p)) if p else None
        decided.append((net, np.nan if given is None else given))
    return _signal(f"probability:{judge}", (judge,), labels, decided)


def _votes(judges: Sequence[str], table: Mapping[str, Sequence[tuple[Verdict | None, ...]]],
           weights: Mapping[str, float], i: int) -> dict[Verdict, float]:
    totals: dict[Verdict, float] = {}
    for j in judges:
        for v in table[j][i]:
            if v is not None:
                totals[v] = totals.get(v, 0.0) + weights.get(j, 1.0)
    return totals


def jury_signal(judges: Sequence[str], verdicts: Mapping[str, Sequence[tuple[Verdict | None,
                                                                             ...]]],
                labels: Sequence[str], *, weights: Mapping[str, float] | None = None,
                backing: str | None = None, name: str | None = None) -> Signal:
    """A jury's signal over ``judges``: its weighted plurality of order verdicts and that
    option's weight share; with ``backing``, that judge's net decision and the jury's share
    for it instead.

    Raises:
        ValueError: a weight that is negative or not finite.
    """
    w = dict(weights or {})
    if any(not np.isfinite(x) or x < 0 for x in w.values()):
        raise ValueError(f"jury weights must be finite and >= 0, got {w}")
    w = {j: w.get(j, 1.0) for j in judges}  # judges not named weigh 1
    top = max(w.values(), default=0.0)
    if top > 1:  # only ratios matter: scaled so that vote totals stay finite
        w = {j: x / top for j, x in w.items()}
    decided: list[tuple[Verdict | None, float]] = []
    for i in range(len(labels)):
        totals = _votes(judges, verdicts, w, i)
        total = sum(totals.values())
        if backing is not None:
            net = net_decision(tuple(verdicts[backing][i]))
            decided.append((net, totals.get(net, 0.0) / total if net and total else 0.0))
            continue
        if not total:
            decided.append((None, 0.0))
            continue
        top = max(totals.values())
        best = [k for k, x in totals.items() if x == top]
        decided.append((best[0], top / total) if len(best) == 1 else ("tie", 0.0))
    default = f"jury:{backing}" if backing else "jury"
    return _signal(name or default, tuple(judges), labels, decided)


def lex_signal(judge: str, judges: Sequence[str],
               verdicts: Mapping[str, Sequence[tuple[Verdict | None, ...]]],
               labels: Sequence[str], *, weights: Mapping[str, float] | None = None) -> Signal:
    """``lex:<judge>``: the judge's verdict where all its orders name it, ranked by the jury's
    share for it, above the jury's plurality elsewhere (module docstring).

    Raises:
        ValueError: as :func:`jury_signal`.
    """
    backed = jury_signal(judges, verdicts, labels, weights=weights, backing=judge)
    plural = jury_signal(judges, verdicts, labels, weights=weights)
    decided: list[tuple[Verdict | None, float]] = []
    for i, orders in enumerate(verdicts[judge]):
        if orders[0] is not None and all(v == orders[0] for v in orders):
            decided.append((backed.verdicts[i], (1 + float(backed.confidence[i])) / 2))
        elif plural.verdicts[i] is None:
            decided.append((None, 0.0))
        else:
            decided.append((plural.verdicts[i], float(plural.confidence[i]) / 2))
    return _signal(f"lex:{judge}", tuple(judges), labels, decided)


def named_signal(table: SignalTable, name: str) -> Signal | None:
    """A signal of ``table`` by name: one of its ``signals``, or one built when named
    (``lex:<judge>``, a jury ``<a>+<b>`` of two or more of its judges); None: no such signal.

    Raises:
        ValueError: as :func:`jury_signal`.
    """
    if name in table.signals:
        return table.signals[name]
    kind, _, judge = name.partition(":")
    if kind == "lex" and judge in table.judges and len(table.judges) >= 2:
        return lex_signal(judge, table.judges, table.verdicts, table.labels,
                          weights=table.weights)
    judges = list(dict.fromkeys(j.strip() for j in name.split("+")))  # each judge once
    if len(judges) >= 2 and all(j in table.judges for j in judges):
        return jury_signal(judges, table.verdicts, table.labels, weights=table.weights,
                           name=f"jury:{name}")
    return None


def signal_table(recordings: Sequence[Recording], *,
                 weights: Mapping[str, float] | None = None) -> SignalTable:
    """The signals of one (subset, strategy): every judge's ``order:``, with two or more
    judges ``jury`` and each ``jury:<judge>``, and ``probability:<judge>`` for each judge
    recorded with token probabilities, on the items every judge judged.

    Raises:
        ValueError: no recording, mixed subsets or strategies, a judge twice, orders of
            different counts, no shared item, an unlabelled item.
        DataError: an item labelled differently in two judges' files.
    """
    recs = sorted(recordings, key=lambda r: r.judge)
    if not recs:
        raise ValueError("no recording to take signals from")
    names = tuple(r.judge for r in recs)
    if len(set(names)) != len(names) or len({(r.subset, r.strategy) for r in recs}) != 1:
        raise ValueError("a signal table's judges must differ and share subset and strategy")
    if len({len(r.orders) for r in recs}) != 1:
        raise ValueError("every judge of a signal table must be recorded in as many orders")
    by_judge, shared, labels = shared_items(recs, why="selective judging calibrates on labels")
    gold = tuple(labels[i] for i in shared)
    verdicts = {j: tuple(b[i].verdicts for i in shared) for j, b in zip(names, by_judge)}
    signals = {f"order:{j}": order_signal(j, verdicts[j], gold) for j in names}
    if len(names) >= 2:
        signals["jury"] = jury_signal(names, verdicts, gold, weights=weights)
        for j in names:
            signals[f"jury:{j}"] = jury_signal(names, verdicts, gold, weights=weights,
                                               backing=j)
    for j, items in zip(names, by_judge):
        probabilities = tuple(items[i].probabilities for i in shared)
        if any(any(p is not None for p in ps) for ps in probabilities):
            signals[f"probability:{j}"] = probability_signal(j, verdicts[j], probabilities,
                                                             gold)
    return SignalTable(recs[0].subset, recs[0].strategy, names, shared, gold,
                       len(recs[0].orders), verdicts, signals, dict(weights or {}))
