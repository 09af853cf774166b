"""Per-item views and the accuracy-vs-permutations curve, against hand-computed values and
against what the live run recorded."""

from __future__ import annotations

import json
import math

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.protocols import listwise_request, request_tag
from jurybox.reports import RunReader, permutation_curve
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.sim import SimConfig
from tests.conftest import FAST_RETRY

ORDERS = [(0, 1, 2), (1, 2, 0), (2, 0, 1)]


def _answer(scores: dict[str, int], ranking: list[str]) -> str:
    return json.dumps({"candidates": {
        lab: {"score": s, "major_factual_error": False, "hallucinated_specificity": False,
              "calibrated_uncertainty": False} for lab, s in scores.items()},
        "ranking": ranking, "rationale": "hand-written"})


def _call(item_id, question, candidates, j, text, outcome="ok"):
    order = ORDERS[j]
    request = listwise_request(question, [candidates[i] for i in order],
                               tag=request_tag(0, item_id, order),
                               question_tag=request_tag(0, item_id))
    return {"schema": 1, "session": 0, "key": f"k{item_id}{j}",
            "meta": {"item_id": item_id, "calls": [f"pcf/perm{j}"], "order": list(order),
                     "reask": 0},
            "text": text, "cached": False, "error": None,
            "parse_error": None if outcome == "ok" else "no JSON object",
            "messages": [[m.role, m.content] for m in request.messages], "outcome": outcome}


@pytest.fixture
def hand_run(tmp_path):
    """Two 3-candidate items judged by pcf with K = 3, written by hand.

    q1 (gold #0): perm0 shows (#0, #1, #2) and scores 80/60/40, ranking A B C -> top #0;
    perm1 shows (#1, #2, #0): 90/50/70, ranking A C B -> top #1; perm2 shows (#2, #0, #1):
    30/85/65, ranking B C A -> top #0. q2 (gold #2): perm0 unparsable; perm1 and perm2 both
    rank #2 first.
    """
    q1 = ("Which is right, q1?", ("alpha one", "beta one", "gamma one"))
    q2 = ("Which is right, q2?", ("alpha two", "beta two", "gamma two"))
    calls = [
        _call("q1", *q1, 0, _answer({"A": 80, "B": 60, "C": 40}, ["A", "B", "C"])),
        _call("q1", *q1, 1, _answer({"A": 90, "B": 50, "C": 70}, ["A", "C", "B"])),
        _call("q1", *q1, 2, _answer({"A": 30, "B": 85, "C": 65}, ["B", "C", "A"])),
        _call("q2", *q2, 0, "I cannot judge this.", outcome="parse"),
        _call("q2", *q2, 1, _answer({"A": 20, "B": 95, "C": 50}, ["B", "C", "A"])),
        _call("q2", *q2, 2, _answer({"A": 90, "B": 40, "C": 30}, ["A", "B", "C"])),
    ]
    # top picks as the run records them: q1 #0, #1, #0 (shown at positions 0, 0, 1); q2's
    # two answers both #2 (positions 1, 0)
    items = [{"schema": 1, "item_id": "q1", "protocol": "pcf", "n_candidates": 3, "n_calls": 3,
              "n_ok": 3, "winners": [0], "credit": 1.0, "gold": [0],
              "combined": [73.3333, 59.1667, 20.0], "top_picks": [0, 1, 0],
              "top_positions": [0, 0, 1], "failures": [], "k": 3, "stop": "all",
              "failed": False},
             {"schema": 1, "item_id": "q2", "protocol": "pcf", "n_candidates": 3, "n_calls": 3,
              "n_ok": 2, "winners": [2], "credit": 1.0, "gold": [2], "combined": None,
              "top_picks": [2, 2], "top_positions": [1, 0],
              "failures": ["parse"], "k": 3, "stop": "all", "failed": False}]
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({
        "schema": 1, "kind": "bench", "seed": 0, "status": "complete",
        "dataset": {"name": "gone", "path": str(tmp_path / "gone.jsonl"), "sha256": "0" * 64},
        "config": {"dataset": str(tmp_path / "gone.jsonl")},
        "model": {"spec": "sim", "simulated": True},
        "protocols": [{"name": "pcf", "params": {"k": 3, "tolerance": 0.5, "weights": {
            "mean": 0.5, "borda": 0.25, "vote": 0.2, "uncertainty": 0.05}}}]}))
    (run / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in items))
    return run


def test_hand_run_views(hand_run):
    reader = RunReader(hand_run)
    assert reader.task == "listwise" and reader.item_ids == ["q1", "q2"]
    q1 = reader.item("q1")
    # the dataset file is gone: texts come back from the recorded prompt, by candidate index
    assert q1.text_source == "prompt" and q1.question == "Which is right, q1?"
    assert q1.candidates == ("alpha one", "beta one", "gamma one")
    pcf = q1.protocol("pcf")
    assert [c.call_id for c in pcf.calls] == ["perm0", "perm1", "perm2"]
    assert pcf.calls[1].order == (1, 2, 0)
    # perm1 showed #1 as A (90), #2 as B (50), #0 as C (70)
    assert pcf.calls[1].run.scores == (70.0, 90.0, 50.0)
    assert pcf.calls[1].ranking == (1, 0, 2)
    assert pcf.top_picks == (0, 1, 0)
    # direct judgment = perm0 alone: #0 wins, gold -> credit 1; one protocol, so no
    # comparison and no fixed / regressed filter; the top pick changed: flipped
    assert q1.direct_credit == 1.0
    assert q1.flags.names() == ("flipped",) and reader.comparison is None
    assert pcf.disagreement == pytest.approx(1 / 3)  # perm1's top (#1) is not a winner
    q2 = reader.item("q2")
    failed = q2.protocol("pcf").calls[0]
    assert not failed.ok and failed.failure == "parse" and failed.run is None
    assert failed.text == "I cannot judge this."
    assert q2.flags.names() == ("failed",)  # both orders that answered rank #2 first
    assert q2.direct_credit is None  # the direct judgment (perm0) failed


