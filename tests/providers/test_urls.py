"""Credentials in a base URL: sent as basic auth, never recorded or printed."""

import asyncio
import base64
import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import ConfigError, ProviderError
from jurybox.protocols.prompts import listwise_request
from jurybox.providers import OpenAICompatibleProvider, redact_text, split_credentials
from jurybox.providers.urls import redact_url

SECRET = "hunter2"


def test_split_and_redact():
    url = split_credentials("http://bob:s%40cret@host:8000/v1")
    assert (url.url, url.shown, url.username, url.password) == (
        "http://host:8000/v1", "http://***@host:8000/v1", "bob", "s@cret")
    assert split_credentials("http://host/v1").shown == "http://host/v1"
    assert redact_text("cannot reach https://u:p@a.example/v1 or http://b/v1") == (
        "cannot reach https://***@a.example/v1 or http://b/v1")


def _serve(seen):
    from aiohttp import web

    async def models(request):
        seen.append(request.headers.get("Authorization"))
        return web.json_response({"data": [{"id": "m", "owned_by": "test"}]})

    async def chat(request):
        seen.append(request.headers.get("Authorization"))
        return web.json_response({"choices": [{"message": {"content": "ok"},
                                               "finish_reason": "stop"}], "usage": {}})

    application = web.Application()
    application.router.add_get("/v1/models", models)
    application.router.add_post("/v1/chat/completions", chat)
    return application


@pytest.mark.parametrize("transport", ["aiohttp", "sdk"])
def test_credentials_are_sent_as_basic_auth_and_shown_redacted(transport):
    from aiohttp import web

    seen: list[str | None] = []

    async def main():
        runner = web.AppRunner(_serve(seen))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        provider = OpenAICompatibleProvider("vllm", "m", f"http://bob:{SECRET}@127.0.0.1:{port}/v1",
                                            transport=transport)
        try:
            await provider.check()
            await provider.complete(listwise_request("Q?", ["a", "b"], tag="0"))
        finally:
            await provider.aclose()
            await runner.cleanup()
        return provider, port

    provider, port = asyncio.run(main())
    basic = "Basic " + base64.b64encode(f"bob:{SECRET}".encode()).decode()
    assert seen == [basic, basic]
    assert provider.base_url == f"http://***@127.0.0.1:{port}/v1"
    assert SECRET not in json.dumps(provider.cache_identity())


def test_credentials_and_an_api_key_together_are_a_clear_error():
    with pytest.raises(ConfigError, match=r"carries credentials and an API key is set too"):
        OpenAICompatibleProvider("vllm", "m", f"http://bob:{SECRET}@127.0.0.1:9/v1",
                                 api_key="sk-x")


def test_unreachable_endpoint_error_does_not_show_the_password():
    async def main():
        provider = OpenAICompatibleProvider("vllm", "m", f"http://bob:{SECRET}@127.0.0.1:9/v1")
        try:
            await provider.check()
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError, match=r"cannot reach http://\*\*\*@127.0.0.1:9/v1") as e:
        asyncio.run(main())
    assert SECRET not in str(e.value)


