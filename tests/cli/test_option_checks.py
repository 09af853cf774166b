"""Options and paths a break-test found accepted or crashing: each one line, exit 2, before
any model call, and nothing of another run overwritten."""

import hashlib
import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app

from ..cli_checks import one_line_error

runner = CliRunner()
BASE = ["bench", "truthfulqa", "--model", "sim", "--limit", "2", "--k", "2"]


@pytest.mark.parametrize("extra, fragment", [
    (["--timeout", "inf"], "'--timeout'"),  # above the bound: typer's range check
    (["--temperature", "inf"], "'--temperature'"),  # above the bound: typer's range check
    (["--sim-latency-ms", "inf"], "latency_ms: Input should be a finite number"),
    (["--sim-faults", "rate_500=0.6,rate_429=0.6"],
     "rate_429 + rate_500 + rate_slow must be at most 1 (one roll), got 1.2"),
    (["--sim-faults", "rate_malformed=0.5,rate_refusal=0.6"],
     "rate_malformed + rate_truncated + rate_refusal must be at most 1"),
    (["--sim-faults", "rate_500=nan"], "rate_500: Input should be a finite number"),
    (["--weights", "1,1,1,1,"], "--weights needs 4 finite numbers"),
    (["--model", "vllm/m", "--base-url", ""], "--base-url is empty"),
])
def test_bad_option_values_are_one_line_before_any_call(tmp_path, extra, fragment):
    result = runner.invoke(app, [*BASE, "--out", str(tmp_path / "run"), *extra])
    one_line_error(result, fragment)
    assert not (tmp_path / "run" / "calls.jsonl").exists()


def test_an_empty_out_is_refused_not_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, [*BASE, "--out", ""])
    assert result.exit_code == 2 and "is empty" in result.output
    assert list(tmp_path.iterdir()) == []


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def test_score_never_overwrites_another_run_and_checks_its_out(tmp_path):
    for name in ("a", "b"):
        assert runner.invoke(app, [*BASE, "--out", str(tmp_path / name), "--no-cache"]
                             ).exit_code == 0
    before = _digest(tmp_path / "b")
    one_line_error(runner.invoke(app, ["score", str(tmp_path / "a"), "--out", str(tmp_path / "b")]),
              "holds another run (not one jurybox score wrote)")
    assert _digest(tmp_path / "b") == before
    (tmp_path / "file").write_text("x")
    one_line_error(runner.invoke(app, ["score", str(tmp_path / "a"), "--out",
                                  str(tmp_path / "file")]), "not a directory")
    # a folder score wrote is rewritten each time
    for _ in range(2):
        assert runner.invoke(app, ["score", str(tmp_path / "a"), "--out",
                                   str(tmp_path / "r")]).exit_code == 0


def test_score_refuses_other_kinds_of_run_and_empty_call_logs(tmp_path):
    assert runner.invoke(app, [*BASE, "--out", str(tmp_path / "a"), "--no-cache"]
                         ).exit_code == 0
    manifest = json.loads((tmp_path / "a" / "run.json").read_text())
    (tmp_path / "a" / "run.json").write_text(json.dumps({**manifest, "kind": "personalize"}))
    one_line_error(runner.invoke(app, ["score", str(tmp_path / "a")]),
              "is a 'personalize' run; jurybox score replays bench runs")
    (tmp_path / "a" / "run.json").write_text(json.dumps(manifest))
    (tmp_path / "a" / "calls.jsonl").write_bytes(b"\x00\xff garbage\n")
    one_line_error(runner.invoke(app, ["score", str(tmp_path / "a")]),
              "holds no recorded answer to replay")


def test_the_simulated_judge_takes_no_other_model_name(tmp_path):
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model", "sim/x", "--limit",
                                       "2", "--out", str(tmp_path / "o")]),
                   "the simulated judge has one model: use --model sim")
