import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app

from ..cli_checks import one_line_error

runner = CliRunner()


def test_bench_end_to_end_and_rerun(tmp_path):
    args = ["bench", "rewardbench2-sample", "--model", "sim", "--k", "4", "--out",
            str(tmp_path / "run"), "--cache", str(tmp_path / "c.sqlite")]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "SIMULATED" in first.output and "pcf" in first.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["n_items"] == 8 and summary["protocols"]["pcf"]["calls_planned"] == 32
    second = runner.invoke(app, args)
    assert second.exit_code == 0 and "model calls this run: 0" in second.output


def test_bad_inputs_exit_2_with_one_line(tmp_path):
    missing = runner.invoke(app, ["bench", str(tmp_path / "none.jsonl"), "--out",
                                  str(tmp_path / "o")])
    one_line_error(missing, "none.jsonl", "file not found")

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "a", "prompt": "Q?", "candidates": ["x"], "gold": 0}) + "\n")
    one_line_error(runner.invoke(app, ["bench", str(bad), "--out", str(tmp_path / "o2")]),
                    "bad.jsonl:1", "'candidates'", "at least 2")

    cols = tmp_path / "cols.csv"
    cols.write_text("Question,Answer\nQ?,A\n")
    one_line_error(runner.invoke(app, ["bench", str(cols), "--out", str(tmp_path / "o3")]),
                    "cols.csv:1", "'Best Answer'")

    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--protocols", "direct,magic",
                                        "--out", str(tmp_path / "o4")]), "unknown protocol")


def test_missing_api_key_fails_before_any_work(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "openai/gpt-4o-mini",
                                 "--out", str(tmp_path / "o")])
    one_line_error(result, "OPENAI_API_KEY")
    assert not (tmp_path / "o" / "calls.jsonl").exists()


def test_help_names_units_and_defaults():
    result = runner.invoke(app, ["bench", "--help"])
    assert result.exit_code == 0
    for fragment in ("--k", "--concurrency", "seconds", "JURYBOX_MODEL"):
        assert fragment in result.output


def test_bad_options_are_one_line_errors(tmp_path):
    out = ["--out", str(tmp_path / "o"), "--cache", str(tmp_path / "c.sqlite")]
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--protocols", ",", *out]),
                    "--protocols names no protocol")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--tolerance", "-1", *out]),
                    "tolerance must be a finite number >= 0")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--weights", "0,0,0,0", *out]),
                    "--weights needs 4 finite numbers >= 0")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--sim-faults", "rate_429=2",
                                        *out]), "--sim-faults: rate_429")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--sim-faults", "rate_429=abc",
                                        *out]), "'abc' is not a number")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--cache", str(tmp_path),
                                        "--out", str(tmp_path / "o5")]),
                    "as the response cache")
    one_line_error(runner.invoke(app, ["serve-sim", "--bias", "sideways"]),
                    "--bias must be one of")


@pytest.mark.parametrize("option, value, fragments", [
    # inf ran and reported 27% with every candidate a winner; nan crashed mid-run in credit
    ("--weights", "inf,1,1,1", ("--weights needs 4 finite numbers", "'inf,1,1,1'")),
    ("--weights", "nan,1,1,1", ("--weights needs 4 finite numbers", "'nan,1,1,1'")),
    ("--weights", "1,-inf,1,1", ("--weights needs 4 finite numbers",)),
    ("--weights", "1e308,1e308,0,0", ("--weights needs 4 finite numbers",)),  # C_i overflows
    ("--tolerance", "nan", ("protocol 'pcf'", "tolerance must be a finite number", "nan")),
    ("--tolerance", "inf", ("protocol 'pcf'", "tolerance must be a finite number", "inf")),
])
def test_non_finite_weights_and_tolerance_exit_2_before_any_call(tmp_path, option, value,
                                                                 fragments):
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--protocols", "pcf",
                                 option, value, "--limit", "5", "--out", str(tmp_path / "o"),
                                 "--cache", str(tmp_path / "c.sqlite")])
    one_line_error(result, *fragments)
    assert not (tmp_path / "o").exists() and not (tmp_path / "c.sqlite").exists()


def test_a_run_where_every_call_failed_exits_1(tmp_path):
    result = runner.invoke(app, ["bench", "rewardbench2-sample", "--k", "2", "--sim-faults",
                                 "rate_refusal=1", "--out", str(tmp_path / "o"), "--cache",
                                 str(tmp_path / "c.sqlite")])
    assert result.exit_code == 1
    assert "no item was judged: every call failed" in result.output


