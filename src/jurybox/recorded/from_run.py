"""A run's verdicts as recorded judgments (the generic recorded format,
docs/recorded-format.md), so anyone can rescore them with ``jurybox score FILE`` and no model
call: ``jurybox export RUN --format recorded``.

- **pcf** (listwise, every planned order asked: not ``--adaptive``): one listwise line per
  item: ``orders`` the permutations shown (slot -> original index, from calls.jsonl),
  ``picks`` each order's top pick (null where the order failed), ``label`` the gold index
  (a list for several, null for none), ``candidates`` their number.
- **both-orders** (pairwise): one pairwise line per pair, the verdicts placed in the orders
  ``["AB", "BA"]`` (A shown first, then B), ``label`` ``"A"``, ``"B"``, ``"tie"`` or null;
  a run asked with ``--logprobs`` adds each order's token probability (``probabilities``).

The judge is named by the run's model spec (``sim``, ``openai/gpt-4o``; the local judge with its
GGUF file, ``local:SmolLM2-135M-Instruct.Q4_1``), the subset
by its dataset (with the number of candidates when its items differ in it), the strategy by
the protocol. Other protocols (one order, keyed, APOC, direct)
have no fixed set of orders to record and are left out, and said so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError

__all__ = ["RecordedExport", "recorded_lines"]

_PAIRWISE_LABELS = {"A>B": "A", "B>A": "B", "A=B": "tie"}


@dataclass(frozen=True)
class RecordedExport:
    """What :func:`recorded_lines` made of a run.

    Attributes:
        lines: the recorded lines (dicts, in items.jsonl order).
        left_out: protocol -> items left out (a protocol without fixed orders, or a PCF
            item asked in fewer orders than planned).
    """

    lines: list[dict[str, Any]]
    left_out: dict[str, int]


def _orders_by_item(calls: Iterable[dict]) -> dict[tuple[str, str], dict[int, tuple]]:
    """(item, protocol) -> permutation index -> (the order shown, its final outcome)."""
    out: dict[tuple[str, str], dict[int, tuple]] = {}
    for c in calls:
        meta = c.get("meta") or {}
        for name in meta.get("calls") or ():
            protocol, _, perm = str(name).partition("/perm")
            if not perm.isdigit() or meta.get("order") is None:
                continue
            slot = out.setdefault((str(meta.get("item_id")), protocol), {})
            previous = slot.get(int(perm))
            if c.get("outcome") is not None or previous is None:
                slot[int(perm)] = (tuple(meta["order"]), c.get("outcome"))
    return out


def _listwise_line(record: dict, perms: dict[int, tuple], judge: str,
                   subset: str) -> dict[str, Any] | None:
    k = record.get("k")
    if k is None or sorted(perms) != list(range(k)) or len(perms) != k:
        return None  # asked in fewer orders than planned (adaptive): no fixed count
    picks, successful = [], iter(record.get("top_picks") or ())
    for index in range(k):
        ok = perms[index][1] == "ok"
        picks.append(next(successful, None) if ok else None)
    gold = list(record.get("gold") or ())
    return {"id": record["item_id"], "subset": subset, "strategy": record["protocol"],
            "label": gold[0] if len(gold) == 1 else gold or None,
            "candidates": record["n_candidates"],
            "orders": [list(perms[i][0]) for i in range(k)],
            "judges": {judge: {"picks": picks}}}


def _pairwise_line(record: dict, judge: str, subset: str) -> dict[str, Any] | None:
    ids = record.get("call_ids") or ()
    by_order = dict(zip(ids, record.get("call_verdicts") or ()))
    if set(by_order) != {"AB", "BA"}:
        return None
    verdicts: Any = [by_order["AB"], by_order["BA"]]
    probabilities = dict(zip(ids, record.get("call_probabilities") or ()))
    if any(p is not None for p in probabilities.values()):  # asked with --logprobs
        verdicts = {"verdicts": verdicts,
                    "probabilities": [probabilities.get("AB"), probabilities.get("BA")]}
    return {"id": record["item_id"], "subset": subset, "strategy": record["protocol"],
            "label": _PAIRWISE_LABELS.get(record.get("label") or ""),
            "orders": ["AB", "BA"], "judges": {judge: verdicts}}


def _split_by_size(lines: list[dict[str, Any]]) -> None:
    """A subset whose listwise items have different numbers of candidates (and so of orders:
    n! caps them) becomes one subset per number, ``truthfulqa (3 candidates)``: the format
    holds one shape per (subset, strategy)."""
    sizes: dict[tuple[str, str], set[int]] = {}
    for line in lines:
        if "candidates" in line:
            sizes.setdefault((line["subset"], line["strategy"]), set()).add(line["candidates"])
    for line in lines:
        if "candidates" in line and len(sizes[(line["subset"], line["strategy"])]) > 1:
            line["subset"] = f"{line['subset']} ({line['candidates']} candidates)"


def _judge_name(model: dict[str, Any]) -> str:
    """The judge's name in the lines: its model spec, with the GGUF file for the local judge
    (``local:SmolLM2-135M-Instruct.Q4_1``), else its label."""
    spec = str(model.get("spec") or model.get("label") or "judge")
    gguf = (model.get("endpoint") or {}).get("gguf")
    return f"{spec}:{str(gguf).removesuffix('.gguf')}" if spec == "local" and gguf else spec


def recorded_lines(run_dir: str | Path) -> RecordedExport:
    """A run directory's PCF and both-orders verdicts as generic recorded lines (module
    docstring).

    Raises:
        DataError: no run.json, items.jsonl or calls.jsonl in ``run_dir``; no item of a
            protocol that can be recorded.
    """
    from ..rundir.files import Records, read_manifest
    from ..rundir.layout import CALLS_FILE, ITEMS_FILE, MANIFEST_FILE

    run = Path(run_dir)
    manifest = read_manifest(run / MANIFEST_FILE)
    if manifest is None or not (run / ITEMS_FILE).is_file() or not (run / CALLS_FILE).is_file():
        raise DataError(run, "not a judge or bench run directory (run.json, items.jsonl and "
                        "calls.jsonl): nothing to record")
    judge = _judge_name(manifest.get("model") or {})
    dataset = manifest.get("dataset") or {}
    subset = str(dataset.get("name") or run.name)
    perms = _orders_by_item(Records(run / CALLS_FILE))
    lines: list[dict[str, Any]] = []
    left_out: dict[str, int] = {}
    for record in Records(run / ITEMS_FILE):
        protocol = record.get("protocol")
        line = None
        if protocol == "pcf" and "top_picks" in record:
            line = _listwise_line(record, perms.get((record["item_id"], "pcf"), {}), judge,
                                  subset)
        elif protocol == "both-orders":
            line = _pairwise_line(record, judge, subset)
        if line is None:
            left_out[str(protocol)] = left_out.get(str(protocol), 0) + 1
        else:
            lines.append(line)
    _split_by_size(lines)
    if not lines:
        raise DataError(run, f"no item of a protocol that can be recorded (pcf without "
                        f"--adaptive, both-orders); this run has "
                        f"{', '.join(sorted(left_out)) or 'none'}")
    return RecordedExport(lines, left_out)
