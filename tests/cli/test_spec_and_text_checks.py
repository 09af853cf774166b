"""A dry run refuses what a run refuses (the judge's spec), repeated --sim-faults keys,
--min-k above --k, and criteria that are not UTF-8: one line, exit 2, no run folder."""

import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app

from ..cli_checks import one_line_error

runner = CliRunner()


def _two(tmp_path):
    data = tmp_path / "two.jsonl"
    data.write_text(json.dumps({"id": "q1", "prompt": "Q?", "candidates": ["x", "y", "z"]})
                    + "\n")
    return str(data)


SPEC_ERRORS = [
    (["--model", ""], "model spec '' must look like 'provider/model'"),
    (["--model", "nosuch/x"], "unknown provider 'nosuch' in 'nosuch/x'"),
    (["--model", "vllm/m", "--base-url", " "], "--base-url is empty"),
]


@pytest.mark.parametrize("dry", [["--dry-run"], []], ids=["dry-run", "run"])
@pytest.mark.parametrize("extra, fragment", SPEC_ERRORS)
def test_judge_refuses_a_bad_spec_in_a_dry_run_as_in_a_run(tmp_path, dry, extra, fragment):
    result = runner.invoke(app, ["judge", _two(tmp_path), "--out", str(tmp_path / "run"),
                                 *extra, *dry])
    one_line_error(result, fragment)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("command", [
    ["bench", "truthfulqa", "--limit", "2"],
    ["personalize", "squality", "--rubric", "squality", "--limit", "1", "--raters", "1"],
])
def test_bench_and_personalize_dry_runs_check_the_spec_too(tmp_path, command):
    for extra, fragment in SPEC_ERRORS:
        result = runner.invoke(app, [*command, "--dry-run", *extra])
        one_line_error(result, fragment)


def test_a_fault_given_twice_is_refused_naming_it(tmp_path):
    result = runner.invoke(app, ["judge", _two(tmp_path), "--model", "sim", "--dry-run",
                                 "--sim-faults",
                                 "rate_429=0.1,rate_500=0.1,rate_429=0.2"])
    one_line_error(result, "--sim-faults sets rate_429 more than once")


@pytest.mark.parametrize("command", [["judge", "FILE", "--model", "sim"],
                                     ["bench", "truthfulqa", "--limit", "2"]])
def test_min_k_above_k_is_refused_naming_both(tmp_path, command):
    command = [_two(tmp_path) if c == "FILE" else c for c in command]
    args = [*command, "--adaptive", "sequential", "--k", "4", "--out", str(tmp_path / "run")]
    one_line_error(runner.invoke(app, [*args, "--min-k", "5"]),
                   "--min-k 5 is above --k 4")
    one_line_error(runner.invoke(app, [*args, "--min-k", "5", "--dry-run"]),
                   "--min-k 5 is above --k 4")
    assert not (tmp_path / "run").exists()
    assert runner.invoke(app, [*args, "--min-k", "4", "--dry-run"]).exit_code == 0


def test_criteria_that_are_not_utf8_are_one_line_before_the_run_folder(tmp_path):
    # a byte that is not UTF-8 reaches Python's argv as a surrogate (surrogateescape)
    criteria = b"correct\nand \xff useful".decode("utf-8", "surrogateescape")
    result = runner.invoke(app, ["judge", _two(tmp_path), "--model", "sim", "--criteria", criteria,
                                 "--out", str(tmp_path / "run"), "--no-cache"])
    one_line_error(result, "criteria is not UTF-8 text: byte 0xff at byte offset 12 (line 2)")
    assert not (tmp_path / "run").exists()


def test_a_command_line_byte_that_is_not_utf8_is_recorded_as_a_replacement(tmp_path,
                                                                          monkeypatch):
    out = tmp_path / "run"
    cache = str(tmp_path / "c\udcff.sqlite")  # b"c\xff.sqlite" as Python's argv holds it
    monkeypatch.setattr("sys.argv", ["jurybox", "judge", "two.jsonl", "--cache", cache])
    result = runner.invoke(app, ["judge", _two(tmp_path), "--model", "sim", "--out", str(out),
                                 "--cache", cache])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert manifest["command"][-1] == str(tmp_path / "c\ufffd.sqlite")
    assert manifest["options"]["cache"] == str(tmp_path / "c\ufffd.sqlite")
    assert not list(out.glob("*.tmp"))