def test_hand_run_curve(hand_run):
    reader = RunReader(hand_run)
    curve = permutation_curve(reader.iter_items(), k=3)
    acc = [p.accuracy for p in curve.points]
    # k=1: q1 perm0 -> #0 (credit 1); q2 has no successful order: failed (coverage 1/2)
    assert (acc[0].accuracy, acc[0].n, acc[0].n_total) == (1.0, 1, 2)
    # k=2, q1: mean #0 = #1 = 75, Borda both 75, vote both 0.5 -> C = 66.25 each: a tie,
    # credit 1/2; q2: perm1 alone -> #2, credit 1
    assert acc[1].accuracy == pytest.approx(0.75) and acc[1].n == 2
    # k=3: the recorded decisions, both right
    assert acc[2].accuracy == 1.0
    # same winners as the final pick: k=1 q1 only (1/1); k=2 q1 tie differs, q2 same; k=3 all
    assert [p.agreement for p in curve.points] == [1.0, 0.5, 1.0]
    assert [p.n_agree for p in curve.points] == [1, 2, 2]


def test_report_without_calls_and_with_a_foreign_items_line(hand_run):
    from jurybox.reports import render_report

    (hand_run / "calls.jsonl").unlink()  # deleted to save space: decisions remain
    with (hand_run / "items.jsonl").open("a") as fh:
        fh.write(json.dumps({"item_id": "q3"}) + "\n")  # no protocol: not a decision
    reader = RunReader(hand_run)
    assert reader.item_ids == ["q1", "q2"]
    q1 = reader.item("q1")
    assert q1.calls == () and q1.protocol("pcf").winners == (0,)
    page = render_report(hand_run)
    assert 'data-item="q1"' in page and 'data-item="q3"' not in page


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "run"
    run_bench(BenchConfig(dataset="truthfulqa", limit=30, k=5, sim=SimConfig(bias="primacy")),
              out, options=RunOptions(cache_path=None, retry=FAST_RETRY, concurrency=4))
    return out


def test_sim_run_flags_match_what_the_run_recorded(sim_run):
    reader = RunReader(sim_run)
    summary = json.loads((sim_run / "summary.json").read_text())
    recorded = {(r["item_id"], r["protocol"]): r for r in read_jsonl(sim_run / "items.jsonl")}
    views = list(reader.iter_items())
    assert len(views) == 30
    for v in views:
        pcf = v.protocol("pcf")
        # re-parsed top picks equal the live run's, and so does the flip flag
        assert pcf.top_picks == tuple(recorded[(v.item_id, "pcf")]["top_picks"])
        assert v.flags.flipped == (len(set(recorded[(v.item_id, "pcf")]["top_picks"])) > 1)
        assert v.protocol("direct").calls[0] is pcf.calls[0]  # one shared call
        assert v.direct_credit == recorded[(v.item_id, "direct")]["credit"]
    vs = summary["protocols"]["pcf"]["vs_baseline"]
    assert sum("pcf" in v.flags.fixed for v in views) == vs["improvements"]
    assert sum("pcf" in v.flags.regressed for v in views) == vs["regressions"]
    assert sum(v.flags.flipped for v in views) == round(
        summary["protocols"]["pcf"]["order"]["flip_rate"] * 30)


def test_sim_run_curve_ends_at_the_run_accuracies(sim_run):
    reader = RunReader(sim_run)
    summary = json.loads((sim_run / "summary.json").read_text())["protocols"]
    weights, tolerance = reader.pcf_settings
    curve = permutation_curve(reader.iter_items(), k=5, weights=weights, tolerance=tolerance)
    assert len(curve.points) == 5
    assert math.isclose(curve.points[0].accuracy.accuracy, summary["direct"]["accuracy"]
                        ["accuracy"])
    assert math.isclose(curve.points[-1].accuracy.accuracy, summary["pcf"]["accuracy"]
                        ["accuracy"])
    assert list(curve.points[-1].accuracy.confidence_interval) == pytest.approx(
        summary["pcf"]["accuracy"]["confidence_interval"])
    assert summary["direct"]["accuracy"]["accuracy"] != summary["pcf"]["accuracy"]["accuracy"]


def test_pairwise_disagreeing_orders_match_consistency(tmp_path):
    out = tmp_path / "pairs"
    run_bench(BenchConfig(dataset="judgebench", limit=8, protocols=("pairwise", "both-orders")),
              out, options=RunOptions(cache_path=None, retry=FAST_RETRY, concurrency=4))
    reader = RunReader(out)
    assert reader.task == "pairwise"
    views = list(reader.iter_items(texts=True))
    assert len(views) == 16 and all(v.text_source == "dataset" for v in views)
    both = {r["item_id"]: r for r in read_jsonl(out / "items.jsonl")
            if r["protocol"] == "both-orders"}
    for v in views:
        assert v.flags.disagreeing == (both[v.item_id]["consistent"] is False)
        calls = v.protocol("both-orders").calls
        assert tuple(c.verdict for c in calls) == tuple(both[v.item_id]["call_verdicts"])
        assert tuple(c.shown_verdict for c in calls) == tuple(
            both[v.item_id]["shown_verdicts"])
    assert any(v.flags.disagreeing for v in views)
