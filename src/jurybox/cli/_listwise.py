"""``jurybox score FILE.jsonl`` on listwise recorded lines (docs/recorded-format.md): the
legend, two tables per subset (accuracy; position), a jury paragraph per (subset, strategy)
of several judges, and summary.json with ``--out``."""

from __future__ import annotations

import math
import textwrap
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from ..errors import ConfigError
from ..terminal import data, safe_text
from ._common import console
from ._fit import print_table
from ._recorded import bounds_cell, cons_caption, p_cell
from ._tables import pct

if TYPE_CHECKING:
    from ..recorded.listwise_scoring import ListwiseJury, ListwiseScore

__all__ = ["print_listwise_file", "listwise_tables", "LISTWISE_LEGEND"]

#: Printed before the tables (one paragraph, wrapped at the console's width).
LISTWISE_LEGEND = (
    "Listwise: % of parsed picks, labelled items only. o1, o2, ...: each order (more than 4: "
    "the lowest and highest, o min/o max). vote: the plurality of picks over orders, a tie "
    "of t candidates credited 1/t when gold is among them (RewardBench 2), 95% bootstrap "
    "CI, p: sign test vote vs o1. pcf: PCF's consensus C_i over the orders with scores. "
    "fail: unparsed picks (never scored). Position, labelled or not: 1st, last: % of picks "
    "shown first / last (unbiased: 100/n), 95% Wilson CI. flip: items whose pick differs "
    "across parsed orders. cons: items with one pick in every order (the --unparsed rule "
    "below; both rules in summary.json). g1st, glast: "
    "accuracy when the one gold was shown first / last. Every slot, all sign tests: "
    "summary.json (--out).")


def _ci(ci: tuple[float, float]) -> str:
    return bounds_cell(*ci)


def _table(columns: list[str], keys: int) -> Table:
    table = Table(box=None, pad_edge=False, padding=(0, 1, 0, 0), header_style="bold")
    for i, col in enumerate(columns):
        # a long judge or strategy name wraps in its cell (the tables keep 80 columns)
        table.add_column(col, justify="left" if i < keys else "right", overflow="fold",
                         max_width=(18 if i == 0 else 12) if i < keys else None)
    return table


def listwise_tables(subset: str, scores: list[ListwiseScore], *,
                    unparsed: str = "excluded") -> tuple[str, list[Table]]:
    """One subset's recordings, one row per (judge, strategy): its title line (printed on
    its own: a table title wraps at the table's width), the accuracy table (left out when no
    item is labelled) and the position table; the strategy column only when some strategy
    is named."""
    first = scores[0]
    k, n = first.n_orders, first.n_candidates
    keyed = any(s.strategy for s in scores)
    keys = ["judge", "strategy"] if keyed else ["judge"]

    def key(s: ListwiseScore) -> list[Text]:
        return [data(s.judge), data(s.strategy or "-")] if keyed else [data(s.judge)]

    out = []
    labelled = [s for s in scores if s.by_order is not None]
    title = (f"{subset}: {max(s.n for s in scores)} items x {n} candidates, {k} orders, " + (
        f"{max(s.n_labelled for s in scores)} labelled" if labelled else "no labels"))
    if labelled:
        orders = [f"o{j + 1}" for j in range(k)] if k <= 4 else ["o min", "o max"]
        acc = _table(keys + orders + ["vote", "95% CI", "p", "pcf", "fail"], len(keys))
        for s in labelled:
            assert s.by_order is not None and s.vote is not None
            per = [a.accuracy for a in s.by_order]
            shown = per if k <= 4 else [min(per, key=_low), max(per, key=_high)]
            acc.add_row(*key(s), *map(pct, shown), pct(s.vote.accuracy),
                        _ci(s.vote.confidence_interval), p_cell(s.vs_order.get("vote vs order 1")),
                        pct(s.pcf.accuracy) if s.pcf else "—", str(s.parse_failures))
        out.append(acc)
    pos = _table(keys + [
        "1st", "95% CI", "last", "95% CI", "flip", "cons"] + (
        ["g1st", "glast"] if labelled else []), len(keys))
    for s in scores:
        slots = s.by_gold_slot
        gold = [pct(slots[0].accuracy), pct(slots[-1].accuracy)] if slots else ["—", "—"]
        pos.add_row(*key(s), pct(s.first_slot), _ci(s.first_slot_ci), pct(s.last_slot),
                    _ci(s.last_slot_ci), pct(s.flip_rate),
                    pct(s.consistency_strict if unparsed == "inconsistent" else s.consistency),
                    *(gold if labelled else []))
    out.append(pos)
    return title, out


