"""jurybox judge: unlabelled candidates in, typed per-item judgments out (simulated judge)."""

import csv
import json
from dataclasses import dataclass

import pytest
from typer.testing import CliRunner

import jurybox
from jurybox.cli import app
from jurybox.errors import ConfigError
from jurybox.judging import CSV_COLUMNS, read_judgments
from jurybox.judging.results import judgment_of
from jurybox.protocols import Weights

from ..cli_checks import one_line_error

runner = CliRunner()

ITEMS = [{"id": "q1", "prompt": "What is 2+2?", "candidates": ["4", "5", "22"]},
         {"id": "q2", "prompt": "Capital of France?", "candidates": ["Paris", "Lyon"]}]


def test_listwise_record_to_judgment_by_hand():
    record = {"item_id": "x", "protocol": "pcf", "n_candidates": 3, "n_calls": 4, "n_ok": 3,
              "winners": [2], "credit": None, "gold": [], "combined": [40.0, 30.0, 70.0],
              "top_picks": [2, 0, 2], "top_positions": [0, 0, 1], "failures": ["parse"],
              "k": 4, "stop": "all", "failed": False}
    j = judgment_of(record)
    # permutations 1 and 3 picked candidate 2, a winner; permutation 2 picked 0
    assert j.agreement == (True, False, True) and j.agreement_rate == pytest.approx(2 / 3)
    assert j.flipped and not j.failed and j.failures == ("parse",) and j.winners == (2,)


def test_pairwise_record_to_judgment_by_hand():
    record = {"item_id": "p", "protocol": "both-orders", "n_calls": 2, "n_ok": 2,
              "verdict": "B", "credit": None, "label": "", "call_verdicts": ["B", "tie"],
              "call_ids": ["AB", "BA"], "shown_first": [0, 1], "failures": [], "failed": False}
    j = judgment_of(record)
    assert j.winners == (1,) and j.agreement == (True, False) and j.flipped
    # APOC: the direct call (AB) and the keyed one disagree, but no order and its reverse do:
    # the sample-1 pair AB-s1 / BA-s1 both say B, so the order did not change the answer
    apoc = judgment_of({**record, "protocol": "apoc", "n_calls": 4, "n_ok": 4, "verdict": "A",
                        "call_ids": ["AB", "AB-s1", "BA-s1", "keyed-AB"],
                        "shown_first": [0, 0, 1, 0], "call_verdicts": ["A", "B", "B", "A"]})
    assert not apoc.flipped and apoc.agreement == (True, False, False, True)
    assert judgment_of({**record, "protocol": "apoc", "verdict": "A",
                        "call_ids": ["AB", "AB-s1", "BA-s1", "keyed-AB"],
                        "shown_first": [0, 0, 1, 0],
                        "call_verdicts": ["A", "A", "B", "A"]}).flipped
    failed = judgment_of({**record, "verdict": None, "n_ok": 1, "call_verdicts": ["A", None],
                          "failures": ["api"], "failed": True})
    assert failed.failed and failed.winners == () and failed.agreement == ()
    assert not failed.flipped  # one verdict: nothing to flip against


def test_judge_in_memory_items(tmp_path):
    result = jurybox.judge(ITEMS, model="sim", protocol="pcf", k=3, out=tmp_path / "run")
    assert [j.item_id for j in result.items] == ["q1", "q2"]
    w = Weights()
    for j in result.items:
        assert not j.failed and j.gold == () and j.credit is None
        # C_i from its components (arXiv 2603.20562 Sec. 3): 0.5 S + 0.25 B + 0.2 100 V + ...
        for i, c in enumerate(j.combined):
            parts = j.components
            expect = (w.mean * parts["mean"][i] + w.borda * parts["borda"][i]
                      + w.vote * 100 * parts["vote"][i]
                      + w.uncertainty * 100 * parts["uncertainty"][i])
            assert c == pytest.approx(expect, abs=1e-3)
        best = max(j.combined)
        assert j.winners == tuple(i for i, c in enumerate(j.combined) if c >= best - 0.5)
    # q1 has 3 candidates: K = 3 cyclic shifts; q2 has 2: both orders (2! = 2)
    assert (result["q1"].n_calls, result["q2"].n_calls) == (3, 2)
    calls = [json.loads(line) for line in (tmp_path / "run" / "calls.jsonl").open()]
    assert len(calls) == 5
    # the per-permutation picks are the top of each recorded ranking
    for j in result.items:
        tops = []
        for c in calls:
            if c["meta"]["item_id"] == j.item_id:
                answer = json.loads(c["text"][c["text"].index("{"):c["text"].rindex("}") + 1])
                tops.append(c["meta"]["order"]["ABC".index(answer["ranking"][0])])
        assert j.top_picks == tuple(tops) and j.flipped == (len(set(tops)) > 1)
    assert result.summary.n_items == 2 and result.summary.n_labelled == 0
    again = jurybox.judge(ITEMS, model="sim", protocol="pcf", k=3, out=tmp_path / "run")
    assert again.run.totals.model_calls == 0 and again.items == result.items


