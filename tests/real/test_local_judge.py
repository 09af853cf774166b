"""Real-server tests: the local llama.cpp judge (SmolLM2-135M-Instruct), not the simulation.

Marked ``real`` and left out of the default run; ``pytest -m real`` runs them (``.ci/run`` does,
after installing the ``[local]`` extra). A 135M judge is weak: these assert what must hold for
any judge (every call parsed or recorded with its raw text, failures never scores, structured
output lets each protocol decide, a rerun is free), not accuracy.
"""

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.errors import ConfigError
from jurybox.personalize import PersonalizeConfig, run_personalize
from jurybox.providers import LocalServer
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy

from . import REAL_LOCAL

pytestmark = REAL_LOCAL


def _options(tmp_path, structured="json-schema"):
    return RunOptions(structured=structured, cache_path=tmp_path / "cache.sqlite",
                      retry=RetryPolicy(attempts=2, base_s=0), timeout_s=300)


def _every_call_parsed_or_recorded(out):
    calls = read_jsonl(out / "calls.jsonl")
    assert calls
    for c in calls:
        assert c["messages"], "the prompt is kept"
        assert c["error"] is None, c["error"]  # a local server answers every call
        assert c["text"] or c["parse_error"], "a failure keeps its raw text (or says why)"
    return calls


def test_listwise_direct_and_pcf_decide_and_a_rerun_is_free(tmp_path):
    config = BenchConfig(dataset="truthfulqa", model="local", protocols=("direct", "pcf"), k=3,
                         limit=3, max_tokens=400)
    first = run_bench(config, tmp_path / "run", options=_options(tmp_path))
    calls = _every_call_parsed_or_recorded(first.out)
    assert all(c["answer_format"] == "json-schema" for c in calls)
    for name in ("direct", "pcf"):
        assert first.summary.protocols[name].accuracy.n >= 1, name
    assert first.judge.startswith("local llama.cpp, SmolLM2-135M-Instruct.Q4_1.gguf, sha256 ")
    again = run_bench(config, tmp_path / "again", options=_options(tmp_path))
    assert again.totals.model_calls == 0
    assert again.summary.protocols == first.summary.protocols
    # selective judging of the real verdicts, calibrated on 2 of the 3 labelled items: no
    # threshold reaches the 11 items target 0.8 needs at delta 0.1, so nothing can be
    # certified, and nothing is accepted, whatever the judge said
    import jurybox

    for s in jurybox.selective(first.out, target=0.8):
        assert (s.n_calibration, s.test.n, s.signal, s.test.n_accepted) == (2, 1, None, 0)


def test_without_structured_output_failures_are_recorded_never_scores(tmp_path):
    config = BenchConfig(dataset="truthfulqa", model="local", protocols=("direct",), limit=2,
                         max_tokens=300)
    result = run_bench(config, tmp_path / "run", options=_options(tmp_path, "off"))
    calls = _every_call_parsed_or_recorded(result.out)
    assert all(c["answer_format"] is None for c in calls)
    for item in read_jsonl(result.out / "items.jsonl"):
        if item["n_ok"] == 0:  # every call failed: no decision, no credit, a recorded kind
            assert item["credit"] is None and item["winners"] == [] and item["failures"]
        else:
            assert item["credit"] is not None
    failed = [c for c in calls if c["parse_error"]]
    assert all(c["text"] or "cut off" in c["parse_error"] for c in failed)


def test_pairwise_both_orders_and_apoc_decide(tmp_path):
    config = BenchConfig(dataset="judgebench-gpt", model="local",
                         protocols=("both-orders", "apoc"), limit=2, verdict_format="json",
                         max_tokens=400)
    result = run_bench(config, tmp_path / "run", options=_options(tmp_path))
    _every_call_parsed_or_recorded(result.out)
    for name in ("both-orders", "apoc"):
        assert result.summary.protocols[name].accuracy.n >= 1, name


def test_a_rubric_judge_scores_squality_units(tmp_path):
    config = PersonalizeConfig(ratings="squality", items="squality", rubric="squality",
                               model="local", judges=("zero-shot",), shots=(0,), seeds=1,
                               threshold=0, raters=1, limit=2, dimensions=("overall",),
                               group_field="passage_id")
    result = run_personalize(config, tmp_path / "run", options=_options(tmp_path))
    _every_call_parsed_or_recorded(result.out)
    (row,) = result.summary.alignment
    assert row.scored >= 1
    records = read_jsonl(result.out / "items.jsonl")
    assert all(r["dimensions"]["overall"]["status"] in ("scored", "failed") for r in records)


def test_a_server_that_is_not_ready_in_time_is_an_error_and_nothing_is_left():
    server = LocalServer(ready_timeout_s=0.2)
    with pytest.raises(ConfigError, match="did not answer within 0.2 s"):
        server.start()
    assert server.exited()
    assert json.dumps(server.label)  # named by file and sha256 even when it never answered


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_server_killed_mid_run_is_one_error_line_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "jurybox", "bench", "truthfulqa", "--model", "local",
            "--protocols", "direct", "--limit", "4", "--max-tokens", "400", "--out", str(out),
            "--cache", str(tmp_path / "cache.sqlite")]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 600
        while not ((out / "calls.jsonl").exists() and (out / "calls.jsonl").read_text()):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        (server,) = [p for p in _children(proc.pid)
                     if b"llama_cpp.server" in Path(f"/proc/{p}/cmdline").read_bytes()]
        os.kill(server, signal.SIGKILL)
        _, err = proc.communicate(timeout=600)
    finally:
        proc.kill()
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert proc.returncode == 2, err
    assert len(errors) == 1 and "llama.cpp server died with SIGKILL" in errors[0], err
    assert "during the run" in errors[0]
    assert "Traceback" not in err
    calls = read_jsonl(out / "calls.jsonl")
    assert [c["attempts"] for c in calls if c["error"]] in ([], [1])  # never retried to death
    assert json.loads((out / "run.json").read_text())["sessions"][-1]["status"] == "failed"

    again = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr
    items = read_jsonl(out / "items.jsonl")
    assert len(items) == 4 and all(i["winners"] for i in items)
    answered = {c["key"] for c in calls if c["error"] is None}
    assert not [c for c in read_jsonl(out / "calls.jsonl")[len(calls):]
                if c["key"] in answered and not c["cached"]], "an answered call paid twice"


def test_two_local_replicas_judge_as_one_pool_and_share_its_cache(tmp_path):
    config = BenchConfig(dataset="truthfulqa", model="local", protocols=("pcf",), k=2,
                         limit=4, max_tokens=400)
    pooled = replace(_options(tmp_path), replicas=2)
    first = run_bench(config, tmp_path / "pool", options=pooled)
    calls = _every_call_parsed_or_recorded(first.out)
    session = json.loads((first.out / "run.json").read_text())["sessions"][-1]
    urls = [r["url"] for r in session["replicas"]]
    assert len(set(urls)) == 2 and all(u.startswith("http://127.0.0.1:") for u in urls)
    assert sum(r["calls"] for r in session["replicas"]) == first.totals.model_calls == len(calls)
    assert session["items"] == 4
    # one judge identity (the GGUF's sha256, not a port): one server answers from the cache
    again = run_bench(config, tmp_path / "one", options=_options(tmp_path))
    assert again.totals.model_calls == 0
    assert again.summary.protocols == first.summary.protocols
