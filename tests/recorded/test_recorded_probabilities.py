"""Token probabilities on recorded pairwise judgments: the judge entry's ``probabilities``, the
``probability:<judge>`` confidence signal, written back and exported from a run asked with
--logprobs. Every confidence below is computed by hand from the lines."""

import json
import math

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import DataError
from jurybox.recorded.confidence import signal_table
from jurybox.recorded.jsonl import read_recorded_jsonl, write_recorded_jsonl
from jurybox.recorded.selective import selective_split
from jurybox.stats.selective import split_items

cli = CliRunner()

# (verdicts, probabilities of original A per order, label) and the hand-computed confidence:
#  q1 A,A p .9,.7      -> A, (0.9 + 0.7) / 2 = 0.8
#  q2 A,B p .6,.3      -> net tie: no token probability (NaN)
#  q3 B,B p .2,.4      -> B, ((1 - 0.2) + (1 - 0.4)) / 2 = 0.7
#  q4 A,tie p .8,null  -> A (one order for it), (0.8 + 0.5) / 2 = 0.65 (a tie call gives 0.5)
#  q5 A,A p .9,null    -> A, but order 2's A has no probability: NaN
#  q6 null,B p null,.1 -> B from order 2 alone, 1 - 0.1 = 0.9
ROWS = [("q1", ["A", "A"], [0.9, 0.7], "A"), ("q2", ["A", "B"], [0.6, 0.3], "A"),
        ("q3", ["B", "B"], [0.2, 0.4], "A"), ("q4", ["A", "tie"], [0.8, None], "A"),
        ("q5", ["A", "A"], [0.9, None], "B"), ("q6", [None, "B"], [None, 0.1], "B")]
EXPECTED = [0.8, math.nan, 0.7, 0.65, math.nan, 0.9]


def _write(path, rows=ROWS, judge="j"):
    path.write_text("".join(json.dumps(
        {"id": i, "label": label, "judges": {judge: {"verdicts": v, "probabilities": p}}}) + "\n"
        for i, v, p, label in rows))
    return path


def test_the_probability_signal_is_the_mean_probability_given_the_decision(tmp_path):
    (rec,) = read_recorded_jsonl(_write(tmp_path / "p.jsonl"))
    assert rec.items[0].probabilities == (0.9, 0.7)
    assert rec.items[3].probabilities == (0.8, None)
    table = signal_table([rec])
    assert list(table.signals) == ["order:j", "probability:j"]
    sig = table.signals["probability:j"]
    assert sig.verdicts == ("A", "tie", "B", "A", "A", "B")
    assert [round(c, 6) if not math.isnan(c) else "nan" for c in sig.confidence] == [
        0.8, "nan", 0.7, 0.65, "nan", 0.9]
    assert sig.agree.tolist() == [True, False, False, True, False, True]
    # the order signal of the same lines: share of orders naming the decision
    assert table.signals["order:j"].confidence.tolist() == [1.0, 0.0, 1.0, 0.5, 1.0, 0.5]


def test_a_judge_without_probabilities_has_no_probability_signal(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text('{"id": "a", "label": "A", "judges": {"j": ["A", "A"]}}\n'
                    '{"id": "b", "label": "B", "judges": {"j": ["A", "B"]}}\n')
    (rec,) = read_recorded_jsonl(path)
    assert rec.items[0].probabilities == ()
    assert list(signal_table([rec]).signals) == ["order:j"]


@pytest.mark.parametrize("probabilities, field, message", [
    ([0.5], "judges.j.probabilities", "must be a list of 2 probabilities"),
    ("0.5", "judges.j.probabilities", "must be a list of 2 probabilities"),
    ([0.5, 1.2], "judges.j.probabilities[1]", "a probability is a number in [0, 1] or null"),
    ([True, 0.5], "judges.j.probabilities[0]", "got True"),
    ([0.5, "x"], "judges.j.probabilities[1]", "got 'x'"),
])
def test_a_bad_probability_names_line_and_field(tmp_path, probabilities, field, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "label": "A", "judges": {"j": ["A", "A"]}}\n' + json.dumps(
        {"id": "b", "label": "A", "judges": {"j": {"verdicts": ["A", "B"],
                                                    "probabilities": probabilities}}}) + "\n")
    with pytest.raises(DataError) as err:
        read_recorded_jsonl(path)
    text = str(err.value)
    assert f"{path}:2" in text and field in text and message in text


def test_an_unknown_key_in_a_judge_entry_suggests_probabilities(tmp_path):
    path = tmp_path / "typo.jsonl"
    path.write_text(json.dumps({"id": "a", "label": "A", "judges": {"j": {
        "verdicts": ["A", "B"], "probabilites": [0.5, 0.5]}}}) + "\n")
    with pytest.raises(DataError, match="did you mean 'probabilities'"):
        read_recorded_jsonl(path)


def test_probabilities_are_written_back_unchanged(tmp_path):
    recs = read_recorded_jsonl(_write(tmp_path / "p.jsonl"))
    out = tmp_path / "again.jsonl"
    write_recorded_jsonl(recs, out)
    line = json.loads(out.read_text().splitlines()[3])
    assert line["judges"]["j"] == {"verdicts": ["A", "tie"], "probabilities": [0.8, None]}
    assert read_recorded_jsonl(out)[0].items == recs[0].items


def test_calibration_can_choose_the_probability_signal(tmp_path):
    # 200 pairs: orders always agree (order agreement cannot tell right from wrong), the
    # judge's probability is 0.95 on the 150 it gets right and 0.6 on the 50 it gets wrong;
    # at 0.9 agreement only the probability signal can certify
    rows = []
    for k in range(200):
        right = k % 4 != 0
        p = 0.95 if right else 0.6
        rows.append((f"q{k}", ["A", "A"], [p, p], "A" if right else "B"))
    (rec,) = read_recorded_jsonl(_write(tmp_path / "cal.jsonl", rows))
    result = selective_split(signal_table([rec]), target=0.9, delta=0.1, seed=0)
    assert result.signal == "probability:j"
    assert result.rules["probability:j"].threshold == 0.95
    assert result.rules["order:j"].certified is False
    # the test half: every pair the judge got right is accepted, none it got wrong
    _, test = split_items(200, 0.5, 0)
    right = sum(int(rows[i][0][1:]) % 4 != 0 for i in test)
    assert (result.test.n, result.test.n_accepted, result.test.n_agree) == (100, right, right)
    assert result.test.agreement == 1.0


def test_a_logprobs_run_exports_each_orders_probability(tmp_path):
    out = tmp_path / "run"
    result = cli.invoke(app, ["bench", "judgebench", "--protocols", "both-orders", "--limit", "8",
                              "--logprobs", "5", "--model", "sim", "--no-cache", "--out",
                              str(out)])
    assert result.exit_code == 0, result.output
    result = cli.invoke(app, ["export", str(out), "--format", "recorded"])
    assert result.exit_code == 0, result.output
    items = {r["item_id"]: r for r in map(json.loads, (out / "items.jsonl").open())}
    lines = [json.loads(x) for x in (out / "export" / "recorded.jsonl").open()]
    assert len(lines) == len(items) > 0
    for line in lines:
        r = items[line["id"]]
        by_call = dict(zip(r["call_ids"], r["call_probabilities"]))
        assert line["judges"]["sim"]["probabilities"] == [by_call["AB"], by_call["BA"]]
        assert any(p is not None for p in by_call.values())
    (rec,) = read_recorded_jsonl(out / "export" / "recorded.jsonl")
    assert "probability:sim" in signal_table([rec]).signals
