"""Selective judging of a run's own verdicts (``jurybox score RUN --target-agreement P``): a
judge, bench or rank's judge run, calibrated on a seeded share of its labelled items and
applied to the rest (:mod:`jurybox.stats.selective`; Trust or Escalate, Jung et al., ICLR 2025,
section 3.1).

The confidence of an item's verdict is its order agreement: for PCF, the share of the orders
whose top pick is among the winners; for both orders and APOC, the share of the calls whose
verdict is the decision (:attr:`~jurybox.judging.results.ItemJudgment.agreement_rate`). A
pairwise run asked with log-probabilities (``--logprobs``) has a second signal, the verdict's
token probability
(:func:`~jurybox.parsing.verdict_probability.verdict_token_probability`); each signal is then
calibrated at delta / 2 (a union bound over the two) and the one accepting more calibration
items is used, and named. A verdict agrees with the label when it earns full
credit (a listwise pick that is gold, or the labelled response; a tie earns half and does
not). An item that failed has no verdict: it is
never accepted, and counts against coverage. Items without a label are judged by the rule
(accepted or abstained) but never calibrated on or scored. A protocol with a single call per
item (direct, one order) has one confidence for every verdict: it is certified as a whole or not
at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import DataError
from ..stats.selective import (SelectiveResult, choose_signal, selective_outcome,
                               split_items)
from .results import ItemJudgment, judgment_of

__all__ = ["ORDER_SIGNAL", "PROBABILITY_SIGNAL", "accepted_items", "run_judgments",
           "selective_judgments", "selective_run"]

#: The name of a run's order-agreement confidence signal.
ORDER_SIGNAL = "order agreement"
#: The name of a run's token-probability confidence signal (runs asked with ``--logprobs``).
PROBABILITY_SIGNAL = "token probability"


def run_judgments(run_dir: str | Path) -> list[ItemJudgment]:
    """The (item, protocol) judgments of a run directory's items.jsonl (listwise and
    pairwise; rubric units are left out).

    Raises:
        DataError: no items.jsonl in ``run_dir`` (not a run of judge, bench or rank).
    """
    from ..rundir.files import Records
    from ..rundir.layout import ITEMS_FILE

    path = Path(run_dir) / ITEMS_FILE
    if not path.is_file():
        raise DataError(path, "not found: selective judging reads a judge or bench run's "
                        "items.jsonl")
    return [judgment_of(r) for r in Records(path)
            if "top_picks" in r or "call_verdicts" in r]


def _labelled(j: ItemJudgment) -> bool:
    return bool(j.gold) if j.task == "listwise" else j.gold in ("A>B", "B>A", "A=B")


def selective_judgments(judgments: Sequence[ItemJudgment], *, dataset: str, target: float,
                        delta: float = 0.1, calibration_share: float = 0.5,
                        seed: int = 0) -> list[SelectiveResult]:
    """One calibrated rule per protocol of ``judgments`` (module docstring).

    Args:
        judgments: a run's judgments (:func:`run_judgments`).
        dataset: the run's data, named in the results' ``subset``.
        target: the agreement to guarantee, in (0, 1).
        delta: the probability that the guarantee fails, in (0, 1).
        calibration_share: the share of each protocol's labelled items calibrated on.
        seed: the split's seed.

    Returns:
        Per protocol (``strategy``), in first-seen order, the rule on the chosen signal
        (:data:`ORDER_SIGNAL`, or :data:`PROBABILITY_SIGNAL` when the run has token
        probabilities and it accepts more) and its outcome on the labelled items not
        calibrated on.

    Raises:
        ValueError: a protocol with fewer than 2 labelled items; as
            :func:`~jurybox.stats.selective.calibrate_threshold`.
    """
    by_protocol: dict[str, list[ItemJudgment]] = {}
    for j in judgments:
        by_protocol.setdefault(j.protocol, []).append(j)
    results = []
    for protocol, group in by_protocol.items():
        labelled = [j for j in group if _labelled(j)]
        others = [j for j in group if not _labelled(j)]
        if len(labelled) < 2:
            raise ValueError(f"protocol {protocol}: {len(labelled)} labelled item(s); "
                             f"selective judging calibrates on labelled items (gold)")
        agree = np.array([j.credit == 1.0 for j in labelled])
        signals = {name: (np.array([_confidence(j, name) for j in labelled]), agree)
                   for name in _signals(group)}
        cal, test = split_items(len(labelled), calibration_share, seed)
        rules, best = choose_signal(signals, cal, target=target, delta=delta)
        rule = rules[best]
        outcome = selective_outcome(rule, signals[best][0][test], agree[test])
        other_conf = [c for c in (_confidence(j, best) for j in others) if not math.isnan(c)]
        accepted = sum(rule.accepts(c) for c in other_conf)
        calls = max((j.n_calls for j in group), default=0)
        results.append(SelectiveResult(
            dataset, protocol, target, delta, best if rule.certified else None, rules,
            len(cal), outcome, calls if rule.certified else 0, (accepted, len(others))))
    return results


def _signals(group: Sequence[ItemJudgment]) -> list[str]:
    """The signals of a protocol's judgments: order agreement, and the token probability
    when any of them has one."""
    has_probability = any(j.token_probability is not None for j in group)
    return [ORDER_SIGNAL, *([PROBABILITY_SIGNAL] if has_probability else [])]


def _confidence(j: ItemJudgment, signal: str) -> float:
    """``j``'s confidence on ``signal``; NaN when it has none (failed: never accepted)."""
    value = j.agreement_rate if signal == ORDER_SIGNAL else j.token_probability
    return math.nan if j.failed or value is None else value


def accepted_items(result: SelectiveResult, judgments: Sequence[ItemJudgment]) -> set[str]:
    """The item ids of ``judgments`` that ``result``'s rule accepts (none when it certified
    nothing; a failed item never)."""
    if result.signal is None:
        return set()
    rule = result.rules[result.signal]
    return {j.item_id for j in judgments if rule.accepts(_confidence(j, result.signal))}


def selective_run(run_dir: str | Path, *, target: float, delta: float = 0.1,
                  calibration_share: float = 0.5, seed: int = 0) -> list[SelectiveResult]:
    """:func:`selective_judgments` on a run directory's judgments.

    Raises:
        DataError: as :func:`run_judgments`. ValueError: as :func:`selective_judgments`.
    """
    from ..rundir.files import read_manifest
    from ..rundir.layout import MANIFEST_FILE

    manifest = read_manifest(Path(run_dir) / MANIFEST_FILE) or {}
    named = manifest.get("dataset")
    dataset = str(named.get("name")) if isinstance(named, dict) and named.get("name") \
        else Path(run_dir).name
    return selective_judgments(run_judgments(run_dir), dataset=dataset, target=target,
                               delta=delta, calibration_share=calibration_share, seed=seed)
