"""Run files changed by hand: one line naming the file and field (exit 2), an 'unreadable' row
in the index, never a traceback (each case was a traceback once)."""

import json
import shutil

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.reports.index import list_runs
from jurybox.rundir import LockHolder

runner = CliRunner()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "tqa"
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "5",
                                 "--protocols", "direct,pcf", "--k", "3", "--out", str(out),
                                 "--no-cache"])
    assert result.exit_code == 0, result.output
    return out


def _copy(run, tmp_path, name):
    dest = tmp_path / "runs" / name
    shutil.copytree(run, dest)
    return dest


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("name, damage, message", [
    ("list", lambda d: d["protocols"].__setitem__("direct", [1, 2]),
     "summary.json: field 'protocols.direct': must be a JSON object, got [1, 2]"),
    ("cut", "{\"schema\": 1, \"protocols\": ", "summary.json: is damaged (not a JSON object)"),
    ("bytes", b"{\"a\": \"\xff\"}", "summary.json: is damaged (not a JSON object)"),
])
def test_a_damaged_summary_is_one_line_and_an_unreadable_row(run, tmp_path, name, damage,
                                                              message):
    dest = _copy(run, tmp_path, name)
    summary = dest / "summary.json"
    if callable(damage):
        _edit(summary, damage)
    elif isinstance(damage, bytes):
        summary.write_bytes(damage)
    else:
        summary.write_text(damage)
    result = runner.invoke(app, ["report", str(dest), "--force"])
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output
    (entry,) = list_runs(tmp_path / "runs")
    assert entry.status == "unreadable" and message.split(": ", 1)[1][:30] in entry.note


def test_out_of_range_times_and_counts_are_shown_as_unknown(run, tmp_path):
    dest = _copy(run, tmp_path, "odd")
    # year 1 at +05:00 is before datetime's range once moved to UTC; an infinite count
    _edit(dest / "run.json", lambda d: (d.__setitem__("started", "0001-01-01T00:00:00+05:00"),
                                        d["totals"].__setitem__("model_calls", 1e400)))
    (entry,) = list_runs(tmp_path / "runs")
    assert entry.started is None and entry.status == "complete"
    result = runner.invoke(app, ["report", str(dest), "--force"])
    assert result.exit_code == 0, result.output


def test_a_lock_naming_no_possible_pid_is_not_alive():
    holder = LockHolder(pid=10 ** 23, host=__import__("socket").gethostname(), started="")
    assert holder.alive() is False


@pytest.mark.parametrize("calls", [-5, 10 ** 400])
def test_impossible_call_counts_are_unknown(run, tmp_path, calls):
    dest = _copy(run, tmp_path, "counts")
    text = (dest / "run.json").read_text()
    data = json.loads(text)
    data["totals"]["model_calls"] = 0
    (dest / "run.json").write_text(json.dumps(data).replace('"model_calls": 0',
                                                            f'"model_calls": {calls}'))
    (entry,) = list_runs(tmp_path / "runs")
    assert entry.model_calls is None and entry.status == "complete"
