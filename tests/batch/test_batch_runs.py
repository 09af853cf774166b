"""Batch mode end to end: ``jurybox bench --batch`` against the embedded simulated judge and
a served one (in this process, :class:`SimServer`; a killed run in a child process), compared
with the online run of the same command; refused batches, endpoints without a batch API, a
journal from another run, and batch files carried to a server and back."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from aiohttp import web
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.datasets import load_dataset
from jurybox.rundir import read_jsonl
from jurybox.rundir.batches import read_journal
from jurybox.sim import BatchScript, SimConfig, SimJudge, SimServer

from ..cli_checks import one_line_error

SRC = Path(__file__).resolve().parents[2] / "src"
#: 4 TruthfulQA items, direct and PCF with K=2: one round of 4 + 8 requests (fewer distinct:
#: direct's order can be one of PCF's)
SMALL = ["--limit", "4", "--k", "2"]


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No API key: a served simulated judge is at a loopback base URL, which needs none."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "JURYBOX_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@contextmanager
def served(script: BatchScript = BatchScript(delay_s=0.2)) -> Iterator[SimServer]:
    """The simulated judge knowing every TruthfulQA item, its batches as ``script``."""
    judge = SimJudge(load_dataset("truthfulqa").items, SimConfig())
    with SimServer(judge, batch=script) as server:
        yield server


def batch_stats(server: SimServer) -> dict[str, int]:
    with urllib.request.urlopen(f"{server.base_url}/sim/batch_stats", timeout=10) as resp:
        return json.loads(resp.read())


def bench(*args: str) -> object:
    result = CliRunner().invoke(app, ["bench", "truthfulqa", *args])
    return result


def decisions(out: Path) -> dict[tuple[str, str], dict]:
    """The latest decision of each (item, protocol)."""
    return {(r["item_id"], r["protocol"]): r for r in read_jsonl(out / "items.jsonl")}


def answers(out: Path) -> dict[str, str]:
    """Each answered call's text by what asked for it (item, protocol call, order, re-ask)."""
    return {json.dumps(r["meta"], sort_keys=True): r["text"]
            for r in read_jsonl(out / "calls.jsonl") if r.get("error") is None}


def test_a_sim_batch_run_decides_and_answers_as_the_online_run(tmp_path: Path) -> None:
    online, batch = tmp_path / "online", tmp_path / "batch"
    assert bench("--model", "sim", *SMALL, "--no-cache", "--out", str(online)).exit_code == 0
    done = bench("--model", "sim", *SMALL, "--no-cache", "--out", str(batch), "--batch",
                 "--batch-poll", "0.05")
    assert done.exit_code == 0, done.output
    assert decisions(batch) == decisions(online) and len(decisions(batch)) == 8
    assert answers(batch) == answers(online)
    calls = read_jsonl(batch / "calls.jsonl")
    assert calls and all(c.get("batch") is True for c in calls)
    assert all(b.ended and b.state == "completed"
               for b in read_journal(batch / "batches.jsonl").values())


def test_batch_cost_is_half_the_online_price_of_the_same_tokens(tmp_path: Path) -> None:
    online, batch = tmp_path / "online", tmp_path / "batch"
    with served() as server:
        common = ["--model", "openai/gpt-4o-mini", "--base-url", server.base_url, *SMALL,
                  "--no-cache"]
        assert bench(*common, "--out", str(online)).exit_code == 0
        done = bench(*common, "--out", str(batch), "--batch", "--batch-poll", "0.05")
        assert done.exit_code == 0, done.output
    calls = read_jsonl(batch / "calls.jsonl")
    prompt = sum(c["usage"]["prompt_tokens"] for c in calls)
    completion = sum(c["usage"]["completion_tokens"] for c in calls)
    assert prompt > 0 and completion > 0
    # src/jurybox/data/prices.json: openai/gpt-4o-mini 0.15 in, 0.60 out USD per million
    # tokens; the OpenAI batch share 0.5
    by_hand = 0.5 * (prompt * 0.15 + completion * 0.60) / 1e6
    cost = json.loads((batch / "summary.json").read_text())["cost"]
    assert cost["batch_usd"] == pytest.approx(by_hand, abs=1e-6)
    assert cost["online_usd"] == 0 and cost["usd"] == cost["batch_usd"]
    assert (cost["batch_prompt_tokens"], cost["batch_completion_tokens"]) == (prompt, completion)
    paid_online = json.loads((online / "summary.json").read_text())["cost"]
    assert (paid_online["prompt_tokens"], paid_online["completion_tokens"]) == (prompt,
                                                                                 completion)
    assert paid_online["usd"] == pytest.approx(2 * cost["batch_usd"], abs=2e-6)


