"""The Anthropic provider against a loopback fake of /v1/messages (the simulated judge)."""

import builtins

import pytest

from jurybox.compare import BenchConfig, prepare_bench, run_bench
from jurybox.errors import ConfigError
from jurybox.providers import make_provider, parse_spec
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy
from jurybox.sim import Faults, SimConfig, SimJudge, SimServer

pytest.importorskip("anthropic")

CONFIG = BenchConfig(dataset="rewardbench2-sample", model="anthropic/claude-test", k=2)


def _run(tmp_path, faults=Faults(), structured="json-schema", attempts=3):
    items = list(prepare_bench(CONFIG).selection)
    with SimServer(SimJudge(items, SimConfig(faults=faults))) as server:
        config = BenchConfig(**{**CONFIG.__dict__, "base_url": f"http://127.0.0.1:{server.port}"})
        return run_bench(config, tmp_path / "run", options=RunOptions(
            structured=structured, retry=RetryPolicy(attempts=attempts, base_s=0)))


def test_claude_judges_through_a_forced_answer_tool(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    result = _run(tmp_path)
    assert result.summary.protocols["pcf"].accuracy.n == 8
    calls = read_jsonl(result.out / "calls.jsonl")
    assert all(c["answer_format"] == "json-schema" and c["text"].startswith('{"candidates"')
               for c in calls)
    assert result.totals.prompt_tokens > 0 and result.totals.completion_tokens > 0
    endpoint = result.protocols and __import__("json").loads(
        (result.out / "run.json").read_text())["model"]["endpoint"]
    assert endpoint == {"provider": "anthropic", "base_url": endpoint["base_url"],
                        "model": "claude-test"}


def test_free_text_answers_are_parsed_too(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    result = _run(tmp_path, structured="off")
    assert result.summary.protocols["pcf"].accuracy.n == 8
    assert all(c["answer_format"] is None for c in read_jsonl(result.out / "calls.jsonl"))


def test_429_and_529_overloaded_are_retried(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    result = _run(tmp_path, faults=Faults(first_429=1, first_500=1), attempts=3)
    assert result.summary.protocols["pcf"].accuracy.n == 8
    assert result.totals.retries == 2 * result.totals.jobs  # one 429 and one 529 each
    failing = _run(tmp_path / "b", faults=Faults(first_500=5), attempts=2)
    assert failing.summary.protocols["pcf"].accuracy.n == 0
    errors = [c["error"] for c in read_jsonl(failing.out / "calls.jsonl")]
    assert errors and all("HTTP 529" in e for e in errors)


def test_a_missing_key_or_extra_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="export ANTHROPIC_API_KEY"):
        make_provider(parse_spec("anthropic/claude-test"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    real_import = builtins.__import__

    def no_anthropic(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "anthropic" and level == 0:  # the SDK, not jurybox's own module
            raise ImportError(name)
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_anthropic)
    with pytest.raises(ConfigError, match=r"pip install 'jurybox\[anthropic\]'"):
        make_provider(parse_spec("anthropic/claude-test"))


def test_a_server_on_this_machine_needs_no_key(tmp_path, monkeypatch):
    # the simulated judge served as Anthropic's API on 127.0.0.1: no placeholder key to export
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    result = _run(tmp_path)
    assert result.summary.protocols["pcf"].accuracy.n == 8
