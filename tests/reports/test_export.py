"""`jurybox export`: flat per-item and per-call tables, checked against the run's own files."""

import csv
import json
import sys

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import ConfigError
from jurybox.reports import export_run

from ..cli_checks import one_line_error

runner = CliRunner()

LISTWISE = {"schema": 1, "item_id": "q1", "protocol": "pcf", "n_candidates": 3, "n_calls": 3,
            "n_ok": 3, "winners": [0, 2], "credit": 0.5, "gold": [2],
            "combined": [70.5, 10.0, 70.25], "top_picks": [0, 2, 0],
            "top_positions": [1, 0, 2], "failures": [], "failed": False}
RUBRIC = {"schema": 1, "unit": "r1|i1", "protocol": "personalized@2", "rater_id": "r1",
          "item_id": "i1", "dimensions": {"overall": {"status": "scored", "score": 3,
                                                      "predictions": [[3, 90.0]]}},
          "failures": [], "failed": False}
CALL = {"schema": 1, "session": 0, "key": "k1", "meta": {"item_id": "q1",
        "calls": ["pcf/perm0"], "order": [2, 0, 1], "reask": 0}, "text": "raw, \"quoted\"\nA",
        "cached": False, "usage": {"prompt_tokens": 100, "completion_tokens": 20,
                                   "cached_tokens": 0},
        "latency_s": 0.25, "finish_reason": "stop", "attempts": 1, "error": None,
        "parse_error": None, "messages": [["system", "Be fair."], ["user", "Judge <A>"]],
        "outcome": "ok"}