def test_run_json_and_errors_never_hold_the_password(tmp_path, monkeypatch):
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(app, [
        "bench", "truthfulqa", "--model", "vllm/m", "--limit", "2", "--base-url",
        f"http://bob:{SECRET}@127.0.0.1:9/v1", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "cannot reach http://***@127.0.0.1:9/v1" in result.output
    assert SECRET not in result.output
    # a run that did start records the URL redacted: config, command and endpoint
    from jurybox.compare import BenchConfig

    config = BenchConfig(dataset="truthfulqa", base_url=f"http://bob:{SECRET}@h/v1")
    assert config.as_dict()["base_url"] == "http://***@h/v1"


def test_a_query_is_kept_for_requests_and_its_values_hidden_when_shown():
    url = split_credentials("http://h:1/v1/?api_key=SECRET&api-version=2#frag")
    assert (url.url, url.query) == ("http://h:1/v1", "api_key=SECRET&api-version=2")
    assert url.shown == "http://h:1/v1?api_key=***&api-version=***#***"
    assert url.join("/models") == "http://h:1/v1/models?api_key=SECRET&api-version=2"
    assert url.shown_join("/chat/completions") == (
        "http://h:1/v1/chat/completions?api_key=***&api-version=***")
    assert url.query_params() == {"api_key": "SECRET", "api-version": "2"}
    assert redact_text("cannot reach 'http://u:p@h/v1?key=S&x' (see https://a/b#tok), ok") == (
        "cannot reach 'http://***@h/v1?key=***&***' (see https://a/b#***), ok")
    assert redact_text("--base-url=http://h/v1?k=S") == "--base-url=http://h/v1?k=***"
    assert redact_text("no url here ?k=v") == "no url here ?k=v"


@pytest.mark.parametrize("transport", ["aiohttp", "sdk"])
def test_a_key_in_the_query_is_sent_after_the_path_and_never_shown(transport):
    from .fake_server import check_and_complete, completion, fake_server

    seen: list[str] = []
    with fake_server(completion("ok"), seen=seen) as base:
        provider = OpenAICompatibleProvider("vllm", "m", f"{base}?api_key={SECRET}#frag",
                                            transport=transport)
        assert check_and_complete(provider).text == "ok"
    assert seen == [f"/v1/models?api_key={SECRET}", f"/v1/chat/completions?api_key={SECRET}"]
    assert provider.base_url == f"{base}?api_key=***#***"
    assert SECRET not in json.dumps(provider.cache_identity())


def test_the_anthropic_provider_sends_the_query_too():
    pytest.importorskip("anthropic")
    from jurybox.providers.anthropic import AnthropicProvider

    from .fake_server import check_and_complete, fake_server

    seen: list[str] = []
    body = json.dumps({"id": "m", "type": "message", "role": "assistant", "model": "m",
                       "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                       "usage": {"input_tokens": 1, "output_tokens": 1}})
    with fake_server(body, seen=seen) as base:
        provider = AnthropicProvider("m", api_key="k",
                                     base_url=f"{base.removesuffix('/v1')}?api_key={SECRET}")
        assert check_and_complete(provider).text == "ok"
    assert seen == [f"/v1/models?api_key={SECRET}&limit=1", f"/v1/messages?api_key={SECRET}"]
    assert SECRET not in provider.base_url and SECRET not in json.dumps(
        provider.cache_identity())


def test_a_query_key_is_in_no_error_and_no_file_of_a_run(tmp_path, monkeypatch):
    from .fake_server import completion, fake_server, listwise_answer

    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    result = CliRunner().invoke(app, [
        "bench", "truthfulqa", "--model", "vllm/m", "--limit", "2", "--base-url",
        f"http://127.0.0.1:9/v1?api_key={SECRET}#{SECRET}", "--out", str(tmp_path / "no")])
    assert result.exit_code == 2
    assert "cannot reach http://127.0.0.1:9/v1?api_key=***#***" in result.output
    assert SECRET not in result.output

    data = tmp_path / "two.jsonl"
    data.write_text(json.dumps({"id": "q1", "prompt": "Q?", "candidates": ["x", "y"]}) + "\n")
    with fake_server(completion(listwise_answer())) as base:
        args = ["judge", str(data), "--model", "vllm/m", "--protocol", "direct", "--no-cache",
                f"--base-url={base}?api_key={SECRET}", "--out", str(tmp_path / "run")]
        monkeypatch.setattr("sys.argv", ["jurybox", *args])  # run.json and the lock keep it
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output
    files = [p for p in (tmp_path / "run").rglob("*") if p.is_file()]
    assert {"run.json", "calls.jsonl", "report.html"} <= {p.name for p in files}
    assert not [p.name for p in files if SECRET in p.read_text(errors="replace")]
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["config"]["base_url"] == f"{base}?api_key=***"
    assert manifest["model"]["endpoint"]["base_url"] == f"{base}?api_key=***"
    assert f"--base-url={base}?api_key=***" in manifest["command"]


@pytest.mark.parametrize("url, shown", [
    ("  http://bob:SECRET@h/v1", "  http://***@h/v1"),          # leading spaces
    ("http://h/v1;key=SECRET", "http://h/v1;***"),              # path parameters
    ("http://h/a;key=SECRET/v1?x=SECRET", "http://h/a;***/v1?x=***"),
    ("bob:SECRET@h:8000/v1", "***@h:8000/v1"),                  # no scheme
    # two URLs as one text (a comma-separated base_url): both hidden
    ("http://u:SECRET@a/v1,http://bob:SECRET@b/v1", "http://***@a/v1,http://***@b/v1"),
])
def test_redaction_hides_secrets_in_unusual_places(url, shown):
    assert redact_text(url) == shown or redact_text(f"see {url}") == f"see {shown}"
    assert "SECRET" not in (redact_url(url) or "")
    assert redact_url(url) == shown


@pytest.mark.parametrize("url, message", [
    ("127.0.0.1:8000", "--base-url has no scheme: did you mean http://127.0.0.1:8000/v1?"),
    ("bob:SECRET@h:8000/v1", "--base-url has no scheme: did you mean http://***@h:8000/v1?"),
    ("ftp://h/v1", "--base-url has the scheme 'ftp'; jurybox speaks http:// and https://"),
    ("http://[u:SECRET]@h/v1", "--base-url is not a valid URL (http://***@h/v1): check the "
                               "host and port"),
    ("http://h:99999/v1", "--base-url is not a valid URL (http://h:99999/v1): check the host "
                          "and port"),
    (" http://h/v1", "--base-url has leading or trailing white space ('http://h/v1')"),
    ("http:///v1", "--base-url has no host (http:///v1)"),
])
def test_a_malformed_base_url_is_one_line_before_any_call(url, message, tmp_path):
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--model", "vllm/m", "--limit",
                                      "1", "--base-url", url, "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {message}"]
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("model", ["sim", "local"])
def test_a_base_url_with_a_self_serving_judge_is_refused(model, tmp_path):
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--model", model, "--limit", "1",
                                      "--base-url", "http://127.0.0.1:9/v1", "--dry-run"])
    assert result.exit_code == 2
    assert "serves itself: leave it unset with --model " + model in result.output


def test_several_urls_as_one_base_url_are_refused_with_every_secret_hidden(tmp_path):
    # a jury file's base_url (and BenchConfig's, JudgeConfig's) takes one URL; the pool's
    # comma-separated form is --base-url's and judge()'s
    jury = tmp_path / "jury.yaml"
    jury.write_text('judges:\n  - model: vllm/judge\n    base_url: "http://u:SECRET@127.0.0.1:9/'
                    'v1, http://bob:SECRET@127.0.0.1:8/v1"\n  - model: sim\n')
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "1", "--jury",
                                      str(jury), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: jury: judge 'vllm/judge': --base-url holds 2 URLs separated by commas "
        "(http://***@127.0.0.1:9/v1, http://***@127.0.0.1:8/v1): one endpoint takes one base "
        "URL (the replicas of one judge: --base-url once per replica, --endpoints FILE, or "
        "base_url=[...] in Python)"]
    assert not (tmp_path / "r").exists()
