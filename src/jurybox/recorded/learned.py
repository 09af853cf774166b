"""Jury rules compared out of sample on recorded judgments: unweighted, weights learned from
labels (log-odds of accuracy), weights learned without labels (one-coin Dawid-Skene), each
judge alone, and a strict majority that abstains (:mod:`jurybox.stats.jury_weights`).

On a seeded split of a group's items, the labelled weights and the judge chosen as best are
learned on the calibration share only; Dawid-Skene sees every item's votes but no label; every
rule is scored on the test share. A decision is each judge's both-orders net decision; a tie or
no decision on an A/B-labelled item is wrong, and an item no judge decided is left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..jury.rules import jury_pairwise
from ..stats.jury_weights import effective_judges, log_odds_weights, one_coin_dawid_skene
from ..stats.selective import split_items
from .confidence import SignalTable
from .scoring import net_decision

__all__ = ["JuryRules", "jury_rules_split"]


@dataclass(frozen=True)
class JuryRules:
    """Jury rules on one split of a group.

    Attributes:
        subset, strategy, judges: the group. n_train, n_test: the split's sizes.
        weights: rule -> one weight per judge (``"learned"``: log-odds of calibration
            accuracy; ``"dawid-skene"``: from the fit without labels).
        accuracy: rule -> accuracy on the test items, in [0, 1] (NaN: nothing decided):
            ``"unweighted"``, ``"learned"``, ``"dawid-skene"``, ``"best judge"`` (the judge
            most accurate on the calibration items, named in ``best_judge``), and
            ``"judge:<name>"`` for each judge.
        best_judge: the judge chosen on the calibration items.
        strict: (coverage, accuracy) on the test items of the unweighted strict majority,
            which decides only when more than half of the voting judges agree and abstains
            otherwise (accuracy NaN when it decided nothing).
        effective_judges: how many independent judges the jury is worth, from the
            correlation of the judges' errors on the calibration items.
    """

    subset: str
    strategy: str
    judges: tuple[str, ...]
    n_train: int
    n_test: int
    weights: dict[str, tuple[float, ...]]
    accuracy: dict[str, float]
    best_judge: str
    strict: tuple[float, float]
    effective_judges: float


def _accuracy(decisions: list[str | None], labels: list[str]) -> float:
    scored = [d == label for d, label in zip(decisions, labels) if d is not None]
    return sum(scored) / len(scored) if scored else math.nan


def jury_rules_split(table: SignalTable, *, calibration_share: float = 0.5,
                     seed: int = 0) -> JuryRules:
    """Learn each rule on a seeded calibration share of ``table``'s items and score it on the
    rest (module docstring).

    Raises:
        ValueError: fewer than two judges; as :func:`~jurybox.stats.selective.split_items`.
    """
    judges = table.judges
    if len(judges) < 2:
        raise ValueError(f"{table.subset} {table.strategy}: a jury needs two or more judges")
    decisions = np.array([[net_decision(tuple(table.verdicts[j][i])) for j in judges]
                          for i in range(table.n)], dtype=object)
    labels = np.array(table.labels, dtype=object)
    correct = np.where(decisions == None, np.nan,  # noqa: E711 (elementwise)
                       (decisions == labels[:, None]).astype(float))
    votes = np.where(decisions == "A", 1.0, np.where(decisions == "B", 0.0, np.nan))
    train, test = split_items(table.n, calibration_share, seed)
    learned = log_odds_weights(correct[train])
    fit = one_coin_dawid_skene(votes)
    rules: dict[str, tuple[float, ...]] = {"unweighted": (1.0,) * len(judges),
                                           "learned": tuple(float(w) for w in learned),
                                           "dawid-skene": tuple(float(w) for w in fit.weights)}
    gold = [str(x) for x in labels[test]]
    accuracy: dict[str, float] = {}
    for name, w in rules.items():
        if not any(w):
            w = (1.0,) * len(judges)  # no judge learned above chance: fall back, unweighted
        accuracy[name] = _accuracy([jury_pairwise(list(decisions[i]), w).decision
                                    for i in test], gold)
    train_acc = np.nanmean(correct[train], axis=0)
    best = judges[int(np.nanargmax(np.where(np.isnan(train_acc), -1, train_acc)))]
    for k, j in enumerate(judges):
        accuracy[f"judge:{j}"] = _accuracy([decisions[i][k] for i in test], gold)
    accuracy["best judge"] = accuracy[f"judge:{best}"]
    strict: list[str | None] = []
    for i in test:
        vote = jury_pairwise(list(decisions[i]), (1.0,) * len(judges))
        top = vote.weights.get(vote.decision or "", 0.0)
        strict.append(vote.decision if vote.voters and top > vote.voters / 2 else None)
    decided = sum(d is not None for d in strict)
    return JuryRules(table.subset, table.strategy, judges, len(train), len(test), rules,
                     accuracy, best, (decided / len(test), _accuracy(strict, gold)),
                     effective_judges(1 - correct[train]))
