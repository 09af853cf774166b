"""Listwise recorded lines: a small recording whose every figure is computed by hand below,
the reader's one-line errors, and ``jurybox score FILE`` on it.

The recording (examples/listwise.jsonl is these lines): 4 items x 4 candidates x 3 orders x
2 judges; ``orders[k][s]`` is the original index shown in slot s.

    O0 = [0,1,2,3]  O1 = [1,0,3,2]  O2 = [3,2,1,0]   (q1, q2, q3)
    P0 = [2,3,0,1]  P1 = [0,1,2,3]  P2 = [1,2,3,0]   (q4)

    item  gold     alpha picks   beta picks
    q1    {2}      2  2  1       2  null 2      alpha has scores in all 3 orders
    q2    {0,1}    0  1  3       1  1    1      (several gold)
    q3    none     2  2  2       0  1    3      (unlabelled)
    q4    {3}      2  3  3       0  3    1      alpha has scores in orders 1-2, a ranking in 2

Slots of the picks (orders[k].index(pick)):
    alpha  q1: 2 3 2   q2: 0 0 0   q3: 2 3 1   q4: 0 3 2
    beta   q1: 2 - 1   q2: 1 0 2   q3: 0 0 0   q4: 2 3 0
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from jurybox.errors import DataError
from jurybox.recorded.jsonl import read_recorded_jsonl
from jurybox.recorded.listwise import looks_listwise, read_listwise_jsonl
from jurybox.recorded.listwise_scoring import (UNLABELLED, score_listwise,
                                               score_listwise_jury, top_set)

O0, O1, O2 = [0, 1, 2, 3], [1, 0, 3, 2], [3, 2, 1, 0]
P0, P1, P2 = [2, 3, 0, 1], [0, 1, 2, 3], [1, 2, 3, 0]
ROWS = [
    {"id": "q1", "label": 2, "subset": "mc", "candidates": ["w", "x", "y", "z"],
     "orders": [O0, O1, O2],
     "judges": {"alpha": {"picks": [2, 2, 1], "scores": [[10, 20, 90, 30], [20, 10, 80, 40],
                                                         [30, 70, 60, 10]]},
                "beta": [2, None, 2]}},
    {"id": "q2", "label": [0, 1], "subset": "mc", "candidates": 4, "orders": [O0, O1, O2],
     "judges": {"alpha": [0, 1, 3], "beta": [1, 1, 1]}},
    {"id": "q3", "label": None, "subset": "mc", "candidates": 4, "orders": [O0, O1, O2],
     "judges": {"alpha": [2, 2, 2], "beta": [0, 1, 3]}},
    {"id": "q4", "label": 3, "subset": "mc", "candidates": 4, "orders": [P0, P1, P2],
     "judges": {"alpha": {"picks": [2, 3, 3],
                          "scores": [[40, 20, 50, 50], [10, 20, 30, 90], None],
                          "ranking": [None, [3, 0, 1, 2], None]},
                "beta": [0, 3, 1]}},
]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "listwise.jsonl"


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def recs(tmp_path):
    return read_listwise_jsonl(_write(tmp_path / "lw.jsonl", ROWS))


def test_the_example_file_is_this_recording():
    assert [json.loads(line) for line in EXAMPLE.read_text().splitlines()] == ROWS
    assert looks_listwise(EXAMPLE)


def test_read(recs):
    assert [r.key for r in recs] == [("mc", "alpha", ""), ("mc", "beta", "")]
    alpha, beta = recs
    assert (alpha.n, alpha.n_orders, alpha.n_candidates) == (4, 3, 4)
    assert [i.gold for i in alpha.items] == [(2,), (0, 1), (), (3,)]
    assert beta.items[0].picks == (2, None, 2) and beta.items[0].scores == ()
    assert alpha.items[3].rankings == (None, (3, 0, 1, 2), None)
    assert alpha.items[3].orders == (tuple(P0), tuple(P1), tuple(P2))
    assert [alpha.items[3].slot(k) for k in range(3)] == [0, 3, 2]


def _acc(result):
    return None if result is None else (round(result.accuracy, 12), result.n)


def test_alpha_figures_by_hand(recs):
    s = score_listwise(recs[0])
    assert (s.n, s.n_labelled, s.no_accuracy, s.parse_failures, s.failed_items) == (
        4, 3, None, 0, 0)
    # per order, labelled q1 (gold 2), q2 (gold 0 or 1), q4 (gold 3):
    #   order 1: 2 right, 0 right, 2 wrong = 2/3; order 2: 2, 1, 3 all right = 1;
    #   order 3: 1 wrong, 3 wrong, 3 right = 1/3
    assert [_acc(a) for a in s.by_order] == [(round(2 / 3, 12), 3), (1.0, 3),
                                             (round(1 / 3, 12), 3)]
    # by gold slot (one-gold items q1, q4): q1's gold 2 is in slot 2, 3, 1 (right, right,
    # wrong); q4's gold 3 in slot 1, 3, 2 (wrong, right, right): slot 0 none, slot 1 0/2,
    # slot 2 2/2, slot 3 2/2
    assert math.isnan(s.by_gold_slot[0].accuracy) and s.by_gold_slot[0].n == 0
    assert [_acc(a) for a in s.by_gold_slot[1:]] == [(0.0, 2), (1.0, 2), (1.0, 2)]
    # slots of the 12 picks: 0 x4 (q2 x3, q4), 1 x1 (q3), 2 x4 (q1 x2, q3, q4), 3 x3
    assert s.n_picks == 12 and s.slot_rates == (4 / 12, 1 / 12, 4 / 12, 3 / 12)
    assert (s.first_slot, s.last_slot) == (1 / 3, 1 / 4)
    # Wilson 95% (z = 1.959964): 4/12 -> centre (1/3 + z^2/24) / (1 + z^2/12) = 0.373749,
    # half z/(1 + z^2/12) * sqrt((1/3)(2/3)/12 + z^2/576) = 0.235628: [0.1381, 0.6094];
    # 3/12 -> [0.0889, 0.5323]
    assert [round(b, 4) for b in s.first_slot_ci] == [0.1381, 0.6094]
    assert [round(b, 4) for b in s.last_slot_ci] == [0.0889, 0.5323]
    # flips: q1 {2,1}, q2 {0,1,3}, q4 {2,3} differ, q3 does not: 3 of 4; disagreement
    # 1 - modal/3: q1 1/3, q2 2/3, q3 0, q4 1/3 -> mean 1/3
    assert (s.flip_rate, s.n_flip) == (0.75, 4)
    assert s.mean_disagreement == pytest.approx(1 / 3)
    assert (s.consistency, s.n_consistency, s.consistency_strict) == (0.25, 4, 0.25)
    # vote over orders: q1 {2} -> 1; q2 tie {0,1,3} -> |{0,1}|/3 = 2/3; q4 {3} -> 1;
    # (1 + 2/3 + 1) / 3 = 8/9; q3's set {2} has no credit (unlabelled)
    assert s.vote_sets == {"q1": (2,), "q2": (0, 1, 3), "q3": (2,), "q4": (3,)}
    assert s.vote_credits == {"q1": 1.0, "q2": pytest.approx(2 / 3), "q4": 1.0}
    assert s.vote.accuracy == pytest.approx(8 / 9) and s.vote.n == 3
    # PCF's C_i = 0.5 S + 0.25 B + 20 V (uncertainty 0), S mean score, B = 100/(K'(n-1)) x
    # sum(n - rank), V top-by-score share. q1 (K' = 3; ranks from the scores):
    #   S = (20, 100/3, 230/3, 80/3); ranks (4,3,1,2), (3,4,1,2), (3,1,2,4) ->
    #   B = 100/9 x (2, 4, 8, 4); V = (0, 1/3, 2/3, 0)
    #   C = (140/9, 310/9, 665/9, 220/9) = (15.56, 34.44, 73.89, 24.44): winner 2, right
    # q4 (K' = 2, order 3 unscored): order 1 scores (40,20,50,50), a tie of 2 and 3 ranked
    #   pick (2) first -> ranks (3,4,1,2); order 2's recorded ranking [3,0,1,2] -> ranks
    #   (2,3,4,1); S = (25, 20, 40, 70); B = 100/6 x (3, 1, 3, 5); V = (0, 0, 1/4, 3/4)
    #   C = (25, 85/6, 37.5, 425/6) = (25, 14.17, 37.5, 70.83): winner 3, right
    assert s.pcf_combined["q1"] == pytest.approx((140 / 9, 310 / 9, 665 / 9, 220 / 9))
    assert s.pcf_combined["q4"] == pytest.approx((25, 85 / 6, 37.5, 425 / 6))
    assert (s.n_scored, _acc(s.pcf), s.pcf.coverage) == (2, (1.0, 2), 1.0)
    # sign tests, vote vs order: order 1 (1,1,0) vs vote (1,2/3,1): 1 up, 1 down, p = 1;
    # order 2 (1,1,1): 0 up, 1 down, p = 1; order 3 (0,0,1): 2 up, 0 down, p = 2/4 = 0.5
    tests = s.vs_order
    assert [(tests[f"vote vs order {k}"].improvements, tests[f"vote vs order {k}"].regressions,
             tests[f"vote vs order {k}"].p_value) for k in (1, 2, 3)] == [
        (1, 1, 1.0), (0, 1, 1.0), (2, 0, 0.5)]
    assert tests["vote vs order 1"].difference == pytest.approx(8 / 9 - 2 / 3)
    # pcf (q1 1, q4 1) vs order 1 (1, 0): 1 up; vs order 2 (1, 1): no discordant pair
    assert (tests["pcf vs order 1"].improvements, tests["pcf vs order 1"].p_value) == (1, 1.0)
    assert math.isnan(tests["pcf vs order 2"].p_value) and tests["pcf vs order 2"].reason


def test_beta_figures_by_hand(recs):
    s = score_listwise(recs[1])
    # one null pick (q1, order 2): a failure, never scored
    assert (s.parse_failures, s.failed_items, s.pcf, s.n_scored) == (1, 1, None, 0)
    # order 1: 2 right, 1 right, 0 wrong = 2/3; order 2: q1 unparsed, 1 right, 3 right = 2/2
    # (coverage 2/3); order 3: 2 right, 1 right, 1 wrong = 2/3
    assert [_acc(a) for a in s.by_order] == [(round(2 / 3, 12), 3), (1.0, 2),
                                             (round(2 / 3, 12), 3)]
    assert s.by_order[1].coverage == pytest.approx(2 / 3)
    # gold slot: q1's gold in slot 2 right, (slot 3 unparsed), slot 1 right; q4's in slot 1
    # wrong, slot 3 right, slot 2 wrong -> slot 1 1/2, slot 2 1/2, slot 3 1/1
    assert [_acc(a) for a in s.by_gold_slot[1:]] == [(0.5, 2), (0.5, 2), (1.0, 1)]
    # 11 parsed picks: slot 0 x5 (q2, q3 x3, q4), 1 x2, 2 x3, 3 x1
    assert s.n_picks == 11 and s.slot_rates == (5 / 11, 2 / 11, 3 / 11, 1 / 11)
    # flips among items with >= 2 parsed: q3, q4 of 4 = 1/2 (q1's two parsed agree);
    # consistency excluding q1 (unparsed): q2 of q2..q4 = 1/3; strict: 1 of 4
    assert (s.flip_rate, s.n_flip) == (0.5, 4)
    assert (s.consistency, s.n_consistency, s.consistency_strict) == (1 / 3, 3, 0.25)
    # vote: q1 {2} 1, q2 {1} 1, q4 tie {0,1,3} with gold 3 -> 1/3: (1 + 1 + 1/3)/3 = 7/9
    assert s.vote_sets["q4"] == (0, 1, 3) and s.vote_sets["q3"] == (0, 1, 3)
    assert s.vote.accuracy == pytest.approx(7 / 9)
    # vote vs order 2 on the items both scored (q2, q4): (1, 1) vs (1, 1/3): 1 down
    t = s.vs_order["vote vs order 2"]
    assert (t.n, t.improvements, t.regressions, t.p_value) == (2, 0, 1, 1.0)
    assert t.difference == pytest.approx(-1 / 3)
    assert s.vs_order["pcf vs order 1"] is None


def test_jury_by_hand(recs):
    j = score_listwise_jury(recs)
    assert (j.judges, j.n, j.n_labelled) == (("alpha", "beta"), 4, 3)
    # each judge's vote set gives 1/|T| to each member: q1 {2}+{2} -> {2}; q2 {0,1,3}+{1}
    # -> 1 has 4/3 -> {1}; q3 {2}+{0,1,3} -> {2}; q4 {3}+{0,1,3} -> 3 has 4/3 -> {3}
    assert j.jury_sets == {"q1": (2,), "q2": (1,), "q3": (2,), "q4": (3,)}
    # all three labelled right: 1.0; best judge alpha (8/9 against beta's 7/9); jury vs
    # alpha: q2 up (1 > 2/3), p = 1
    assert j.vote.accuracy == 1.0 and j.best_judge == "alpha"
    assert j.judge_vote["beta"].accuracy == pytest.approx(7 / 9)
    assert (j.vs_best.improvements, j.vs_best.regressions, j.vs_best.p_value) == (1, 0, 1.0)
    # same pick, of the 11 (item, order) both parsed: q1 o1, q2 o2, q4 o2 = 3/11; same vote
    # set: q1 only, of 4
    assert (j.pick_agreement, j.n_pick_pairs) == (3 / 11, 11)
    assert (j.set_agreement, j.n_set_items) == (0.25, 4)


def test_unlabelled_recording_has_position_figures_only(tmp_path):
    rows = [{**r, "label": None} for r in ROWS]
    s = score_listwise(read_listwise_jsonl(_write(tmp_path / "u.jsonl", rows))[0])
    assert (s.no_accuracy, s.by_order, s.vote, s.pcf, s.vs_order) == (
        UNLABELLED, None, None, None, {})
    # the position figures are alpha's above: they never needed a label
    assert (s.first_slot, s.last_slot, s.flip_rate, s.consistency) == (1 / 3, 1 / 4, 0.75,
                                                                       0.25)
    assert s.n_scored == 2
    j = score_listwise_jury(read_listwise_jsonl(tmp_path / "u.jsonl"))
    assert (j.vote, j.best_judge, j.pick_agreement) == (None, None, 3 / 11)


def test_top_set():
    assert top_set([None, None]) == () and top_set([3, 1, 3, 1, 0]) == (1, 3)


def _bad(**change):
    row = {"id": "q", "label": 1, "candidates": 3, "orders": [[0, 1, 2], [2, 1, 0]],
           "judges": {"j": [1, 2]}}
    row.update(change)
    return row


@pytest.mark.parametrize("row, fragments", [
    (_bad(orders=[[0, 1, 2], [0, 1, 1]]), ["'orders[1]'", "permutation of 0..2"]),
    (_bad(orders=[[0, 1, 2], [0, 1]]), ["'orders[1]'", "permutation"]),
    (_bad(orders=[]), ["'orders'", "non-empty list"]),
    (_bad(judges={"j": [1, 3]}), ["'judges.j[1]'", "0..2", "got 3"]),
    (_bad(judges={"j": [1, True]}), ["'judges.j[1]'", "got True"]),
    (_bad(judges={"j": [1]}), ["'judges.j'", "2 entries, one per order, got 1"]),
    (_bad(judges={"j": {"pick": [1, 2]}}), ["'judges.j.pick'", "did you mean 'picks'"]),
    (_bad(judges={"j": {"picks": [1, None], "scores": [None, [1, 2, 3]]}}),
     ["'judges.j.scores[1]'", "no pick"]),
    (_bad(judges={"j": {"picks": [1, 2], "scores": [[1, 2], None]}}),
     ["'judges.j.scores[0]'", "3 scores in 0-100"]),
    (_bad(judges={"j": {"picks": [1, 2], "scores": [[1, 2, 300], None]}}),
     ["'judges.j.scores[0]'", "0-100"]),
    (_bad(judges={"j": {"picks": [1, 2], "ranking": [[0, 1, 2], None]}}),
     ["'judges.j.ranking[0]'", "ranks 0 first but the pick of order 1 is 1"]),
    (_bad(label=3), ["'label'", "0..2"]),
    (_bad(label=[1, 1]), ["'label'", "distinct"]),
    (_bad(label="A"), ["'label'", "got 'A'"]),
    (_bad(candidates=1), ["'candidates'", ">= 2"]),
    (_bad(candidates=["a", 2, "c"]), ["'candidates[1]'"]),
    (_bad(judges={}), ["'judges'", "at least one judge"]),
    (_bad(order=[]), ["'order'", "did you mean 'orders'"]),
    ({"id": "q", "candidates": 3, "judges": {"j": [1]}}, ["'orders'", "missing"]),
])
def test_bad_lines(tmp_path, row, fragments):
    path = _write(tmp_path / "bad.jsonl", [row])
    with pytest.raises(DataError) as err:
        read_listwise_jsonl(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}:1:"), message
    for fragment in fragments:
        assert fragment in message, message


def test_orders_or_candidates_differing_within_a_group(tmp_path):
    first = _bad()
    path = _write(tmp_path / "k.jsonl", [first, _bad(id="r", orders=[[0, 1, 2]],
                                                     judges={"j": [1]})])
    with pytest.raises(DataError, match=r"k.jsonl:2: field 'orders': 1 orders but line 1 of "
                                        r"the same subset and strategy has 2"):
        read_listwise_jsonl(path)
    path = _write(tmp_path / "n.jsonl", [first, _bad(id="r", candidates=4, orders=[
        [0, 1, 2, 3], [3, 2, 1, 0]])])
    with pytest.raises(DataError, match=r"n.jsonl:2: field 'candidates': 4 candidates but "
                                        r"line 1"):
        read_listwise_jsonl(path)
    # another subset may have its own shape
    other = _write(tmp_path / "o.jsonl", [first, _bad(id="r", subset="s2", orders=[[0, 1, 2]],
                                                      judges={"j": [1]})])
    assert [r.n_orders for r in read_listwise_jsonl(other)] == [2, 1]
    dup = _write(tmp_path / "d.jsonl", [first, first])
    with pytest.raises(DataError, match=r"d.jsonl:2: field 'id': duplicate id 'q'.*line 1"):
        read_listwise_jsonl(dup)


def test_a_file_mixing_pairwise_and_listwise_lines_is_refused(tmp_path):
    pairwise = {"id": "p", "label": "A", "judges": {"j": ["A", "B"]}}
    mixed = _write(tmp_path / "mixed.jsonl", [_bad(), pairwise])
    with pytest.raises(DataError, match=r"mixed.jsonl:2: field 'candidates': a pairwise line "
                                        r"\(no 'candidates'\) in a file whose line 1 is "
                                        r"listwise"):
        read_listwise_jsonl(mixed)
    other = _write(tmp_path / "other.jsonl", [pairwise, _bad()])
    with pytest.raises(DataError, match=r"other.jsonl:2: field 'candidates': a listwise line "
                                        r"\(has 'candidates'\) in a file whose line 1 is "
                                        r"pairwise"):
        read_recorded_jsonl(other)
    with pytest.raises(DataError, match=r"mixed.jsonl:1: field 'candidates': a listwise line"):
        read_recorded_jsonl(mixed)


def test_score_cli_prints_the_listwise_tables_at_80_columns(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from jurybox.cli import app
    from jurybox.cli._console import console

    monkeypatch.setattr(console, "_width", 80)
    result = CliRunner().invoke(app, ["score", str(EXAMPLE), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    rows = [" ".join(line.split()) for line in lines]
    legend = next(k for k, r in enumerate(rows) if r.startswith("Listwise:"))
    assert legend < rows.index("judge o1 o2 o3 vote 95% CI p pcf fail")  # the legend first
    # o1 o2 o3 vote [CI] p pcf fail, and 1st [CI] last [CI] flip cons g1st glast: the
    # figures asserted above, in %
    assert "judge o1 o2 o3 vote 95% CI p pcf fail" in rows
    assert any(r.startswith("alpha 66.7 100.0 33.3 88.9 ") and r.endswith(" 1.000 100.0 0")
               for r in rows)
    assert any(r.startswith("beta 66.7 100.0 66.7 77.8 ") and r.endswith(" 1.000 — 1")
               for r in rows)
    assert "alpha 33.3 14-61 25.0 9-53 75.0 25.0 — 100.0" in rows
    assert "beta 45.5 21-72 9.1 2-38 50.0 33.3 — 100.0" in rows
    assert any(r.startswith("jury on mc, -: 2 judges, 4 items") for r in rows)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["kind"] == "listwise" and summary["n_recordings"] == 2
    alpha = summary["scores"][0]
    assert alpha["vote"]["accuracy"] == pytest.approx(8 / 9)
    assert alpha["slot_rates"] == pytest.approx([1 / 3, 1 / 12, 1 / 3, 1 / 4])
    assert alpha["by_gold_slot"][0]["accuracy"] is None  # NaN written as null
    assert alpha["vs_order"]["vote vs order 3"]["p_value"] == 0.5
    assert alpha["pcf_combined"]["q4"] == pytest.approx([25, 85 / 6, 37.5, 425 / 6])
    assert summary["juries"][0]["pick_agreement"] == pytest.approx(3 / 11)


def test_score_cli_unlabelled_and_refused_options(tmp_path):
    from typer.testing import CliRunner

    from jurybox.cli import app

    from ..cli_checks import one_line_error

    path = _write(tmp_path / "u.jsonl", [{**r, "label": None} for r in ROWS])
    result = CliRunner().invoke(app, ["score", str(path)])
    assert result.exit_code == 0, result.output
    rows = [" ".join(line.split()) for line in result.output.splitlines()]
    assert "mc: 4 items x 4 candidates, 3 orders, no labels" in rows
    assert "judge 1st 95% CI last 95% CI flip cons" in rows  # no accuracy, no gold columns
    assert "alpha 33.3 14-61 25.0 9-53 75.0 25.0" in rows
    assert not any(r.startswith("judge o1") for r in rows) and "agreement only" in result.output
    one_line_error(CliRunner().invoke(app, ["score", str(EXAMPLE), "--weights", "alpha=2"]),
                   "--weights apply to pairwise recorded judgments")
    mixed = _write(tmp_path / "mixed.jsonl", [ROWS[0], {"id": "p", "label": "A",
                                                         "judges": {"j": ["A", "B"]}}])
    one_line_error(CliRunner().invoke(app, ["score", str(mixed)]), "mixed.jsonl:2:",
                   "a pairwise line")


def test_the_docs_show_the_example_as_printed(monkeypatch):
    from typer.testing import CliRunner

    from jurybox.cli import app
    from jurybox.cli._console import console

    monkeypatch.setattr(console, "_width", 80)
    page = (EXAMPLE.parents[1] / "docs" / "recorded-format.md").read_text()
    block = page.split("```\nmc: ", 1)[1].split("```", 1)[0].rstrip("\n")
    block = "mc: " + block
    printed = CliRunner().invoke(app, ["score", str(EXAMPLE)]).output
    assert len(block.splitlines()) == 8
    for line in block.splitlines():
        assert line.rstrip() in [p.rstrip() for p in printed.splitlines()], line
