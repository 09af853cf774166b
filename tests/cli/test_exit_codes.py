"""Exit codes: 0 complete, 1 nothing judged, 2 bad input, 3 partial, 130/143 interrupted."""

import json

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.rundir import read_jsonl

runner = CliRunner()


def _args(tmp_path, *extra):
    return ["bench", "truthfulqa", "--model", "sim", "--limit", "12", "--k", "2",
            "--protocols", "direct", "--out", str(tmp_path / "run"), "--cache",
            str(tmp_path / "c.sqlite"), *extra]


def test_a_run_with_failed_items_is_partial_exit_3_and_a_rerun_retries_them(tmp_path):
    # one attempt per call and 30% injected 500s: some items end without a decision
    first = runner.invoke(app, _args(tmp_path, "--attempts", "1", "--sim-faults",
                                     "rate_500=0.3"))
    assert first.exit_code == 3, first.output
    failed = [r for r in read_jsonl(tmp_path / "run" / "items.jsonl") if r["failed"]]
    assert failed and all(r["failures"] == ["api"] for r in failed)
    assert (f"partial: {len(failed)} of 12 items have no decision. {len(failed)} from API "
            f"errors: rerun the same command to judge them again.") in first.output
    assert "unusable" not in first.output
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "partial"
    assert manifest["sessions"][0]["failed_units"] == {"units": len(failed), "api": len(failed)}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["status"] == "partial" and summary["failed_units"]["units"] == len(failed)
    # the rerun meets different injected faults (keyed by session) and judges them again;
    # a few may fail again at 30%: rerun until complete, at most 5 sessions
    sessions = 1
    while sessions < 6:
        sessions += 1
        again = runner.invoke(app, _args(tmp_path, "--attempts", "1", "--sim-faults",
                                         "rate_500=0.3"))
        if again.exit_code == 0:
            break
        assert again.exit_code == 3
    assert again.exit_code == 0, again.output
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["sessions"]) == sessions


def test_unparseable_answers_are_partial_and_say_a_rerun_serves_the_same(tmp_path):
    result = runner.invoke(app, _args(tmp_path, "--sim-faults", "rate_refusal=0.4"))
    assert result.exit_code == 3, result.output
    assert "from API errors" not in result.output
    assert "from unusable or refused answers, recorded in calls.jsonl" in result.output


def test_a_clean_run_exits_0(tmp_path):
    result = runner.invoke(app, _args(tmp_path))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "complete"