@dataclass
class Candidates:
    item_id: str
    question: str
    candidates: tuple
    gold: int | None = None


def test_dataclass_items_with_gold_add_accuracy(tmp_path):
    items = [Candidates("a", "2+2?", ("4", "5"), 0), Candidates("b", "3+3?", ("6", "7"))]
    result = jurybox.judge(items, model="sim", protocol="direct", out=tmp_path / "run")
    assert result.summary.n_labelled == 1
    acc = result.summary.bench.protocols["direct"].accuracy
    assert acc.n == 1 and acc.accuracy == result["a"].credit
    assert result["b"].credit is None


def test_pairwise_protocol_on_two_candidates(tmp_path):
    pairs = [{"id": "p1", "prompt": "Is the sky blue?", "candidates": ["Yes", "No"]}]
    result = jurybox.judge(pairs, model="sim", protocol="both-orders", out=tmp_path / "run")
    j = result["p1"]
    assert j.task == "pairwise" and j.n_calls == 2 and j.verdict in ("A", "B", "tie")
    assert j.winners == {"A": (0,), "B": (1,), "tie": (0, 1)}[j.verdict]
    with pytest.raises(jurybox.DataError, match="exactly 2 candidates"):
        jurybox.judge(ITEMS, model="sim", protocol="pairwise", out=tmp_path / "run2")


def test_bad_settings_and_other_items_in_the_same_folder(tmp_path):
    with pytest.raises(ConfigError, match="no setting 'kk'"):
        jurybox.judge(ITEMS, kk=3, model="sim", out=tmp_path / "x")
    with pytest.raises(ConfigError, match="unknown protocol 'pfc'; did you mean 'pcf'"):
        jurybox.judge(ITEMS, model="sim", protocol="pfc", out=tmp_path / "y")
    with pytest.raises(ConfigError, match=r"unknown protocol 'rubric'; jurybox judge takes "
                                          r"direct, pcf, apoc, both-orders"):
        jurybox.judge(ITEMS, model="sim", protocol="rubric", out=tmp_path / "y")
    jurybox.judge(ITEMS[:1], model="sim", out=tmp_path / "run", k=2)
    with pytest.raises(ConfigError, match="other items"):
        jurybox.judge(ITEMS, model="sim", out=tmp_path / "run", k=2)
    with pytest.raises(ConfigError, match=r"items\[0\] is a int"):
        jurybox.judge([3], model="sim", out=tmp_path / "z")


