"""The jury's items.jsonl: per (item, protocol), the jury's decision and each judge's.

Built from the judges' own items.jsonl (each item's last record), with the rules of
:mod:`jurybox.jury.rules`. A judge without a decision on an item (every needed call failed)
has no vote on it; a judge of weight 0 has none either (it is reported beside the jury, but
never moves it). One record::

    {"schema": 1, "item_id": "q1", "protocol": "both-orders", "task": "pairwise",
     "label": "A>B",                      # pairwise ("" unlabelled); listwise: "gold": [0]
     "verdict": "A", "votes": {"A": 2.0, "B": 1.0, "tie": 0.0},   # pairwise
     "combined": [61.2, 40.1], "winners": [0],                    # listwise
     "voters": 3, "credit": 1.0, "failed": false,
     "lengths": [812, 640],               # each candidate's characters (length bias)
     "judges": {"gpt": {"weight": 2.0, "verdict": "A", "credit": 1.0, "failed": false,
                        "flipped": false, "first_shown": ..., "n_calls": 2, "n_ok": 2,
                        "failures": []}, ...}}
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..compare.summary import latest_records
from ..judging.results import judgment_of
from ..protocols.aggregate import credit as listwise_credit
from ..rundir import Records, unit_of
from .rules import jury_listwise, jury_pairwise

if TYPE_CHECKING:
    from .panel import Jury
    from .run import JudgePlan

__all__ = ["ITEMS_SCHEMA", "combine", "judge_view", "write_items"]

ITEMS_SCHEMA = 1


def judge_view(record: dict[str, Any] | None, weight: float) -> dict[str, Any]:
    """One judge's decision on an item as the jury's record shows it (None: no record,
    which counts as failed)."""
    if record is None:
        return {"weight": weight, "failed": True, "credit": None, "missing": True}
    j = judgment_of(record)
    view: dict[str, Any] = {"weight": weight, "failed": j.failed, "credit": j.credit,
                            "flipped": j.flipped, "n_calls": j.n_calls, "n_ok": j.n_ok,
                            "failures": list(j.failures)}
    if j.task == "pairwise":
        view["verdict"] = j.verdict
        view["call_verdicts"] = list(record.get("call_verdicts", ()))
        view["shown_verdicts"] = list(record.get("shown_verdicts", ()))
        view["consistent"] = record.get("consistent")
    else:
        view["winners"] = list(j.winners)
        view["combined"] = None if j.failed or j.combined is None else list(j.combined)
        view["top_picks"] = list(record.get("top_picks", ()))
        view["top_positions"] = list(record.get("top_positions", ()))
        view["n_candidates"] = record.get("n_candidates")
    return view


def _pair_credit(verdict: str | None, label: str) -> float | None:
    if verdict is None or label not in ("A>B", "B>A"):
        return None
    return 0.5 if verdict == "tie" else float(verdict == label[0])


def combine(plans: Sequence[JudgePlan], jury: Jury, *, tolerance: float) -> list[dict[str, Any]]:
    """The jury's records, in the items' order, protocol by protocol (see the module
    docstring)."""
    prepared = plans[0].prepared
    task = prepared.dataset.task
    protocols = list(prepared.config.protocols or ())
    weights = jury.weights
    by_judge: list[dict[tuple[str, str], dict[str, Any]]] = []
    for plan in plans:
        path = plan.out / "items.jsonl"
        by_judge.append({(unit_of(r), r["protocol"]): r
                         for r in latest_records(Records(path))} if path.exists() else {})
    out = []
    for item in prepared.selection:
        for protocol in protocols:
            key = (item.item_id, protocol)
            views = {plan.juror.label: judge_view(records.get(key), w)
                     for plan, records, w in zip(plans, by_judge, weights)}
            out.append(_jury_record(item, protocol, task, views, weights, tolerance))
    return out


def _jury_record(item: Any, protocol: str, task: str, views: dict[str, dict[str, Any]],
                 weights: list[float], tolerance: float) -> dict[str, Any]:
    record: dict[str, Any] = {"schema": ITEMS_SCHEMA, "item_id": item.item_id,
                              "protocol": protocol, "task": task,
                              "lengths": list(item.lengths)}
    if task == "pairwise":
        label = getattr(item, "label", "") or ""
        decisions = [None if v["failed"] or not w else v["verdict"]
                     for v, w in zip(views.values(), weights)]
        vote = jury_pairwise(decisions, weights)
        record.update(label=label, verdict=vote.decision, votes=vote.weights,
                      voters=vote.voters, credit=_pair_credit(vote.decision, label),
                      failed=vote.decision is None)
    else:
        gold = sorted(getattr(item, "gold", ()) or ())
        scores = [None if v["failed"] else v["combined"] for v in views.values()]
        pooled = jury_listwise(scores, weights, tolerance=tolerance)
        voters = sum(s is not None and w > 0 for s, w in zip(scores, weights))
        combined, winners = (None, []) if pooled is None else (
            [round(c, 4) for c in pooled[0]], list(pooled[1]))
        record.update(gold=gold, combined=combined, winners=winners, voters=voters,
                      credit=listwise_credit(winners, gold) if winners and gold else None,
                      failed=pooled is None)
    record["judges"] = views
    return record


def write_items(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Write the jury's items.jsonl whole, via a temp file and rename (never half a file).

    Raises:
        OSError: it cannot be written.
    """
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")
    os.replace(tmp, path)
