import asyncio
import socket

import pytest

from jurybox.errors import ConfigError, ProviderError
from jurybox.protocols import listwise_request
from jurybox.providers import OpenAICompatibleProvider, make_provider, parse_spec
from jurybox.providers.spec import is_loopback

from ..conftest import make_items


def test_parse_spec():
    assert (parse_spec("openai/gpt-4o-mini").provider, parse_spec("openai/gpt-4o-mini").model) \
        == ("openai", "gpt-4o-mini")
    assert parse_spec("vllm/meta-llama/Llama-3.1-8B").model == "meta-llama/Llama-3.1-8B"
    assert str(parse_spec("sim")) == "sim/judge"
    with pytest.raises(ConfigError, match="must look like 'provider/model'"):
        parse_spec("gpt-4o")
    with pytest.raises(ConfigError, match="unknown provider 'foo'"):
        parse_spec("foo/bar")


def test_missing_key_is_one_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="export OPENAI_API_KEY="):
        make_provider(parse_spec("openai/gpt-4o-mini"))


@pytest.mark.parametrize("url, loopback", [
    ("http://127.0.0.1:8765/v1", True), ("http://127.9.9.9/v1", True),
    ("http://localhost:8000/v1", True), ("http://api.localhost/v1", True),
    ("http://[::1]:8000/v1", True), ("http://u:p@127.0.0.1:1/v1", True),
    ("https://api.judge.invalid/v1", False), ("http://127.0.0.1.example.com/v1", False),
    ("http://localhost.example.com/v1", False), ("http://10.0.0.1/v1", False),
    ("127.0.0.1:8000/v1", False), ("", False), (None, False), ("http://[::1/v1", False),
])
def test_loopback_base_urls(url, loopback):
    assert is_loopback(url) is loopback


def test_a_base_url_on_this_machine_needs_no_key(monkeypatch):
    # the simulated judge served as OpenAI (jurybox serve-sim): no dummy OPENAI_API_KEY
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    provider = make_provider(parse_spec("openai/judge"), base_url="http://127.0.0.1:8765/v1")
    assert isinstance(provider, OpenAICompatibleProvider) and provider.api_key is None
    with pytest.raises(ConfigError) as err:
        make_provider(parse_spec("openai/judge"), base_url="https://gateway.invalid/v1")
    assert str(err.value) == (
        "openai/judge needs an API key: export OPENAI_API_KEY=... (or JURYBOX_API_KEY); a "
        "--base-url on this machine (http://127.0.0.1:PORT/v1, e.g. jurybox serve-sim) needs "
        "none")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set")  # a key that is set is still sent
    assert make_provider(parse_spec("openai/judge"),
                         base_url="http://localhost:1/v1").api_key == "sk-set"


def test_default_base_urls_and_override(monkeypatch):
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    assert make_provider(parse_spec("vllm/m")).base_url == "http://localhost:8000/v1"
    assert make_provider(parse_spec("ollama/m")).base_url == "http://localhost:11434/v1"
    assert make_provider(parse_spec("vllm/m"), base_url="http://127.0.0.1:9/v1/").base_url \
        == "http://127.0.0.1:9/v1"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_endpoint_fails_the_check():
    provider = OpenAICompatibleProvider("vllm", "m", f"http://127.0.0.1:{_free_port()}/v1")

    async def main():
        try:
            await provider.check()
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError, match=r"cannot reach http://127.0.0.1:\d+/v1 \(connection "
                       r"refused: nothing listens on that port\); is the server running"):
        asyncio.run(main())  # in words, not a client's exception class (ClientConnectorError)


@pytest.mark.parametrize("transport", ["aiohttp", "sdk"])
def test_both_transports_read_text_and_usage_from_the_loopback_judge(sim, transport):
    item = make_items(1)[0]
    request = listwise_request(item.prompt, list(item.candidates), tag="00ff00ff", seed=3)

    async def main(server):
        provider = server.provider(transport=transport)
        try:
            await provider.check()
            return await provider.complete(request)
        finally:
            await provider.aclose()

    with sim([item]) as server:
        response = asyncio.run(main(server))
    assert '"ranking"' in response.text
    assert response.usage.prompt_tokens > 100 and response.usage.completion_tokens > 10
    assert response.finish_reason == "stop"


def test_check_catches_a_base_url_without_v1_and_recognises_the_sim(sim):
    async def check(provider):
        try:
            await provider.check()
        finally:
            await provider.aclose()

    with sim() as server:
        root = f"http://127.0.0.1:{server.port}"
        with pytest.raises(ProviderError, match="answered 404: is the base URL right"):
            asyncio.run(check(OpenAICompatibleProvider("vllm", "judge", root)))
        served = OpenAICompatibleProvider("vllm", "judge", f"{root}/v1")
        assert served.simulated is False
        asyncio.run(check(served))
        assert served.simulated is True  # reached through serve-sim, still labelled simulated


def test_a_non_json_body_is_a_provider_error_naming_the_url():
    from aiohttp import web

    async def html(_request):
        return web.Response(text="<html>welcome</html>", content_type="text/html")

    async def main():
        app = web.Application()
        app.router.add_post("/v1/chat/completions", html)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        provider = OpenAICompatibleProvider("vllm", "m", f"http://127.0.0.1:{port}/v1")
        try:
            await provider.complete(listwise_request("Q?", ["a", "b"], tag="0"))
        finally:
            await provider.aclose()
            await runner.cleanup()

    with pytest.raises(ProviderError, match=r"/v1/chat/completions answered 200 with a body "
                                            r"that is not JSON \(b'<html>welcome"):
        asyncio.run(main())


def test_timeout_must_be_positive():
    with pytest.raises(ConfigError, match="timeout must be > 0"):
        OpenAICompatibleProvider("vllm", "m", "http://127.0.0.1:1/v1", timeout_s=0)


def test_cached_prompt_tokens_are_read_from_usage_details():
    body = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5,
                      "prompt_tokens_details": {"cached_tokens": 64}}}
    usage = OpenAICompatibleProvider._response(body, 0.1).usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens) == (100, 5, 64)
    del body["usage"]["prompt_tokens_details"]
    assert OpenAICompatibleProvider._response(body, 0.1).usage.cached_tokens == 0