def _run_dir(tmp_path, items, calls, extra_lines=""):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"schema": 1, "status": "complete"}))
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in items) + extra_lines)
    (run / "calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in calls))
    return run


def _csv(path):
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_csv_tables_hold_the_records_values(tmp_path):
    # the earlier pcf line of q1 failed at the API and was judged again: only the latest counts
    earlier = {**LISTWISE, "winners": [], "credit": None, "failed": True}
    run = _run_dir(tmp_path, [earlier, LISTWISE, RUBRIC], [CALL], extra_lines='{"cut short\n')
    result = export_run(run, format="csv")
    assert result.items == run / "export" / "items.csv" and result.n_items == 2
    assert result.n_calls == 1 and result.skipped == {"items.jsonl": [4]}
    rows = _csv(result.items)
    q1, r1 = rows
    assert q1["item_id"] == "q1" and q1["protocol"] == "pcf" and q1["credit"] == "0.5"
    assert json.loads(q1["winners"]) == [0, 2] and q1["n_winners"] == "2"
    assert json.loads(q1["combined"]) == [70.5, 10.0, 70.25]
    assert q1["flipped"] == "True"  # top picks 0, 2, 0 differ
    assert q1["overall.score"] == "" and r1["overall.score"] == "3"
    assert r1["unit"] == "r1|i1" and r1["overall.status"] == "scored"
    assert json.loads(r1["overall.predictions"]) == [[3, 90.0]]
    (call,) = _csv(result.calls)
    assert call["item_id"] == "q1" and json.loads(call["calls"]) == ["pcf/perm0"]
    assert json.loads(call["order"]) == [2, 0, 1] and call["reask"] == "0"
    assert call["cached"] == "False" and call["prompt_tokens"] == "100"
    assert call["completion_tokens"] == "20" and call["latency_s"] == "0.25"
    assert call["error"] == "" and call["text"] == 'raw, "quoted"\nA'
    assert json.loads(call["messages"]) == [["system", "Be fair."], ["user", "Judge <A>"]]
    assert list(call)[:3] == ["session", "item_id", "calls"]


def test_jsonl_keeps_lists_and_parquet_types_columns(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    run = _run_dir(tmp_path, [LISTWISE, RUBRIC], [CALL])
    lines = (export_run(run, format="jsonl").items).read_text().splitlines()
    first = json.loads(lines[0])
    assert first["winners"] == [0, 2] and first["credit"] == 0.5 and first["unit"] is None
    result = export_run(run, format="parquet", out=tmp_path / "pq")
    table = pq.read_table(result.items)
    assert str(table.schema.field("credit").type) == "double"
    assert str(table.schema.field("winners").type) == "string"
    assert str(table.schema.field("failed").type) == "bool"
    assert table.column("winners").to_pylist() == ["[0, 2]", None]
    assert table.column("overall.score").to_pylist() == [None, 3]
    calls = pq.read_table(result.calls)
    assert calls.column("prompt_tokens").to_pylist() == [100]
    assert calls.column("text").to_pylist() == ['raw, "quoted"\nA']


def test_export_of_a_bench_run_matches_items_and_calls(tmp_path):
    out = tmp_path / "bench"
    bench = runner.invoke(app, ["bench", "rewardbench2-sample", "--model", "sim", "--k", "3",
                                "--out", str(out), "--no-cache"])
    assert bench.exit_code == 0, bench.output
    done = runner.invoke(app, ["export", str(out), "--format", "csv"])
    assert done.exit_code == 0, done.output
    assert "items.csv (16 rows)" in done.output  # 8 items x (direct, pcf)
    records = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    rows = _csv(out / "export" / "items.csv")
    assert len(rows) == len(records) == 16
    for record, row in zip(records, rows):
        assert (row["item_id"], row["protocol"]) == (record["item_id"], record["protocol"])
        assert float(row["credit"]) == record["credit"]
        assert json.loads(row["winners"]) == record["winners"]
        assert json.loads(row["top_picks"]) == record["top_picks"]
        assert row["flipped"] == ("" if len(record["top_picks"]) < 2 else
                                  str(len(set(record["top_picks"])) > 1))
    calls = [json.loads(line) for line in (out / "calls.jsonl").read_text().splitlines()]
    call_rows = _csv(out / "export" / "calls.csv")
    assert len(call_rows) == len(calls) == 24  # 8 items x 3 orders (direct is pcf's first)
    for call, row in zip(calls, call_rows):
        assert row["text"] == call["text"] and row["key"] == call["key"]
        assert json.loads(row["messages"]) == call["messages"]
        assert int(row["prompt_tokens"]) == call["usage"]["prompt_tokens"]


def test_bad_runs_and_formats_are_one_line_errors(tmp_path, monkeypatch):
    one_line_error(runner.invoke(app, ["export", str(tmp_path / "nope")]),
                   "is not a run directory")
    (tmp_path / "empty").mkdir()
    one_line_error(runner.invoke(app, ["export", str(tmp_path / "empty")]), "no run.json")
    run = _run_dir(tmp_path, [LISTWISE], [CALL])
    one_line_error(runner.invoke(app, ["export", str(run), "--format", "xlsx"]),
                   "--format must be one of csv, parquet, jsonl,", "'xlsx'")
    one_line_error(runner.invoke(app, ["export", str(run), "--format", "jsonl",
                                       "--out", str(run)]), "would overwrite")
    assert json.loads((run / "items.jsonl").read_text()) == LISTWISE  # untouched
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    with pytest.raises(ConfigError, match=r"pip install 'jurybox\[parquet\]'"):
        export_run(run, format="parquet")


def test_export_gives_each_decision_its_prompt_candidates_and_winner_text(tmp_path):
    data = tmp_path / "two.jsonl"
    data.write_text(
        '{"id": "q1", "prompt": "What is 2+2?", "candidates": ["4", "5", "22"]}\n'
        '{"id": "q2", "prompt": "Capital of France?", "candidates": ["Paris", "Lyon"], '
        '"gold": 0}\n')
    out = tmp_path / "run"
    judged = runner.invoke(app, ["judge", str(data), "--model", "sim", "--k", "3", "--out",
                                 str(out), "--no-cache"])
    assert judged.exit_code == 0, judged.output
    assert runner.invoke(app, ["export", str(out)]).exit_code == 0
    rows = {r["item_id"]: r for r in _csv(out / "export" / "items.csv")}
    records = {r["item_id"]: r for r in map(json.loads, (out / "items.jsonl").open())}
    assert rows["q1"]["prompt"] == "What is 2+2?"
    assert json.loads(rows["q1"]["candidates"]) == ["4", "5", "22"]
    assert json.loads(rows["q2"]["candidates"]) == ["Paris", "Lyon"]
    for item_id, texts in (("q1", ["4", "5", "22"]), ("q2", ["Paris", "Lyon"])):
        winners = records[item_id]["winners"]
        assert rows[item_id]["winner_text"] == (texts[winners[0]] if len(winners) == 1
                                                else "")
    # --no-texts: the indices only, as before
    assert runner.invoke(app, ["export", str(out), "--no-texts", "--out",
                               str(tmp_path / "bare")]).exit_code == 0
    bare = _csv(tmp_path / "bare" / "items.csv")
    assert not {"prompt", "candidates", "winner_text"} & set(bare[0])


def test_a_pairwise_winner_text_follows_the_verdict():
    from jurybox.reports.export import _text_columns

    assert _text_columns({"verdict": "A"}, "p", ("x", "y"))["winner_text"] == "x"
    assert _text_columns({"verdict": "B"}, "p", ("x", "y"))["winner_text"] == "y"
    assert _text_columns({"verdict": "tie"}, "p", ("x", "y"))["winner_text"] is None
    assert _text_columns({"failed": True, "winners": [1]}, "p", ("x", "y"))[
        "winner_text"] is None
