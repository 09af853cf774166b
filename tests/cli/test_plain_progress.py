"""Off a terminal: a plain progress line at a bounded rate, and none for a short run."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jurybox.cli._plain_progress import DEFAULT_INTERVAL_S, progress_interval
from jurybox.cli._progress import BenchProgress
from jurybox.errors import ConfigError
from jurybox.runner.records import CallRecord, Usage

SRC = Path(__file__).resolve().parents[2] / "src"


def _call(**fields):
    return CallRecord(**{"key": "k", "meta": {}, "attempts": 1, "outcome": "ok",
                         "usage": Usage(prompt_tokens=9, completion_tokens=1), **fields})


def _plain(interval):
    now, out = [0.0], io.StringIO()
    progress = BenchProgress(clock=lambda: now[0], interval=interval, stream=out)
    assert progress.plain is not None  # stderr is no terminal under pytest
    progress.on_start(100, 0)
    return progress, now, out


def test_lines_are_at_most_one_an_interval_with_the_counts():
    progress, now, out = _plain(10.0)
    for second in range(1, 31):  # an item and a call every second for 30 s
        now[0] = float(second)
        progress.on_call(_call())
        progress.on_item(object())
    progress.on_call(_call(outcome="api", error="HTTP 500"))
    now[0] = 30.0
    progress.__exit__(None, None, None)
    lines = out.getvalue().splitlines()
    # at 10, 20 and 30 s, on the call ending then (10 calls, 9 items done): ETA = items left
    # x elapsed / items done: 91 x 10 / 9 = 101.1 s, 81 x 20 / 19 = 85.3 s, 71 x 30 / 29 =
    # 73.4 s (rounded up); then the last line at the end: 31 calls, 1 failed, 70 x 30 / 30
    assert lines == [
        "judging: 9/100 items, 10 calls (1.0 calls/s), 0 failed, 0 cached, ETA 0:01:42",
        "judging: 19/100 items, 20 calls (1.0 calls/s), 0 failed, 0 cached, ETA 0:01:26",
        "judging: 29/100 items, 30 calls (1.0 calls/s), 0 failed, 0 cached, ETA 0:01:14",
        "judging: 30/100 items, 31 calls (1.0 calls/s), 1 failed, 0 cached, ETA 0:01:10",
    ]
    assert all(line.isascii() for line in lines)


def test_a_run_shorter_than_the_interval_writes_no_line():
    progress, now, out = _plain(10.0)
    now[0] = 9.9
    progress.on_call(_call())
    progress.on_item(object())
    progress.__exit__(None, None, None)
    assert out.getvalue() == ""


def test_interval_zero_writes_none_and_the_variable_is_checked(monkeypatch):
    progress = BenchProgress(interval=0)
    assert progress.plain is None
    monkeypatch.delenv("JURYBOX_PROGRESS_INTERVAL", raising=False)
    assert progress_interval() == DEFAULT_INTERVAL_S == 10.0
    monkeypatch.setenv("JURYBOX_PROGRESS_INTERVAL", "2.5")
    assert progress_interval() == 2.5
    monkeypatch.setenv("JURYBOX_PROGRESS_INTERVAL", "0")
    assert progress_interval() == 0
    for bad in ("abc", "-1", "nan", "1e9", "0.001", "0.49"):
        monkeypatch.setenv("JURYBOX_PROGRESS_INTERVAL", bad)
        with pytest.raises(ConfigError, match="JURYBOX_PROGRESS_INTERVAL must be a number"):
            progress_interval()


def test_bench_with_stderr_to_a_file_writes_progress_before_the_run_ends(tmp_path):
    # the check: jurybox bench truthfulqa --model sim --limit 300 2> err.txt with a
    # slow simulated judge (20 ms a call: about 10 s on 2 cores), lines every 0.5 s
    err = tmp_path / "err.txt"
    env = {**os.environ, "PYTHONPATH": str(SRC), "JURYBOX_PROGRESS_INTERVAL": "0.5"}
    env.pop("JURYBOX_PROGRESS", None)
    with err.open("w") as fh:
        done = subprocess.run(
            [sys.executable, "-m", "jurybox", "bench", "truthfulqa", "--model", "sim",
             "--limit", "300", "--sim-latency-ms", "20", "--no-cache", "--out",
             str(tmp_path / "run")], stdout=subprocess.PIPE, stderr=fh, text=True, env=env,
            timeout=300, cwd=tmp_path)
    assert done.returncode == 0, err.read_text()
    lines = [line for line in err.read_text().splitlines() if line.startswith("judging: ")]
    assert lines, err.read_text()
    first = lines[0].split()[1]  # "12/300"
    done_items, total = map(int, first.split("/"))
    assert total == 300 and done_items < 300  # written while the run went on
    assert lines[-1].startswith("judging: 300/300 items, ") and ", took " in lines[-1]
    assert "\x1b" not in err.read_text()  # plain text: no terminal codes
