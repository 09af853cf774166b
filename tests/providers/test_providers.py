import asyncio
import socket

import pytest

from jurybox.errors import ConfigError, ProviderError
from jurybox.protocols import listwise_request
from jurybox.providers import OpenAICompatibleProvider, make_provider, parse_spec

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

    with pytest.raises(ProviderError, match="cannot reach http://127.0.0.1"):
        asyncio.run(main())


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
