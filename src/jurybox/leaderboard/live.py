"""Judge the planned pairs with a real (or simulated) judge, through the judge verb's engine
(cache, resume, retries, batch, pools, executors), and read its decisions as comparisons.

The judge run lives in ``OUT/judge`` (a judge run directory with its own report); a rerun of
the same ranking resumes it and is served from its cache.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..compare.summary import latest_records
from ..judging.call import judge
from ..ranking.comparisons import Comparison, Comparisons, OrderVerdict
from ..ranking.order import order_effects
from ..rundir import iter_records
from ..rundir.layout import ITEMS_FILE
from ..run import RunHooks, RunOptions
from .outputs import SystemOutputs
from .pairing import RankPair

__all__ = ["JUDGE_FOLDER", "judge_pairs", "comparisons_of_run", "judges_order_effects"]

#: The judge run's folder inside the ranking's run directory.
JUDGE_FOLDER = "judge"
#: The share of a verdict that went to response A.
_SHARE = {"A": 1.0, "B": 0.0, "tie": 0.5}


def judge_pairs(pairs: Sequence[RankPair], *, model: str, protocol: str, out: Path,
                options: RunOptions | None = None, hooks: RunHooks | None = None,
                **settings: Any) -> Path:
    """Judge every pair (``protocol``: any pairwise protocol) into ``out/judge``; returns
    that folder. Errors as :func:`jurybox.judge`."""
    folder = out / JUDGE_FOLDER
    judge([p.item for p in pairs], model=model, protocol=protocol, out=folder,
          options=options, hooks=hooks, **settings)
    return folder


def _order_calls(protocol: str, n: int) -> range:
    """The calls of a decision that are its presentation orders: APOC's both-orders check
    (calls 1 and 2; call 0 is its direct verdict, 3 the keyed judge); every call otherwise."""
    return range(1, 3) if protocol == "apoc" and n == 4 else range(n)


def comparisons_of_run(folder: Path, pairs: Iterable[RankPair], outputs: SystemOutputs,
                       only: set[str] | None = None) -> tuple[list[Comparison], int]:
    """The judge run's decisions as comparisons (with lengths, texts and per-order verdicts),
    and how many pairs have no decision (a failure, or not judged yet): never a tie. Pairs of
    identical outputs are ties, with no order verdicts (nothing was shown). ``only``: the
    pairs (item ids) whose decisions are kept (selective judging's accepted ones); the others
    are left out and not counted as failed."""
    pairs = list(pairs)
    by_id = {p.item.item_id: p for p in pairs
             if not p.identical and (only is None or p.item.item_id in only)}
    comparisons: list[Comparison] = [_tie(p, outputs) for p in pairs if p.identical]
    decided: set[str] = set()
    path = folder / ITEMS_FILE
    for record in latest_records(list(iter_records(path))) if path.exists() else ():
        pair = by_id.get(str(record.get("item_id")))
        if pair is None or record.get("failed") or record.get("verdict") not in _SHARE:
            continue
        verdicts = record.get("call_verdicts") or ()
        firsts = record.get("shown_first") or ()
        orders = tuple(
            OrderVerdict(first=pair.a if firsts[k] in (0, "A") else pair.b,  # 0: A shown first
                         outcome=_SHARE[verdicts[k]])
            for k in _order_calls(str(record.get("protocol")), len(verdicts))
            if k < len(firsts) and verdicts[k] in _SHARE)
        text_a = outputs.outputs[pair.prompt][pair.a]
        text_b = outputs.outputs[pair.prompt][pair.b]
        comparisons.append(Comparison(
            prompt=pair.prompt, a=pair.a, b=pair.b, outcome=_SHARE[record["verdict"]],
            length_a=len(text_a), length_b=len(text_b), text_a=text_a, text_b=text_b,
            orders=orders))
        decided.add(pair.item.item_id)
    return comparisons, len(by_id) - len(decided)


def _tie(pair: RankPair, outputs: SystemOutputs) -> Comparison:
    text = outputs.outputs[pair.prompt][pair.a]
    return Comparison(prompt=pair.prompt, a=pair.a, b=pair.b, outcome=0.5,
                      length_a=len(text), length_b=len(text), text_a=text, text_b=text)


def judges_order_effects(folder: Path, pairs: Iterable[RankPair], outputs: SystemOutputs
                         ) -> dict[str, dict[str, Any]]:
    """A jury's ranking: each judge's order effects over every pair it decided, pooled.

    A jury's own decision is a vote over its judges and has no presentation order (its
    comparisons carry no order verdicts), so the order-flip and first-shown rates are each
    judge's, read from its own run (``folder/judges/<name>``, :mod:`jurybox.jury.run`).

    Returns:
        judge name -> ``{"n_orders", "flip_rate", "flip_ci", "n_decided",
        "first_shown_rate", "first_shown_ci"}`` (percent; CIs Wilson, [low, high]); a judge
        without two orders of any pair has ``n_orders`` 0 and no rates.
    """
    pairs = list(pairs)
    found: dict[str, dict[str, Any]] = {}
    judges = folder / "judges"
    for sub in sorted(judges.iterdir()) if judges.is_dir() else ():
        rows, _ = comparisons_of_run(sub, pairs, outputs)
        if not rows:
            continue
        p = order_effects(Comparisons.of(rows)).overall
        found[sub.name] = {
            "n_orders": p.n_orders, "flip_rate": p.flip_rate if p.n_orders else None,
            "flip_ci": [p.flip_ci.low, p.flip_ci.high] if p.n_orders else None,
            "n_decided": p.n_decided,
            "first_shown_rate": p.first_shown_rate if p.n_decided else None,
            "first_shown_ci": ([p.first_shown_ci.low, p.first_shown_ci.high]
                               if p.n_decided else None)}
    return found