def _low(x: float) -> float:
    return math.inf if math.isnan(x) else x


def _high(x: float) -> float:
    return -math.inf if math.isnan(x) else x


def jury_lines(j: ListwiseJury) -> list[str]:
    """A listwise jury in words (unwrapped sentences)."""
    head = f"jury on {j.subset}, {j.strategy or '-'}: {len(j.judges)} judges, {j.n} items"
    lines = []
    if j.vote is not None and j.best_judge is not None and j.judge_vote is not None:
        best = j.judge_vote[j.best_judge]
        lines.append(f"{head}: the plurality of the judges' vote sets {pct(j.vote.accuracy)}% "
                     f"[{_ci(j.vote.confidence_interval) or '—'}], best judge "
                     f"{j.best_judge} {pct(best.accuracy)}%, sign test p = {p_cell(j.vs_best)}.")
    else:
        lines.append(f"{head} (no labelled item: agreement only).")
    lines.append(f"Judges pick the same candidate in {pct(j.pick_agreement)}% of "
                 f"{j.n_pick_pairs} (item, order, judge pair) both parsed, and have the same "
                 f"vote set on {pct(j.set_agreement)}% of {j.n_set_items} items.")
    return lines


def _jsonable(obj: object) -> dict:
    out = asdict(obj)  # type: ignore[call-overload]
    for name in ("vote_credits", "order_credits", "jury_sets"):
        out.pop(name, None)
    return out


def print_listwise_file(target: Path, *, source: str, out: Path | None,
                        filters: dict[str, str | None], refused: dict[str, bool],
                        unparsed: str = "excluded") -> None:
    """Score a listwise recorded file and print it (legend, tables, juries); summary.json
    in ``out`` when given.

    Args:
        filters: ``--subset``/``--judge``/``--strategy`` -> comma-separated values or None.
        refused: option -> whether it was given; options of pairwise recordings only.
        unparsed: how cons counts an item with an unparsed order
            (:data:`~jurybox.cli._recorded.UNPARSED_RULES`).

    Raises:
        ConfigError: a refused option was given, or a filter names nothing in the file.
        DataError: a malformed file (file, line, field).
    """
    from ..recorded.listwise import read_listwise_jsonl
    from ..recorded.listwise_scoring import (listwise_jury_groups, score_listwise,
                                             score_listwise_jury)
    from ..recorded.read import select_recordings
    from ..rundir import write_json_atomic
    from ._outputs import output_folder

    given = [name for name, on in refused.items() if on]
    if given:
        raise ConfigError(f"{', '.join(given)} apply to pairwise recorded judgments; "
                          f"{source} holds listwise lines")
    recordings = read_listwise_jsonl(target)
    for option, attr in (("--subset", "subset"), ("--judge", "judge"),
                         ("--strategy", "strategy")):
        recordings = select_recordings(recordings, option, filters.get(option), attr)
    scores = [score_listwise(r) for r in recordings]
    by_subset: dict[str, list[ListwiseScore]] = {}
    for s in scores:
        by_subset.setdefault(s.subset, []).append(s)
    width = max(40, min(console.width, 80))  # prose at 80 columns, as the tables fit
    console.print(textwrap.fill(safe_text(
        f"{source}: {len(recordings)} listwise recorded (subset, judge, strategy) sets, "
        f"rescored with no model call"), width), markup=False)
    console.print(textwrap.fill(f"{LISTWISE_LEGEND} {cons_caption(unparsed)}", width),
                  markup=False)
    for subset, group in by_subset.items():
        title, tables = listwise_tables(subset, sorted(group, key=lambda s: (s.strategy,
                                                                              s.judge)),
                                        unparsed=unparsed)
        console.print()
        console.print(data(textwrap.fill(title, width), newlines=True))
        for k, table in enumerate(tables):
            if k:
                console.print()
            print_table(table, key_columns=2 if any(s.strategy for s in group) else 1)
    juries = []
    for judges in listwise_jury_groups(recordings).values():
        try:
            juries.append(score_listwise_jury(judges))
        except ValueError:  # no item judged by every judge: no jury
            continue
    for j in juries:
        console.print()
        for line in jury_lines(j):
            console.print(data(textwrap.fill(line, width), newlines=True))
    if out is not None:
        output_folder(out)
        write_json_atomic(out / "summary.json", {
            "source": source, "kind": "listwise", "n_recordings": len(recordings),
            "scores": [_jsonable(s) for s in scores],
            "juries": [_jsonable(j) for j in juries]})
        console.print(safe_text(f"written: {out / 'summary.json'}"), markup=False)
