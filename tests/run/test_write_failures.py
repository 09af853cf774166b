"""A full disk for the run directory or the cache: one error, nothing lost, a rerun resumes."""

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from jurybox.cache import ResponseCache
from jurybox.compare import BenchConfig, run_bench
from jurybox.errors import RunWriteError
from jurybox.providers import ChatResponse
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy

pytestmark = pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")

CONFIG = BenchConfig(dataset="truthfulqa", limit=6, k=3, protocols=("pcf",))


def _options(tmp_path):
    return RunOptions(cache_path=tmp_path / "c.sqlite", retry=RetryPolicy(attempts=2, base_s=0))


def test_full_disk_for_calls_log_stops_with_run_write_error_then_resumes(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "calls.jsonl").symlink_to("/dev/full")  # every write fails with ENOSPC
    with pytest.raises(RunWriteError, match=r"cannot write '.*calls.jsonl': No space left"):
        run_bench(CONFIG, out, options=_options(tmp_path))
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "failed" and manifest["sessions"][0]["status"] == "failed"
    (out / "calls.jsonl").unlink()  # space freed
    resumed = run_bench(CONFIG, out, options=_options(tmp_path))
    assert resumed.judged_now == 6 and resumed.status == "complete"
    assert len(read_jsonl(out / "items.jsonl")) == 6


def _limited(max_bytes):
    """A child process whose files cannot grow past ``max_bytes`` (writes fail with EFBIG,
    as on a full disk; SIGXFSZ ignored so the write returns the error)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return limit


def test_full_disk_on_the_command_line_is_one_line_exit_2_and_a_rerun_resumes(tmp_path):
    args = [sys.executable, "-m", "jurybox", "bench", "truthfulqa", "--model", "sim",
            "--limit", "60", "--k", "3", "--out", str(tmp_path / "run"), "--cache",
            str(tmp_path / "c.sqlite")]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    full = subprocess.run(args, capture_output=True, text=True, env=env,
                          preexec_fn=_limited(150_000), timeout=120)
    assert full.returncode == 2, full.stderr
    lines = [ln for ln in full.stderr.splitlines() if ln.strip()]
    assert lines[-1].startswith("error: cannot write")  # the cache or a log, whichever fills
    assert "File too large" in lines[-1] or "disk I/O error" in lines[-1]
    assert "Traceback" not in full.stderr
    done = len(read_jsonl(tmp_path / "run" / "items.jsonl"))
    assert 0 < done < 120  # some decisions were written before the disk filled
    again = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0, again.stderr
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert [s["status"] for s in manifest["sessions"]] == ["failed", "complete"]
    assert len({(r["item_id"], r["protocol"])
                for r in read_jsonl(tmp_path / "run" / "items.jsonl")}) == 120


def test_a_full_cache_raises_run_write_error(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache._db.execute("PRAGMA max_page_count = 1")  # SQLite's own 'database or disk is full'
    with pytest.raises(RunWriteError, match=r"cannot write the response cache .*full"):
        for i in range(200):
            cache.put(f"k{i}", ChatResponse(text="x" * 2000))
