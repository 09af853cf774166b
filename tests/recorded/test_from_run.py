"""A run's verdicts as recorded judgments (jurybox export RUN --format recorded), read back and
rescored: the same verdicts, orders and accuracy as the run's own (simulated judge)."""

import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import DataError
from jurybox.recorded.from_run import recorded_lines
from jurybox.recorded.jsonl import read_recorded_jsonl
from jurybox.recorded.scoring import score_recording

cli = CliRunner()


def _run(tmp_path, *args):
    out = tmp_path / "run"
    result = cli.invoke(app, ["bench", *args, "--model", "sim", "--no-cache", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_both_orders_verdicts_are_placed_by_the_order_shown_and_rescore_alike(tmp_path):
    run = _run(tmp_path, "judgebench", "--protocols", "both-orders", "--limit", "10")
    result = cli.invoke(app, ["export", str(run), "--format", "recorded"])
    assert result.exit_code == 0, result.output
    path = run / "export" / "recorded.jsonl"
    items = {r["item_id"]: r for r in _lines(run / "items.jsonl")}
    lines = _lines(path)
    assert len(lines) == len(items)
    for line in lines:
        r = items[line["id"]]
        by_call = dict(zip(r["call_ids"], r["call_verdicts"]))
        assert line["judges"]["sim"] == [by_call["AB"], by_call["BA"]]
        assert line["label"] == {"A>B": "A", "B>A": "B"}[r["label"]]
    (rec,) = read_recorded_jsonl(path)
    net = score_recording(rec).net
    # the recorded net rule is the run's net verdict; a tie there is wrong (the run's own
    # accuracy credits it half, so it is compared item by item instead)
    right = [items[i]["verdict"] == {"A>B": "A", "B>A": "B"}[items[i]["label"]] for i in items]
    assert (net.accuracy, net.n) == (pytest.approx(sum(right) / len(right)), len(right))


def test_pcf_orders_and_picks_come_from_the_calls_and_items(tmp_path):
    run = _run(tmp_path, "truthfulqa", "--protocols", "direct,pcf", "--k", "3", "--limit", "6")
    made = recorded_lines(run)
    assert made.left_out == {"direct": 6}  # one order: nothing to record
    items = {r["item_id"]: r for r in _lines(run / "items.jsonl") if r["protocol"] == "pcf"}
    shown = {}
    for c in _lines(run / "calls.jsonl"):
        for name in c["meta"]["calls"]:
            if name.startswith("pcf/perm"):
                shown[(c["meta"]["item_id"], int(name[8:]))] = c["meta"]["order"]
    for line in made.lines:
        r = items[line["id"]]
        assert line["judges"]["sim"]["picks"] == r["top_picks"]  # no call failed
        assert line["orders"] == [shown[(line["id"], k)] for k in range(r["k"])]
        # the pick shown in each order's top position is the item's recorded top position
        assert [o.index(p) for o, p in zip(line["orders"], r["top_picks"])] == r["top_positions"]
        assert line["label"] == (r["gold"][0] if len(r["gold"]) == 1 else r["gold"] or None)


def test_a_run_with_nothing_to_record_is_a_clear_error(tmp_path):
    run = _run(tmp_path, "truthfulqa", "--protocols", "direct", "--limit", "2")
    with pytest.raises(DataError, match="no item of a protocol that can be recorded"):
        recorded_lines(run)
    result = cli.invoke(app, ["export", str(run), "--format", "recorded"])
    assert result.exit_code == 2
