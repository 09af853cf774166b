"""The item browser's fixed/regressed filters count exactly what the summary table's ``+/-``
column counts, on hand-written runs whose counts are checked by hand (listwise direct vs
pcf; pairwise, both-orders and apoc against pairwise)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from jurybox.compare.summary import summarize
from jurybox.reports import render_report


def _write_run(folder: Path, records: list[dict], protocols: list[str], task: str) -> Path:
    """A run directory holding ``records`` and the summary the bench would write of them."""
    folder.mkdir()
    summary = summarize(records, protocols, task=task)
    (folder / "run.json").write_text(json.dumps({
        "schema": 1, "kind": "bench", "seed": 0, "status": "complete",
        "dataset": {"name": "hand"}, "model": {"spec": "sim", "simulated": True},
        "protocols": [{"name": p, "params": {}} for p in protocols]}))
    (folder / "items.jsonl").write_text("".join(json.dumps({"schema": 1, **r}) + "\n"
                                               for r in records))
    (folder / "summary.json").write_text(json.dumps({"schema": 1, **summary.to_json()}))
    return folder


def _page_counts(page: str) -> dict[str, int]:
    """Each filter's count as the page shows it, and the items whose data-flags carry it."""
    shown = dict(re.findall(r'name="filter" value="([^"]+)">[^<]*<span class="count">'
                            r'\((\d+)\)', page))
    flags = [f.split() for f in re.findall(r'<article class="item"[^>]* data-flags="([^"]*)"',
                                           page)]
    for name, count in shown.items():  # the badges the items carry agree with the count
        assert sum(name in f for f in flags) == int(count), name
    return {name: int(count) for name, count in shown.items()}


def _table_plus_minus(page: str) -> dict[str, str]:
    """protocol -> the summary table's +/- cell."""
    table = page[page.index('<section id="summary">'):page.index("</section>")]
    header = re.findall(r"<th>([^<]*)</th>", table)
    column = header.index("+/-")
    rows = re.findall(r"<tr>((?:<td>[^<]*</td>)+)</tr>", table)
    cells = [re.findall(r"<td>([^<]*)</td>", row) for row in rows]
    return {c[0]: c[column] for c in cells}


def _listwise(item_id: str, protocol: str, credit: float | None, winners: list[int],
              top_picks: list[int]) -> dict:
    return {"item_id": item_id, "protocol": protocol, "n_candidates": 3,
            "n_calls": len(top_picks) or 1, "n_ok": len(top_picks), "winners": winners,
            "credit": credit, "gold": [0], "top_picks": top_picks,
            "top_positions": [0] * len(top_picks),
            "failures": [] if top_picks else ["parse"], "k": 1 if protocol == "direct" else 3,
            "stop": "all", "failed": not top_picks}


def test_listwise_filters_count_the_table_plus_minus(tmp_path):
    # gold is #0 everywhere; credit = share of winners that are gold
    # q1: direct picks #1 (0), pcf #0 (1): pcf fixed it
    # q2: direct #0 (1), pcf #2 (0): regressed
    # q3: direct #2 (0), pcf #0 (1): fixed
    # q4: direct ties #0 and #1 (1/2), pcf #0 (1): fixed (1 > 1/2)
    # q5: direct #0 (1), pcf failed: not compared (and flagged failed)
    # so pcf against direct: +3 / -1, as the sign test counts
    records = [
        _listwise("q1", "direct", 0.0, [1], [1]), _listwise("q1", "pcf", 1.0, [0], [1, 0, 0]),
        _listwise("q2", "direct", 1.0, [0], [0]), _listwise("q2", "pcf", 0.0, [2], [0, 2, 2]),
        _listwise("q3", "direct", 0.0, [2], [2]), _listwise("q3", "pcf", 1.0, [0], [2, 0, 0]),
        _listwise("q4", "direct", 0.5, [0, 1], [0]), _listwise("q4", "pcf", 1.0, [0], [0, 0, 0]),
        _listwise("q5", "direct", 1.0, [0], [0]), _listwise("q5", "pcf", None, [], []),
    ]
    run = _write_run(tmp_path / "listwise", records, ["direct", "pcf"], "listwise")
    page = render_report(run)
    assert _table_plus_minus(page)["pcf"] == "3/1"
    counts = _page_counts(page)
    assert (counts["fixed:pcf"], counts["regressed:pcf"]) == (3, 1)
    # flipped: q1, q2, q3 (their pcf top picks differ); failed: q5
    assert (counts["flipped"], counts["failed"]) == (3, 1)
    assert "fixed:direct" not in counts  # the baseline is not compared with itself