def test_bench_judgebench_through_the_cli_and_score_the_recording(tmp_path):
    args = ["bench", "judgebench", "--model", "sim", "--protocols", "pairwise,both-orders,apoc",
            "--limit", "5", "--out", str(tmp_path / "jb"), "--cache", str(tmp_path / "c.sqlite")]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "JudgeBench's two-order rule (both-orders)" in first.output
    assert "model calls this run: 0" in runner.invoke(app, args).output
    scored = runner.invoke(app, ["score", "arena-hard-haiku"])
    assert scored.exit_code == 0, scored.output
    assert "0 of 540 judgments differ" in scored.output
    rescored = runner.invoke(app, ["score", str(tmp_path / "jb")])
    assert rescored.exit_code == 0 and "no model calls" in rescored.output


def test_bench_pairwise_rule_strict_through_the_cli(tmp_path):
    args = ["bench", "judgebench", "--model", "sim", "--protocols", "pairwise,both-orders",
            "--pairwise-rule", "strict", "--limit", "5", "--out", str(tmp_path / "jb"),
            "--cache", str(tmp_path / "c.sqlite")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "both-orders (strict)" in result.output  # the table names the rule
    manifest = json.loads((tmp_path / "jb" / "run.json").read_text())
    assert [p["params"].get("rule") for p in manifest["protocols"]] == [None, "strict"]
    rescored = runner.invoke(app, ["score", str(tmp_path / "jb")])  # replays with the rule
    assert rescored.exit_code == 0 and "both-orders (strict)" in rescored.output
    one_line_error(runner.invoke(app, ["bench", "judgebench", "--pairwise-rule", "lax",
                                        "--out", str(tmp_path / "o")]),
                    "protocol 'both-orders': rule must be one of net, strict, got 'lax'")
    assert "--pairwise-rule" in runner.invoke(app, ["bench", "--help"]).output


def test_agreement_command_writes_summary_and_plots(tmp_path):
    result = runner.invoke(app, ["agreement", "squality", "--resamples", "100", "--out",
                                 str(tmp_path / "agr")])
    assert result.exit_code == 0, result.output
    assert "correctness" in result.output and "mean Jaccard" in result.output
    summary = json.loads((tmp_path / "agr" / "summary.json").read_text())
    assert [g["key"]["dimension"] for g in summary["groups"]] == ["correctness", "selection",
                                                                   "overall"]
    assert (tmp_path / "agr" / "alpha.png").stat().st_size > 1000
    assert (tmp_path / "agr" / "jaccard_03_overall.png").exists()
    one_line_error(runner.invoke(app, ["agreement", "squality", "--by", "domain", "--out",
                                        str(tmp_path / "agr2")]), "--by must include dimension")
    one_line_error(runner.invoke(app, ["agreement", "squality", "--level", "fuzzy"]),
                    "--level must be one of")
    one_line_error(runner.invoke(app, ["agreement", str(tmp_path / "none.csv")]),
                    "file not found")


def test_agreement_on_ratings_without_pairable_values_is_one_line(tmp_path):
    solo = tmp_path / "solo.csv"  # one rater: alpha was NaN, now an input error
    solo.write_text("item_id,rater_id,dimension,score\n" + "".join(
        f"i{k},r1,overall,{k % 3}\n" for k in range(5)))
    one_line_error(runner.invoke(app, ["agreement", str(solo), "--out", str(tmp_path / "a")]),
                    "solo.csv:", "no group has ratings to measure agreement on",
                    "group 'overall': a single rater (r1)")
    apart = tmp_path / "apart.csv"  # two raters, never on the same item
    apart.write_text("item_id,rater_id,dimension,score\ni1,r1,overall,1\ni2,r2,overall,2\n")
    one_line_error(runner.invoke(app, ["agreement", str(apart), "--out", str(tmp_path / "b")]),
                    "apart.csv:", "no item rated by two of the 2 raters")


def test_personalize_end_to_end_and_rerun(tmp_path):
    args = ["personalize", "squality", "--rubric", "squality", "--dimensions", "overall",
            "--raters", "3", "--limit", "6", "--shots", "0,2", "--seeds", "2", "--out",
            str(tmp_path / "p"), "--cache", str(tmp_path / "c.sqlite")]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    for fragment in ("zero-shot@0", "aggregate@2", "personalized@2", "SIMULATED"):
        assert fragment in first.output
    summary = json.loads((tmp_path / "p" / "summary.json").read_text())
    assert [r["condition"] for r in summary["alignment"]] == ["zero-shot@0", "aggregate@2",
                                                              "personalized@2"]
    assert all(r["units"] == 18 and r["alpha"]["ci"] for r in summary["alignment"])
    calls = [json.loads(line) for line in (tmp_path / "p" / "calls.jsonl").read_text()
             .splitlines()]
    assert calls and all(c["text"] for c in calls)  # every raw output kept
    assert "model calls this run: 0" in runner.invoke(app, args).output
    one_line_error(runner.invoke(app, ["personalize", "squality", "--rubric", "squality",
                                        "--configs", "random", "--out", str(tmp_path / "q")]),
                    "--configs takes")
    one_line_error(runner.invoke(app, ["personalize", "squality"]), "--rubric is required")


def test_version_and_help_protocol_names_match_the_registry():
    from jurybox import __version__
    from jurybox.cli.bench import LISTWISE_PROTOCOLS, PAIRWISE_PROTOCOLS
    from jurybox.protocols import protocol_names

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"jurybox {__version__}"
    assert LISTWISE_PROTOCOLS.split(",") == protocol_names("listwise")
    assert PAIRWISE_PROTOCOLS.split(",") == protocol_names("pairwise")


def test_every_judging_command_takes_the_same_run_options():
    shared = ("--concurrency", "--attempts", "--timeout", "--transport", "--cache",
              "--no-cache", "--base-url", "--seed", "--out", "--model")
    for command in ("bench", "personalize"):
        text = runner.invoke(app, [command, "--help"]).output
        assert all(option in text for option in shared), (command, text)


def test_personalize_accepts_run_options_and_judges_without_a_cache(tmp_path):
    args = ["personalize", "squality", "--rubric", "squality", "--dimensions", "overall",
            "--raters", "2", "--limit", "2", "--shots", "0", "--seeds", "1", "--no-cache",
            "--attempts", "2", "--timeout", "5", "--transport", "aiohttp", "--concurrency", "2",
            "--out", str(tmp_path / "p")]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    manifest = json.loads((tmp_path / "p" / "run.json").read_text())
    assert manifest["options"]["cache"] is None and manifest["options"]["attempts"] == 2
    assert manifest["protocols"][0]["name"] == "zero-shot@0"
    assert manifest["protocols"][0]["params"]["seeds"] == 1


def test_personalize_with_result_marker_answers(tmp_path):
    args = ["personalize", "squality", "--rubric", "squality", "--dimensions", "overall",
            "--raters", "2", "--limit", "3", "--shots", "0,2", "--seeds", "2", "--no-cache",
            "--answer-format", "result-marker", "--structured", "json-schema",
            "--out", str(tmp_path / "p")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    calls = [json.loads(line) for line in (tmp_path / "p" / "calls.jsonl").read_text()
             .splitlines()]
    # 2 raters x 3 items = 6 units, x 3 conditions x 2 seeds = 36 asks
    assert sum(len(c["meta"]["calls"]) for c in calls) == 36
    assert all("\n[RESULT] " in c["text"] for c in calls)
    assert all(c["parse_error"] is None for c in calls)
    # no JSON schema: no structured output asked for, even under --structured json-schema
    assert all(c["answer_format"] is None for c in calls)
    assert all('"Feedback: <your feedback> [RESULT] <an integer 0-100>"' in c["messages"][1][1]
               for c in calls)
    manifest = json.loads((tmp_path / "p" / "run.json").read_text())
    assert manifest["config"]["answer_format"] == "result-marker"
    assert {p["params"]["answer_format"] for p in manifest["protocols"]} == {"result-marker"}
    summary = json.loads((tmp_path / "p" / "summary.json").read_text())
    # every unit scored: confidence 100 passes the default threshold of 80
    assert all(r["units"] == 6 and r["scored"] == 6 for r in summary["alignment"])
    one_line_error(runner.invoke(app, args[:-2] + ["--answer-format", "xml", "--out",
                                                   str(tmp_path / "q")]),
                    "--answer-format must be one of json, result-marker, got 'xml'")
