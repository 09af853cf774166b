"""judge with a pairwise protocol: candidate 0's wins, losses and ties, with a CI."""

import json
import math

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.judging.results import pairwise_outcome


def test_counts_and_win_rate_by_hand():
    o = pairwise_outcome(["A", "B", "tie", "A", None, "A"], seed=0)
    # decided: A, B, tie, A, A -> won 3, lost 1, tied 1; rate (3 + 0.5) / 5 = 0.7
    assert (o.won, o.lost, o.tied, o.failed, o.decided) == (3, 1, 1, 1, 5)
    assert o.win_rate == pytest.approx(0.7)
    lo, hi = o.confidence_interval
    # a percentile bootstrap of five values in {0, 0.5, 1}: inside [0, 1], around 0.7
    assert 0.0 <= lo < 0.7 < hi <= 1.0
    assert o.to_json()["win_rate"] == pytest.approx(0.7)


def test_a_failure_is_never_a_tie_or_a_loss():
    o = pairwise_outcome([None, None, "A"])
    assert (o.won, o.lost, o.tied, o.failed) == (1, 0, 0, 2) and o.win_rate == 1.0
    assert all(math.isnan(x) for x in o.confidence_interval)  # one decided item: no CI
    nothing = pairwise_outcome([None])
    assert nothing.decided == 0 and math.isnan(nothing.win_rate)
    assert nothing.to_json()["win_rate"] is None


def test_unknown_verdict_is_refused():
    with pytest.raises(ValueError, match="unknown pairwise verdict"):
        pairwise_outcome(["A", "C"])


def _pairs_file(folder, n):
    """``folder/pairs.jsonl``: ``n`` unlabelled two-candidate items."""
    lines = [{"id": f"p{i}", "prompt": f"Question {i}?", "candidates": [f"yes {i}", f"no {i}"]}
             for i in range(n)]
    (folder / "pairs.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_judge_prints_and_stores_what_its_judgments_say(tmp_path, monkeypatch):
    _pairs_file(tmp_path, 12)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["judge", "pairs.jsonl", "--model", "sim", "--protocol",
                                      "both-orders", "--out", "run", "--no-cache"])
    assert result.exit_code == 0, result.output
    verdicts = [json.loads(x)["verdict"] for x in (tmp_path / "run/judgments.jsonl").open()]
    won, lost, tied = (verdicts.count(v) for v in ("A", "B", "tie"))
    assert won + lost + tied == 12 and verdicts.count(None) == 0
    stored = json.loads((tmp_path / "run/summary.json").read_text())["judge"]["outcome"]
    assert (stored["won"], stored["lost"], stored["tied"]) == (won, lost, tied)
    assert stored["win_rate"] == pytest.approx((won + tied / 2) / 12)
    printed = " ".join(result.output.split())
    assert (f"candidate 0 won {won}, lost {lost}, tied {tied} of 12 decided items: win rate "
            f"{100 * (won + tied / 2) / 12:.1f}% (ties count half; 95% CI") in printed


def test_listwise_judge_has_no_outcome(tmp_path, monkeypatch):
    (tmp_path / "three.jsonl").write_text(json.dumps(
        {"id": "q", "prompt": "2+2?", "candidates": ["4", "5", "22"]}) + "\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["judge", "three.jsonl", "--model", "sim", "--k", "3",
                                      "--out", "run", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "outcome" not in json.loads((tmp_path / "run/summary.json").read_text())["judge"]
    assert "candidate 0 won" not in result.output


def test_the_report_shows_candidate_0s_outcome():
    from jurybox.reports.sections import summary_table

    summary = {"kind": "judge", "task": "pairwise",
               "protocols": {"both-orders": {"accuracy": {}, "calls_planned": 8}},
               "judge": {"protocol": "both-orders", "n_items": 4, "n_failed": 0,
                         "n_labelled": 0, "flip_rate": 0.25, "mean_agreement": 0.75,
                         "outcome": {"won": 2, "lost": 1, "tied": 1, "failed": 0,
                                     "decided": 4, "win_rate": 0.625,
                                     "confidence_interval": [0.25, 1.0]}}}
    table = summary_table(summary, {})
    row = dict(zip(table.columns, table.rows[0]))
    assert row["candidate 0 won/lost/tied"] == "2/1/1"
    assert row["candidate 0 win % [95% CI]"].split()[0] == "62.5"  # (2 + 1/2) / 4
    win = row["candidate 0 win % [95% CI]"]
    assert "25.0" in win and "100.0" in win
    listwise = {**summary, "task": "listwise", "judge": {**summary["judge"], "outcome": None}}
    assert "candidate 0 won/lost/tied" not in summary_table(listwise, {}).columns


def test_one_call_per_item_says_the_order_was_not_varied(tmp_path, monkeypatch):
    _pairs_file(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    one = CliRunner().invoke(app, ["judge", "pairs.jsonl", "--model", "sim", "--protocol",
                                   "pairwise", "--out", "one", "--no-cache"])
    assert one.exit_code == 0, one.output
    text = " ".join(one.output.split())
    assert "one call per item, so the order was not varied (both-orders or apoc vary it)" in text
    assert "the order changed" not in text
    assert "verdict: A = candidate 0, B = candidate 1" in text
    # the session's totals, as bench prints them: 3 items, one call each
    assert "model calls this run: 3 cache hits: 0" in text
    two = CliRunner().invoke(app, ["judge", "pairs.jsonl", "--model", "sim", "--protocol",
                                   "both-orders", "--out", "two", "--no-cache"])
    assert "the order changed the verdict on" in " ".join(two.output.split())
