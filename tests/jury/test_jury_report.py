"""A jury's report.html (judge-agreement heatmap, per-judge columns in the item browser) and
its export tables (per-judge columns; every judge's calls with a judge column)."""

import csv

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.compare import BenchConfig
from jurybox.jury import jury_of, run_jury
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions

JUDGES = [{"name": "first", "model": "sim", "sim": {"bias": "primacy", "seed": 1}},
          {"name": "last", "model": "sim", "sim": {"bias": "recency", "seed": 2}}]


def _run(tmp_path):
    return run_jury(BenchConfig(dataset="judgebench", protocols=("both-orders",), limit=3),
                    jury_of(JUDGES), tmp_path / "run", options=RunOptions())


def test_report_has_the_heatmap_and_a_column_per_judge(tmp_path):
    result = _run(tmp_path)
    page = (result.out / "report.html").read_text()
    assert "pairwise Krippendorff&#39;s alpha (nominal), both-orders" in page
    assert "<svg" in page and "<title>first / last:" in page
    assert "<th>jury</th><th>first</th><th>last</th>" in page
    assert page.count("<tr><td>") >= len(result.records)  # one browser row per record
    (result.out / "report.html").unlink()
    assert CliRunner().invoke(app, ["report", str(result.out)]).exit_code == 0
    assert (result.out / "report.html").read_text() == page


def test_export_spreads_each_judge_and_lists_every_call(tmp_path):
    result = _run(tmp_path)
    got = CliRunner().invoke(app, ["export", str(result.out)])
    assert got.exit_code == 0, got.output
    with (result.out / "export" / "items.csv").open() as fh:
        items = list(csv.DictReader(fh))
    assert [r["verdict"] for r in items] == [r["verdict"] or "" for r in result.records]
    assert [r["last.verdict"] for r in items] == \
        [r["judges"]["last"]["verdict"] or "" for r in result.records]
    with (result.out / "export" / "calls.csv").open() as fh:
        calls = list(csv.DictReader(fh))
    per_judge = {n: len(read_jsonl(result.out / "judges" / n / "calls.jsonl"))
                 for n in ("first", "last")}
    assert [c["judge"] for c in calls] == ["first"] * per_judge["first"] + \
        ["last"] * per_judge["last"]
