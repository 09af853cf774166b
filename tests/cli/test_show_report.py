"""``jurybox show`` and ``jurybox report`` on a recorded run (no model calls)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.compare import BenchConfig, run_bench
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from tests.cli_checks import one_line_error
from tests.conftest import FAST_RETRY

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("show") / "run"
    run_bench(BenchConfig(dataset="truthfulqa", limit=5, k=3), out,
              options=RunOptions(cache_path=None, retry=FAST_RETRY, concurrency=4))
    return out


def test_show_prints_orders_scores_and_raw_texts(run_dir):
    record = next(r for r in read_jsonl(run_dir / "items.jsonl") if r["protocol"] == "pcf")
    result = runner.invoke(app, ["show", str(run_dir), record["item_id"]])
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"item {record['item_id']} (listwise)" in out
    for j in range(record["n_calls"]):
        assert f"perm{j}" in out
    winners = ", ".join(f"#{w}" for w in record["winners"])
    assert f"pcf: winners {winners}" in out
    assert '"ranking"' in out  # the raw judge text
    assert "Reply with only" not in out  # prompts only with --prompts
    with_prompts = runner.invoke(app, ["show", str(run_dir), record["item_id"], "--prompts"])
    assert "Reply with only the JSON object" in with_prompts.output


def test_show_unknown_item_suggests_close_ids(run_dir):
    known = read_jsonl(run_dir / "items.jsonl")[0]["item_id"]
    typo = known[:-1] + ("x" if known[-1] != "x" else "y")
    line = one_line_error(runner.invoke(app, ["show", str(run_dir), typo]),
                          f"no item {typo!r}", "did you mean", repr(known))
    assert "items.jsonl" in line
    number = known.rpartition("-")[2]  # "tqa-54" typed as "54"
    one_line_error(runner.invoke(app, ["show", str(run_dir), number]),
                   f"no item {number!r}", f"did you mean {known!r}")


def test_report_on_a_file_is_one_line(tmp_path):
    data = tmp_path / "two.jsonl"
    data.write_text("{}\n")
    line = one_line_error(runner.invoke(app, ["report", str(data)]), "two.jsonl")
    assert "Errno" not in line


def test_show_and_report_refuse_a_folder_without_a_run(tmp_path):
    one_line_error(runner.invoke(app, ["show", str(tmp_path), "x"]), "no run.json")
    one_line_error(runner.invoke(app, ["report", str(tmp_path)]), "no run.json")


def test_report_rewrites_the_page(run_dir):
    page = run_dir / "report.html"
    page.unlink()
    result = runner.invoke(app, ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    assert f"written: {page}" in " ".join(result.output.split())
    assert "pcf: accuracy on the first k orders" in page.read_text(encoding="utf-8")


def test_report_that_cannot_be_written_is_one_line(run_dir, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    (copy / "report.html").unlink()
    (copy / "report.html").mkdir()  # in the way (as a read-only folder or full disk would be)
    one_line_error(runner.invoke(app, ["report", str(copy)]),
                   f"cannot write {str(copy / 'report.html')!r}")
    assert not (copy / "report.html.tmp").exists()


@pytest.mark.parametrize("name, field, value", [("run.json", "dataset", 3),
                                                ("run.json", "protocols", {"a": 1}),
                                                ("summary.json", "protocols", 5)])
def test_hand_edited_files_with_wrong_types_are_one_line(run_dir, tmp_path, name, field, value):
    import json
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    data = json.loads((copy / name).read_text())
    data[field] = value
    (copy / name).write_text(json.dumps(data))
    for command in (["report", str(copy)], ["show", str(copy), "x"]):
        one_line_error(runner.invoke(app, command), name, f"field {field!r}", "must be a JSON")
