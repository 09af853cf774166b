"""Stopping a run at any point: SIGTERM like Ctrl-C, SIGKILL settled on resume, totals always
equal to the calls logged, decisions identical to an uninterrupted run."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.rundir import read_jsonl
from jurybox.run import Interrupted, RunHooks, RunOptions
from jurybox.runner import RetryPolicy, Totals
from jurybox.sim import Faults, SimConfig

SRC = Path(__file__).resolve().parents[2] / "src"


def _final(out):
    """Latest decision per (item, protocol)."""
    return {(r["item_id"], r["protocol"]): r for r in read_jsonl(out / "items.jsonl")}


def _logged(out):
    return Totals.of_records(read_jsonl(out / "calls.jsonl")).as_dict()


def test_totals_equal_the_logged_calls_under_every_kind_of_fault(tmp_path):
    # 429s and 500s (retries, some calls giving up), malformed and truncated answers
    # (re-asks) and refusals
    faults = Faults(rate_429=0.1, rate_500=0.1, rate_malformed=0.15, rate_truncated=0.05,
                    rate_refusal=0.05)
    config = BenchConfig(dataset="truthfulqa", limit=40, k=3,
                         sim=SimConfig(faults=faults))
    result = run_bench(config, tmp_path / "run", options=RunOptions(
        cache_path=None, retry=RetryPolicy(attempts=2, base_s=0)))
    logged = _logged(tmp_path / "run")
    assert result.totals.as_dict() == logged
    assert logged["retries"] > 0 and logged["reasks"] > 0 and logged["failures"]["api"] > 0
    assert logged["failures"]["refusal"] > 0
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["totals"] == logged


def test_sigterm_stops_like_ctrl_c(tmp_path):
    seen = []

    def terminate_after_four(_item):
        seen.append(1)
        if len(seen) == 4:
            signal.raise_signal(signal.SIGTERM)

    config = BenchConfig(dataset="truthfulqa", limit=30, k=3)
    options = RunOptions(cache_path=tmp_path / "c.sqlite", concurrency=2)
    with pytest.raises(Interrupted) as info:
        run_bench(config, tmp_path / "run", options=options,
                  hooks=RunHooks(on_item=terminate_after_four))
    assert info.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handler restored
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["status"] == "interrupted"
    assert manifest["totals"] == _logged(tmp_path / "run")
    resumed = run_bench(config, tmp_path / "run", options=options)
    assert resumed.status == "complete" and 0 < resumed.judged_now < 30


def test_sigterm_stops_a_run_even_where_sigint_is_ignored(tmp_path):
    # nohup and background jobs ignore SIGINT; SIGTERM (kill) must still stop the run cleanly
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    seen = []

    def terminate_after_three(_item):
        seen.append(1)
        if len(seen) == 3:
            signal.raise_signal(signal.SIGTERM)

    with pytest.raises(Interrupted) as info:
        run_bench(BenchConfig(dataset="truthfulqa", limit=30, k=3), tmp_path / "run",
                  options=RunOptions(cache_path=None, concurrency=2),
                  hooks=RunHooks(on_item=terminate_after_three))
    assert info.value.signum == signal.SIGTERM
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "interrupted"


def _bench_args(out, cache):
    return [sys.executable, "-m", "jurybox", "bench", "truthfulqa", "--model", "sim",
            "--limit", "40", "--k", "3", "--sim-latency-ms", "30", "--concurrency", "2",
            "--out", str(out), "--cache", str(cache)]


def _env():
    return {**os.environ, "PYTHONPATH": str(SRC)}


def _start_and_stop(args, out, *, after_items, signum):
    proc = subprocess.Popen(args, env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "items.jsonl").exists() and len(
                (out / "items.jsonl").read_bytes().splitlines()) >= after_items:
            break
        time.sleep(0.02)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def test_sigterm_from_outside_exits_143_with_the_resume_note(tmp_path):
    out = tmp_path / "run"
    code, err = _start_and_stop(_bench_args(out, tmp_path / "c.sqlite"), out, after_items=6,
                                signum=signal.SIGTERM)
    assert code == 143, err
    assert "interrupted (SIGTERM)" in err and "run the same command again to resume" in err
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["totals"] == _logged(out)


def test_sigkill_twice_then_resume_gives_the_uninterrupted_decisions(tmp_path):
    out, cache = tmp_path / "run", tmp_path / "c.sqlite"
    for after in (5, 30):
        code, _ = _start_and_stop(_bench_args(out, cache), out, after_items=after,
                                  signum=signal.SIGKILL)
        assert code == -signal.SIGKILL
        assert json.loads((out / "run.json").read_text())["status"] == "running"
    done = subprocess.run(_bench_args(out, cache), env=_env(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "run.json").read_text())
    assert [s["status"] for s in manifest["sessions"]] == ["killed", "killed", "complete"]
    assert manifest["totals"] == _logged(out)  # killed sessions: derived from their calls
    for i, session in enumerate(manifest["sessions"]):
        mine = [r for r in read_jsonl(out / "calls.jsonl") if r["session"] == i]
        assert session["totals"] == Totals.of_records(mine).as_dict()
    clean = tmp_path / "clean"
    subprocess.run(_bench_args(clean, tmp_path / "clean.sqlite"), env=_env(), check=True,
                   capture_output=True, timeout=120)
    assert _final(out) == _final(clean)
