"""``jurybox runs FOLDER`` and ``jurybox report FOLDER`` (a folder of runs): the table, the
index.html line, exit codes, and data printed escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.cli.runs import runs_table
from jurybox.reports import list_runs
from tests.cli_checks import one_line_error
from tests.reports.index_runs import IndexRuns, make_runs

runner = CliRunner()


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> IndexRuns:
    return make_runs(tmp_path_factory.mktemp("runs-cli"))


def test_runs_prints_one_row_per_run_and_how_to_write_the_index(real):
    result = runner.invoke(app, ["runs", str(real.root)])
    assert result.exit_code == 0, result.output
    out = result.output
    for name in ("bench", "judge", "jury/judges/a", "agree", "broken"):
        assert name in out
    assert f"7 runs in {real.root}" in out
    bench = next(e for e in list_runs(real.root) if e.name == "bench")
    assert bench.results in out and "simulated" in out
    assert "unreadable" in out and "run.json: is not valid JSON" in out
    assert out.rstrip().endswith(f"writes {real.root / 'index.html'}: this table as one page "
                                 f"linking each run's report.html")


def test_report_on_a_folder_writes_the_index(real, tmp_path):
    root = Path(shutil.copytree(real.root, tmp_path / "runs"))
    result = runner.invoke(app, ["report", str(root)])
    assert result.exit_code == 0, result.output
    # 6 runs complete, one unreadable; every run's report was current already
    assert result.output.strip() == (f"written: {root / 'index.html'} (7 runs: 6 complete, "
                                     f"1 unreadable; 0 run reports written: missing or out "
                                     f"of date)")
    listed = runner.invoke(app, ["runs", str(root)])
    assert f"index.html: {root / 'index.html'} (jurybox report {root} rewrites it" in \
        listed.output


def test_runs_in_a_run_directory_lists_that_run(real):
    result = runner.invoke(app, ["runs", str(real.root / "bench")])
    assert result.exit_code == 0, result.output
    assert "1 run in" in result.output
    assert f"its page is {real.root / 'bench' / 'report.html'}" in result.output


def test_a_missing_or_empty_folder_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "runs").mkdir()
    one_line_error(runner.invoke(app, ["runs", str(tmp_path / "run")]), "no such folder",
                   f"did you mean {str(tmp_path / 'runs')!r}")
    one_line_error(runner.invoke(app, ["runs", str(tmp_path / "runs")]),
                   "no run.json) and no run below it")
    one_line_error(runner.invoke(app, ["report", str(tmp_path / "runs")]),
                   "no run.json) and no run below it")


def test_data_in_the_table_is_printed_escaped(tmp_path):
    title, red = "\x1b]0;pwned\x07", "\x1b[31m"
    run = tmp_path / f"run{title}"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({
        "kind": "judge", "status": "complete", "dataset": {"name": f"data{red}"},
        "model": {"label": "openai/[bold]x[/bold]\u202e"}}))
    result = runner.invoke(app, ["runs", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for char in ("\x1b", "\x07", "\u202e"):
        assert char not in result.output
    assert "run\\x1b]0;pwned\\x07" in result.output and "data\\x1b[31m" in result.output
    assert "openai/[bold]x[/bold]\\u202e" in result.output  # rich markup printed as written


def test_the_table_fits_80_columns(real):
    console = Console(width=80, record=True, file=open("/dev/null", "w"), color_system=None)
    console.print(runs_table(list_runs(real.root), "runs", width=console.width))
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= 80
    bench = next(e for e in list_runs(real.root) if e.name == "bench")
    parts = bench.results.split(" · ")  # direct and pcf: one result a line when narrow
    assert len(parts) == 2 and all(any(p in line for line in lines) for p in parts)
    assert not any(parts[0] in line and parts[1] in line for line in lines)
    assert any(line.startswith("bench · truthfulqa ·") for line in lines)  # kind, data


def test_a_priced_run_keeps_every_column_whole_at_80_columns(real):
    from dataclasses import replace
    from datetime import datetime, timezone

    runs = [replace(e, usd=0.024, started=datetime(2026, 12, 2, 17, 55, tzinfo=timezone.utc))
            for e in list_runs(real.root)]
    console = Console(width=80, record=True, file=open("/dev/null", "w"), color_system=None)
    console.print(runs_table(runs, "runs", width=console.width))
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= 80
    header = next(line for line in lines if line.startswith("run "))
    assert header.split()[-3:] == ["calls", "USD", "started"]  # no header cut ("starte")
    assert sum("0.0240" in line and "12-02 17:55" in line for line in lines) == len(runs)