def _child(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "jurybox", "bench", "truthfulqa", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


def test_a_run_killed_while_its_batch_is_in_progress_pays_nothing_twice(tmp_path: Path
                                                                        ) -> None:
    run, online = tmp_path / "run", tmp_path / "online"
    with served(BatchScript(delay_s=3.0)) as server:
        args = ["--model", "openai/gpt-4o-mini", "--base-url", server.base_url, *SMALL,
                "--batch", "--batch-poll", "0.05", "--out", str(run),
                "--cache", str(tmp_path / "c.sqlite")]
        proc = subprocess.Popen(_child(args), env=_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        journal = run / "batches.jsonl"
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline and not (
                journal.exists() and b'"event":"created"' in journal.read_bytes()):
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before its batch was created"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        first = batch_stats(server)
        (entry,) = read_journal(journal).values()
        assert entry.batch_id is not None and not entry.ended  # in flight at the kill
        assert first["batches_created"] == 1
        rerun = subprocess.run(_child(args), env=_env(), capture_output=True, text=True)
        assert rerun.returncode == 0, rerun.stderr
        assert "reattached" in rerun.stdout + rerun.stderr
        assert bench("--model", "openai/gpt-4o-mini", "--base-url", server.base_url, *SMALL,
                     "--no-cache", "--out", str(online)).exit_code == 0
        after = batch_stats(server)
    # the rerun collected the batch in flight: no batch created, nothing resubmitted
    assert after == {**first, "resubmitted": 0}
    assert decisions(run) == decisions(online)
    statuses = [s["status"] for s in json.loads((run / "run.json").read_text())["sessions"]]
    assert statuses == ["killed", "complete"]
    assert all(b.ended for b in read_journal(journal).values())


def test_a_refused_batch_is_recorded_failures_and_the_run_goes_on(tmp_path: Path) -> None:
    # every batch refused: each judgment is a recorded API failure with the provider's
    # message; the run judges every item, writes its summary and ends partial (exit 1: the
    # CLI's rule when no item at all was decided), it does not abort at the first refusal
    run = tmp_path / "run"
    with served(BatchScript(delay_s=0.1, reject=True)) as server:
        done = bench("--model", "openai/gpt-4o-mini", "--base-url", server.base_url, *SMALL,
                     "--no-cache", "--out", str(run), "--batch", "--batch-poll", "0.05")
    assert done.exit_code == 1 and "no item was judged" in done.output, done.output
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "partial" and (run / "summary.json").is_file()
    calls = read_jsonl(run / "calls.jsonl")
    assert calls and all("The batch was rejected (simulated: --batch-reject)" in c["error"]
                         for c in calls)
    assert all(d["failed"] and d["failures"] for d in decisions(run).values())
    assert len(decisions(run)) == 8  # 4 items x 2 protocols, each judged (and failed)
    (entry,) = read_journal(run / "batches.jsonl").values()
    assert entry.state == "rejected" and "--batch-reject" in (entry.reason or "")


def test_batch_with_the_local_judge_stops_before_any_work(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = bench("--model", "local", "--batch", "--out", str(run), "--no-cache")
    one_line_error(result, "--batch", "no batch API")
    assert not (run / "batches.jsonl").exists() and not (run / "calls.jsonl").exists()


@contextmanager
def no_batch_api() -> Iterator[str]:
    """An OpenAI-compatible server of only /v1/models and /v1/chat/completions (404
    elsewhere), in a thread; yields its base URL."""
    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "judge",
                                                             "object": "model"}]})

    async def chat(_: web.Request) -> web.Response:
        return web.json_response({"error": {"message": "not here"}}, status=500)

    application = web.Application()
    application.router.add_get("/v1/models", models)
    application.router.add_post("/v1/chat/completions", chat)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(application)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_a_server_without_a_batch_api_is_refused_naming_batch(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with no_batch_api() as url:
        result = bench("--model", "vllm/judge", "--base-url", url, "--batch", "--out", str(run),
                       "--no-cache", *SMALL)
    one_line_error(result, "--batch", "/batches", "404")
    assert not (run / "calls.jsonl").exists()


def test_a_journal_from_another_run_is_refused(tmp_path: Path) -> None:
    other, run = tmp_path / "other", tmp_path / "run"
    fast = ["--batch", "--batch-poll", "0.05", "--no-cache", *SMALL]
    assert bench("--model", "sim", "--sim-bias", "none", "--out", str(other),
                 *fast).exit_code == 0
    assert bench("--model", "sim", "--out", str(run), *fast).exit_code == 0
    shutil.copy(other / "batches.jsonl", run / "batches.jsonl")
    result = bench("--model", "sim", "--out", str(run), *fast)
    one_line_error(result, "batches.jsonl", "another judge")


def _answer_by_posting(server: SimServer, requests: Path, results: Path) -> int:
    """What ``vllm run-batch`` does: each line's body POSTed to /v1/chat/completions, the
    answers written as ``{custom_id, response: {status_code, body}}`` lines."""
    out = []
    for line in requests.read_text().splitlines():
        request = json.loads(line)
        post = urllib.request.Request(f"{server.base_url}/chat/completions",
                                      data=json.dumps(request["body"]).encode(),
                                      headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=30) as resp:
            out.append({"id": f"r{len(out)}", "custom_id": request["custom_id"],
                        "response": {"status_code": resp.status, "body": json.loads(resp.read())},
                        "error": None})
    results.write_text("".join(json.dumps(o) + "\n" for o in out))
    return len(out)


def test_batch_files_go_to_a_server_and_back(tmp_path: Path) -> None:
    run, online = tmp_path / "run", tmp_path / "online"
    requests, results = tmp_path / "req.jsonl", tmp_path / "out.jsonl"
    cli = CliRunner()
    with served() as server:
        args = ["--model", "vllm/judge", "--base-url", server.base_url, *SMALL, "--out",
                str(run), "--cache", str(tmp_path / "c.sqlite")]
        first = bench(*args, "--batch-files")
        assert first.exit_code == 0, first.output
        assert "jurybox batch export" in first.output
        written = sorted((run / "batches").glob("*.input.jsonl"))
        assert [p.name for p in written] == ["0-1.input.jsonl"]
        exported = cli.invoke(app, ["batch", "export", str(run), "-o", str(requests)])
        assert exported.exit_code == 0, exported.output
        n = _answer_by_posting(server, requests, results)
        assert n == len(written[0].read_text().splitlines()) > 0
        imported = cli.invoke(app, ["batch", "import", str(run), str(results)])
        assert imported.exit_code == 0 and f"{n:,} answers for 1 batch(es)" in imported.output
        rerun = bench(*args, "--batch-files")
        assert rerun.exit_code == 0, rerun.output
        assert bench("--model", "vllm/judge", "--base-url", server.base_url, *SMALL,
                     "--no-cache", "--out", str(online)).exit_code == 0
        assert batch_stats(server)["batches_created"] == 0  # no provider batch: files only
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "complete"
    assert decisions(run) == decisions(online) and len(decisions(run)) == 8
    assert answers(run) == answers(online)
    status = cli.invoke(app, ["batch", "status", str(run)], terminal_width=200)
    assert status.exit_code == 0, status.output
    assert "0-1" in status.output and "file:0-1" in status.output
    assert "1 batch(es), 0 in flight" in status.output
    # export's variable does not stop the other actions; an explicit -o does
    env = {"JURYBOX_BATCH_EXPORT_OUT": str(requests)}
    again = cli.invoke(app, ["batch", "status", str(run)], terminal_width=200, env=env)
    assert again.exit_code == 0 and again.output == status.output
    refused = cli.invoke(app, ["batch", "status", str(run), "-o", str(requests)])
    assert refused.exit_code == 2 and "--out is for export" in refused.output
