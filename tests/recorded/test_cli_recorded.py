"""``jurybox score`` on recorded judgments, end to end (no model call)."""

import json

from typer.testing import CliRunner

from jurybox.cli import app

from ..cli_checks import one_line_error
from .helpers import record, round_, write_result

runner = CliRunner()


def test_score_bundled_llmbar_mt_bench_with_jury_and_summary(tmp_path):
    result = runner.invoke(app, ["score", "llmbar", "--subset", "Processed/MT-Bench",
                                 "--detail", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "reproduced exactly for 8 of 8 files" in out
    assert "jury on Processed/MT-Bench, Vanilla_NoRules: 4 judges, 200 pairs" in out
    assert "GPT-4 (best)" in out and "disagrees with the jury most" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    gpt4 = next(s for s in summary["scores"] if (s["judge"], s["strategy"]) == (
        "GPT-4", "Vanilla_NoRules"))
    assert gpt4["n"] == 200 and gpt4["llmbar_written"]["correct_both"] == "149 / 200 = 74.5%"
    assert gpt4["reference_mismatches"] == []
    jury = next(j for j in summary["juries"] if j["strategy"] == "Vanilla_NoRules")
    assert jury["best_judge"] == "GPT-4" and len(jury["pairwise"]["matrix"]) == 4
    assert jury["alpha"]["level"] == "nominal"


def test_weights_and_filters(tmp_path):
    result = runner.invoke(app, ["score", "llmbar", "--subset", "Processed/MT-Bench",
                                 "--strategy", "Vanilla_NoRules", "--weights", "GPT-4=3",
                                 "--detail"])
    assert result.exit_code == 0, result.output
    assert "(weighted)" in result.output and "GPT-4 (best) w=3" in result.output
    assert "Metrics_Reference" not in result.output
    one_line_error(runner.invoke(app, ["score", "llmbar", "--weights", "GTP-4=3"]),
                   "--weights", "did you mean 'GPT-4'")
    one_line_error(runner.invoke(app, ["score", "llmbar", "--weights", "GPT-4=-1"]),
                   "finite number >= 0")
    one_line_error(runner.invoke(app, ["score", "llmbar", "--weights", "GPT-4"]),
                   "not judge=weight")
    one_line_error(runner.invoke(app, ["score", "llmbar", "--judge", "GPT4"]),
                   "--judge", "did you mean 'GPT-4'")
    one_line_error(runner.invoke(app, ["score", "arena-hard-haiku", "--judge", "x"]),
                   "apply to recorded judgments")


def test_a_result_json_a_judge_folder_and_a_tree(tmp_path):
    records = [record(1, round_("1", "1")), record(2, round_("1", "2"))]
    stats = {"correct_False": "1 / 2 = 50.0%", "correct_True": "2 / 2 = 100.0%",
             "correct_average": "75.0%", "correct_both": "1 / 2 = 50.0%",
             "equal": "1 / 2 = 50.0%"}
    path = write_result(tmp_path, records, statistics=stats)
    write_result(tmp_path, records, judge="PaLM2", statistics=stats)
    for target, files in ((path, 1), (path.parent.parent, 1), (tmp_path / "Dataset", 2)):
        result = runner.invoke(app, ["score", str(target), "--detail"])
        assert result.exit_code == 0, result.output
        assert f"reproduced exactly for {files} of {files} files" in result.output
    assert "jury on LLMBar/Natural, Vanilla: 2 judges, 2 pairs" in result.output


def test_generic_recorded_jsonl(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps({"id": "q", "label": "tie", "judges": {"a": ["tie", "tie"]}})
                    + "\n")
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 0, result.output
    assert "mine: 1 pairs" in result.output


def test_bad_recorded_input_is_one_line(tmp_path):
    path = write_result(tmp_path, [record(1, round_("1", "x"))])
    one_line_error(runner.invoke(app, ["score", str(path)]), "result.json",
                   "[0].results[0].swap = True.winner", "record 0")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "q", "label": "C", "judges": {"a": ["A", "A"]}}) + "\n")
    one_line_error(runner.invoke(app, ["score", str(bad)]), "bad.jsonl:1", "'label'")
    one_line_error(runner.invoke(app, ["score", "llmbr"]), "did you mean 'llmbar'")


def test_default_is_the_position_table_of_one_strategy_and_detail_is_everything():
    short = runner.invoke(app, ["score", "llmbar", "--subset", "Processed/MT-Bench"])
    assert short.exit_code == 0, short.output
    lines = short.output.splitlines()
    assert lines[0].startswith("o1, o2: accuracy in each presentation order")
    # GPT-4, Vanilla_NoRules on MT-Bench, LLMBar's own statistics.json: correct_False 159 /
    # 200, correct_True 165 / 200, correct_both 149 / 200 (no verdict unparsed, no tie: the
    # net rule's both-orders figure is correct_both), equal 174 / 200
    gpt4 = next(line for line in lines if line.startswith("GPT-4 ")).split()
    assert gpt4[:4] == ["GPT-4", "79.5", "82.5", "74.5"] and gpt4[5] == "87.0"
    assert gpt4[-1] == "0"
    assert "Processed/MT-Bench, Vanilla_NoRules: 200 pairs" in short.output
    assert "Metrics_Reference" not in short.output and "jury on" not in short.output
    assert "--detail" in short.output
    detail = runner.invoke(app, ["score", "llmbar", "--subset", "Processed/MT-Bench",
                                 "--detail"])
    assert "Metrics_Reference" in detail.output and "jury on" in detail.output
    assert detail.output.splitlines()[0].startswith("o1, o2: accuracy in each order")


def test_detail_is_for_recorded_judgments_and_in_help():
    one_line_error(runner.invoke(app, ["score", "arena-hard-haiku", "--detail"]),
                   "--detail", "apply to recorded judgments")
    shown = runner.invoke(app, ["score", "--help"], env={"COLUMNS": "200"}).output
    assert "--detail" in shown and "every strategy" in shown
