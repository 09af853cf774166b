"""Writing a report reads what the run recorded and computes no statistic again: it loads
neither numpy nor scipy (scipy alone took about 3.6 s of every report before). What is
loaded is what the time follows; the time itself is measured in benchmarks/report_speed.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from jurybox.cli import app


@pytest.mark.parametrize("dataset, protocols", [("truthfulqa", "direct,pcf"),
                                                ("judgebench", "pairwise,both-orders,apoc")])
def test_writing_a_report_loads_neither_numpy_nor_scipy(tmp_path, dataset, protocols):
    out = tmp_path / "run"
    done = CliRunner().invoke(app, ["bench", dataset, "--model", "sim", "--limit", "4",
                                    "--k", "3", "--protocols", protocols, "--no-cache",
                                    "--out", str(out)])
    assert done.exit_code == 0, done.output
    probe = ("import json, sys\nfrom jurybox.reports import write_report\n"
             f"write_report({str(out)!r})\n"
             "print(json.dumps(sorted(m for m in ('numpy', 'scipy') if m in sys.modules)))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []
    assert "fixed: " in (out / "report.html").read_text(encoding="utf-8")  # it was written
