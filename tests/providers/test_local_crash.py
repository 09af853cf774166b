"""A local llama.cpp server that dies, on its first completion or during a run, is one error
line naming the signal, and a run it stops resumes.

The server is ``fake_llama/llama_cpp/server`` (the simulated judge behind llama.cpp's command
line, dying with a chosen signal at a chosen completion), put first on the child's PYTHONPATH,
so these run without the ``[local]`` extra; ``tests/real`` kills the real server.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import ConfigError, RetryableProviderError
from jurybox.providers import ChatRequest, LocalServer, Message, local
from jurybox.providers.llama_build import PORTABLE_CMAKE_ARGS
from jurybox.rundir import read_jsonl

from ..cli_checks import one_line_error

FAKE = Path(__file__).parent / "fake_llama"
runner = CliRunner()


@pytest.fixture
def fake_llama(monkeypatch, tmp_path):
    """``configure(die_at=N, signal="SIGILL")``: the fake server for the next start; returns
    the GGUF path to give it."""
    monkeypatch.setattr(local, "_require_extra", lambda: None)
    monkeypatch.setenv("PYTHONPATH", str(FAKE))
    gguf = tmp_path / "judge.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)

    def configure(die_at: int | None = None, sig: str = "SIGILL") -> Path:
        monkeypatch.setenv("FAKE_LLAMA_DIE_AT", str(die_at or 0))
        monkeypatch.setenv("FAKE_LLAMA_SIGNAL", sig)
        return gguf
    return configure


def test_sigill_on_the_first_completion_names_the_signal_the_build_and_the_rebuild(fake_llama):
    server = LocalServer(fake_llama(die_at=1), ready_timeout_s=60)
    with pytest.raises(ConfigError) as err:
        server.start()
    message = str(err.value)
    assert message.startswith("llama.cpp server died with SIGILL (illegal instruction) on its "
                              "first completion: its llama.cpp build uses CPU instructions")
    # the build the fake reports (a native build with AMX), and the one pip command
    assert "llama-cpp-python 0.3.36, native: compiled with AMX_INT8, AVX512, AVX512_VNNI" in message
    assert (f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --force-reinstall --no-cache-dir '
            f"--no-deps 'llama-cpp-python==0.3.36'") in message
    assert "dying with SIGILL" in message  # the server's own last log line
    assert server.exited()


def test_the_cli_refuses_a_server_that_dies_before_any_run_in_one_line(fake_llama, tmp_path):
    gguf = fake_llama(die_at=1)
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", f"local/{gguf}", "--limit",
                                 "2", "--out", str(tmp_path / "run")])
    one_line_error(result, "died with SIGILL (illegal instruction) on its first completion",
                   "pip install --force-reinstall")
    assert not (tmp_path / "run").exists()  # nothing judged, nothing written
    result = runner.invoke(app, ["serve-local", "--gguf", str(gguf), "--port", "0"])
    assert result.exit_code != 0


def test_a_server_that_is_healthy_passes_the_readiness_completion(fake_llama):
    with LocalServer(fake_llama(), ready_timeout_s=60) as server:
        assert not server.exited()


def test_a_server_killed_during_a_run_stops_it_at_once_and_the_rerun_resumes(fake_llama,
                                                                             tmp_path):
    # completion 1 is the readiness check; the run's 4th call kills the server (SIGKILL, as
    # the out-of-memory killer would)
    gguf = fake_llama(die_at=5, sig="SIGKILL")
    out, cache = tmp_path / "run", tmp_path / "cache.sqlite"
    args = ["bench", "truthfulqa", "--model", f"local/{gguf}", "--protocols", "direct",
            "--limit", "6", "--out", str(out), "--cache", str(cache), "--attempts", "6"]
    line = one_line_error(runner.invoke(app, args),
                          "llama.cpp server died with SIGKILL (killed: by the out-of-memory "
                          "killer or from outside) during the run")
    assert "judged again when the same command is rerun" in line
    calls = read_jsonl(out / "calls.jsonl")
    # three answered calls, then the one the server died on: one attempt, never 6 retries
    assert [c["error"] is None for c in calls] == [True, True, True, False]
    assert calls[-1]["attempts"] == 1 and calls[-1]["outcome"] == "api"
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["sessions"][-1]["status"] == "failed"
    assert len(read_jsonl(out / "items.jsonl")) == 3

    fake_llama()  # the server is fixed: the same command resumes and finishes
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    items = read_jsonl(out / "items.jsonl")
    assert sorted(i["item_id"] for i in items) == sorted({i["item_id"] for i in items})
    assert len(items) == 6
    second = read_jsonl(out / "calls.jsonl")[len(calls):]
    # the three judged items are not asked again; the failed call and the rest are
    assert len(second) == 3 and all(c["error"] is None and not c["cached"] for c in second)


def test_a_connection_error_from_a_live_server_is_retried_as_before(fake_llama):
    """Only a server that has exited stops the run: a live one's failures stay retryable."""
    with LocalServer(fake_llama(), ready_timeout_s=60) as server:
        # nothing listens on port 9: refused while the server is alive
        provider = local.LocalProvider(server, "local", "judge", "http://127.0.0.1:9/v1",
                                       dialect="llamacpp")
        request = ChatRequest(messages=(Message(role="user", content="hi"),))

        async def call() -> None:
            try:
                await provider.complete(request)
            finally:
                await provider.aclose()
        with pytest.raises(RetryableProviderError):
            asyncio.run(call())


def test_describe_exit_names_signals_and_codes():
    assert local.describe_exit(-signal.SIGSEGV) == "died with SIGSEGV (segmentation fault)"
    assert local.describe_exit(-signal.SIGUSR1) == "died with SIGUSR1"
    assert local.describe_exit(3) == "exited with code 3"


def test_serve_local_whose_server_dies_while_serving_is_one_line(tmp_path):
    """``jurybox serve-local`` in its own process (it waits on signals in the main thread):
    its server passes the readiness completion, then dies with SIGILL on the next one."""
    gguf = tmp_path / "judge.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(FAKE), "FAKE_LLAMA_DIE_AT": "2"}
    proc = subprocess.Popen([sys.executable, "-m", "jurybox", "serve-local", "--gguf", str(gguf),
                             "--port", str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert "local judge on http://127.0.0.1" in proc.stdout.readline()
        body = json.dumps({"model": "judge", "messages": [{"role": "user", "content": "hi"}]})
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
                                         data=body.encode(),
                                         headers={"Content-Type": "application/json"})
        with pytest.raises(OSError):  # the server dies before answering
            urllib.request.urlopen(request, timeout=30)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2
    (line,) = [ln for ln in err.splitlines() if ln.strip()]
    assert line.startswith("error: llama.cpp server died with SIGILL (illegal instruction) "
                           "while serving: its llama.cpp build uses CPU instructions")
    assert "pip install --force-reinstall --no-cache-dir" in line