def _pairwise(item_id: str, protocol: str, verdict: str, calls: list[tuple[str, int, str]]
              ) -> dict:
    """``calls``: (call id, response shown first, verdict in original terms); label A>B."""
    credit = {"A": 1.0, "B": 0.0, "tie": 0.5}[verdict]
    shown = [v if first == 0 or v == "tie" else {"A": "B", "B": "A"}[v]
             for _, first, v in calls]
    both = protocol == "both-orders"
    return {"item_id": item_id, "protocol": protocol, "n_calls": len(calls),
            "n_ok": len(calls), "verdict": verdict, "credit": credit, "label": "A>B",
            "bucket": "mmlu-pro", "split": "gpt", "call_ids": [c[0] for c in calls],
            "call_verdicts": [c[2] for c in calls], "shown_first": [c[1] for c in calls],
            "shown_verdicts": shown,
            "consistent": (calls[0][2] == calls[1][2]) if both else None,
            "failures": [], "failed": False}


def test_pairwise_filters_count_the_table_plus_minus(tmp_path):
    # every label is A>B: credit 1 for A, 1/2 for a tie, 0 for B
    # p1: pairwise B (0), both-orders A (1), apoc A (1): both fixed it, apoc fixed it
    # p2: pairwise A (1), both-orders tie (1/2), apoc A (1): both-orders regressed
    # p3: pairwise B (0), both-orders B (0), apoc A (1): apoc fixed it
    # p4: pairwise A (1), both-orders A (1), apoc B (0): apoc regressed
    # so both-orders +1/-1 and apoc +2/-1 against pairwise
    ab, ba = ("AB", 0), ("BA", 1)
    records = []
    for item, direct, both, apoc in (("p1", "B", ("A", "A"), "A"), ("p2", "A", ("A", "B"), "A"),
                                     ("p3", "B", ("B", "B"), "A"), ("p4", "A", ("A", "A"), "B")):
        both_verdict = both[0] if both[0] == both[1] else "tie"
        records += [_pairwise(item, "pairwise", direct, [(*ab, direct)]),
                    _pairwise(item, "both-orders", both_verdict, [(*ab, both[0]),
                                                                  (*ba, both[1])]),
                    _pairwise(item, "apoc", apoc, [(*ab, direct), ("keyed-AB", 0, apoc)])]
    run = _write_run(tmp_path / "pairwise", records, ["pairwise", "both-orders", "apoc"],
                     "pairwise")
    page = render_report(run)
    assert _table_plus_minus(page) == {"pairwise": "—", "both-orders": "1/1", "apoc": "2/1"}
    counts = _page_counts(page)
    assert (counts["fixed:both-orders"], counts["regressed:both-orders"]) == (1, 1)
    assert (counts["fixed:apoc"], counts["regressed:apoc"]) == (2, 1)
    # p2's two orders disagree (A, then B): the only item whose order changed the verdict
    assert counts["flipped"] == 1


def test_a_run_without_a_comparison_has_no_fixed_or_regressed_filter(tmp_path):
    records = [_listwise("q1", "pcf", 1.0, [0], [1, 0, 0])]
    page = render_report(_write_run(tmp_path / "one", records, ["pcf"], "listwise"))
    assert set(_page_counts(page)) == {"flipped", "failed"}