def test_cli_judge_two_unlabelled_items_writes_winners(tmp_path):
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    out = tmp_path / "run"
    res = runner.invoke(app, ["judge", str(src), "--model", "sim", "--k", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "SIMULATED" in res.output and "judgments.csv" in res.output
    assert "accuracy" not in res.output  # no gold: nothing pretends
    rows = list(csv.DictReader((out / "judgments.csv").open()))
    assert tuple(rows[0]) == CSV_COLUMNS and [r["item_id"] for r in rows] == ["q1", "q2"]
    judged = {j.item_id: j for j in read_judgments(out / "judgments.jsonl")}
    for r in rows:
        assert r["winners"] == ";".join(map(str, judged[r["item_id"]].winners)) != ""
    assert json.loads((out / "run.json").read_text())["kind"] == "judge"
    assert json.loads((out / "summary.json").read_text())["judge"]["n_items"] == 2


def test_cli_judge_errors_are_one_line(tmp_path):
    src = tmp_path / "three.jsonl"
    src.write_text(json.dumps(ITEMS[0]) + "\n")
    one_line_error(runner.invoke(app, ["judge", str(src), "--model", "sim",
                                       "--protocol", "apoc", "--out",
                                       str(tmp_path / "o")]),
                   "three.jsonl:1", "'candidates'", "exactly 2")
    template = tmp_path / "t.txt"
    template.write_text("Rank:\n{candidates}\n{answer}\n")
    one_line_error(runner.invoke(app, ["judge", str(src), "--model", "sim",
                                       "--template", str(template)]),
                   "t.txt:3", "'{answer}'")


def test_bench_without_gold_points_to_judge(tmp_path):
    src = tmp_path / "nogold.jsonl"
    src.write_text(json.dumps(ITEMS[0]) + "\n")
    one_line_error(runner.invoke(app, ["bench", str(src), "--out", str(tmp_path / "o")]),
                   "nogold.jsonl:1", "'gold'", "jurybox judge")


def test_criteria_are_recorded_and_a_changed_prompt_is_a_new_run(tmp_path):
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    out = tmp_path / "run"
    args = ["judge", str(src), "--model", "sim", "--k", "2", "--out", str(out)]
    first = runner.invoke(app, [*args, "--criteria", "Kind to a beginner."])
    assert first.exit_code == 0, first.output
    config = json.loads((out / "run.json").read_text())["config"]
    assert config["criteria"] == "Kind to a beginner." and "template" not in config
    calls = [json.loads(line) for line in (out / "calls.jsonl").open()]
    assert all("Kind to a beginner." in c["messages"][1][1] for c in calls)
    changed = runner.invoke(app, [*args, "--criteria", "Formal tone."])
    assert changed.exit_code == 2 and "config" in changed.output.lower(), changed.output
    template = tmp_path / "t.txt"
    template.write_text("Which is best for {{me}}?\n{question}\n{candidates}\n")
    ok = runner.invoke(app, ["judge", str(src), "--model", "sim",
                             "--k", "2", "--template", str(template),
                             "--out", str(tmp_path / "run2")])
    assert ok.exit_code == 0, ok.output
    calls = [json.loads(line) for line in (tmp_path / "run2" / "calls.jsonl").open()]
    assert all(c["messages"][1][1].startswith("Which is best for {me}?") for c in calls)
    assert not any(c["error"] or c["parse_error"] for c in calls)


def test_cli_judge_dry_run_makes_no_call(tmp_path):
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    res = runner.invoke(app, ["judge", str(src), "--model", "sim", "--k", "7", "--dry-run", "--out",
                              str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    # q1: 3 candidates, 3! = 6 < 7 orders; q2: 2 orders
    assert "calls: 8 " in res.output and "no model call was made" in res.output
    assert not (tmp_path / "run").exists()


def test_cli_judge_table_prints_item_ids_literally(tmp_path):
    # ids are the user's text: rich markup in them must neither vanish nor crash the table
    src = tmp_path / "[bold]marked.jsonl"
    src.write_text(json.dumps({"id": "[/]", "prompt": "Q?", "candidates": ["a", "b"]}) + "\n"
                   + json.dumps({"id": "[bold]q2", "prompt": "Q2?", "candidates": ["c", "d"]})
                   + "\n")
    res = runner.invoke(app, ["judge", str(src), "--model", "sim",
                              "--k", "2", "--no-cache", "--out",
                              str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    assert "│ [/]" in res.output and "│ [bold]q2" in res.output
    assert "[bold]marked: 2 items" in res.output


def test_paths_with_brackets_print_as_written(tmp_path):
    # "[exp]" in a folder name is not rich markup: every command prints the path it wrote
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    out = tmp_path / "[exp]" / "run"
    res = runner.invoke(app, ["judge", str(src), "--model", "sim",
                              "--k", "2", "--no-cache", "--out", str(out)])
    assert res.exit_code == 0, res.output
    flat = "".join(res.output.split())
    assert "".join(f"judgments: {out / 'judgments.jsonl'}".split()) in flat
    res = runner.invoke(app, ["report", str(out), "--force"])
    assert "".join(f"written: {out / 'report.html'}".split()) in "".join(res.output.split())
    res = runner.invoke(app, ["export", str(out), "--format", "jsonl"])
    assert "".join(f"written: {out / 'export' / 'items.jsonl'}".split()) in \
        "".join(res.output.split())
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({**ITEMS[1], "gold": 0}) + "\n")
    bench = tmp_path / "[exp]" / "bench"
    res = runner.invoke(app, ["bench", str(gold), "--model", "sim", "--k", "2", "--no-cache",
                              "--out", str(bench)])
    assert res.exit_code == 0, res.output
    assert "".join(f"run directory: {bench}".split()) in "".join(res.output.split())


def test_cli_judge_exits_1_when_no_item_was_judged(tmp_path):
    # as bench: 1 when no item got a decision, 3 when some did not (README's exit codes)
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    args = ["judge", str(src), "--model", "sim", "--k", "2", "--no-cache", "--attempts", "1"]
    res = runner.invoke(app, [*args, "--sim-faults", "rate_malformed=1", "--out",
                              str(tmp_path / "none")])
    assert res.exit_code == 1, res.output
    assert "no item was judged" in res.output
    rows = list(read_judgments(tmp_path / "none" / "judgments.jsonl"))
    assert [(j.failed, j.winners) for j in rows] == [(True, ()), (True, ())]
    unlabelled = runner.invoke(app, [*args, "--out", str(tmp_path / "ok")])
    assert unlabelled.exit_code == 0, unlabelled.output  # no gold is no failure


def test_a_refused_judge_call_leaves_no_folder_behind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default out is runs/judge-items-... under the cwd
    with pytest.raises(ConfigError, match="unknown protocol 'pfc'"):
        jurybox.judge(ITEMS, model="sim", protocol="pfc")
    with pytest.raises(jurybox.DataError, match="same text"):
        jurybox.judge([{"id": "a", "prompt": "Q", "candidates": ["x", "x"]}], model="sim")
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []
    kept = tmp_path / "mine"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError):
        jurybox.judge(ITEMS, model="sim", protocol="pfc", out=kept)
    assert sorted(p.name for p in kept.iterdir()) == ["notes.txt"]  # only what was there


def test_integer_ids_look_up_as_given(tmp_path):
    result = jurybox.judge([{"id": 7, "prompt": "Q?", "candidates": ["a", "b"]}], model="sim", k=2,
                           out=tmp_path / "run")
    assert result.items[0].item_id == "7" and result[7] is result["7"]
    with pytest.raises(KeyError):
        result[8]


def test_judgments_that_cannot_be_written_are_one_line(tmp_path):
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    out = tmp_path / "run"
    (out / "judgments.csv").mkdir(parents=True)  # in the way, as a full disk would be
    one_line_error(runner.invoke(app, ["judge", str(src), "--model", "sim",
                                       "--k", "2", "--no-cache", "--out",
                                       str(out)]), f"cannot write {str(out / 'judgments.csv')!r}")
    assert not list(out.glob("*.tmp"))


def test_template_and_criteria_mismatch_names_the_template_file(tmp_path):
    src = tmp_path / "two.jsonl"
    src.write_text(json.dumps(ITEMS[1]) + "\n")
    with_criteria = tmp_path / "crit.txt"
    with_criteria.write_text("{criteria}\n{question}\n{candidates}\n")
    one_line_error(runner.invoke(app, ["judge", str(src), "--model", "sim",
                                       "--template", str(with_criteria)]),
                   "crit.txt", "no --criteria")
    plain = tmp_path / "plain.txt"
    plain.write_text("{question}\n{candidates}\n")
    one_line_error(runner.invoke(app, ["bench", str(src), "--criteria", "x", "--template",
                                       str(plain)]), "plain.txt", "does not place {criteria}")
    one_line_error(runner.invoke(app, ["judge", str(src), "--model", "sim", "--protocol", "pfc"]),
                   "did you mean 'pcf'", "jurybox judge takes")


def test_pairs_take_one_gold_and_items_one_id_key(tmp_path):
    pair = {"id": "p", "prompt": "Q?", "candidates": ["a", "b"], "gold": [0, 1]}
    with pytest.raises(jurybox.DataError, match=r"^items\[0\] \(id 'p'\): field 'gold': a pair "
                                                r"has one"):
        jurybox.judge([pair], model="sim", protocol="pairwise", out=tmp_path / "a")
    both = {"id": "x", "item_id": "y", "prompt": "Q?", "candidates": ["a", "b"]}
    with pytest.raises(ConfigError, match=r"items\[0\] has both 'id' and 'item_id'"):
        jurybox.judge([both], model="sim", out=tmp_path / "b")


def test_a_mistyped_protocol_reads_as_one_sentence(tmp_path):
    with pytest.raises(ConfigError) as err:
        jurybox.judge(ITEMS, model="sim", protocol="pfc", out=tmp_path / "x")
    assert str(err.value).startswith("unknown protocol 'pfc'; did you mean 'pcf'? jurybox "
                                     "judge takes direct, pcf, apoc, ")
