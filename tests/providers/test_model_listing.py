"""A warning before any work when the server's /v1/models list lacks the model."""

import asyncio
import logging

import pytest
from aiohttp import web

from jurybox.providers import OpenAICompatibleProvider

WARNING_FROM = "jurybox.providers.openai_compat"


async def _check(provider_name, model, models_handler):
    app = web.Application()
    app.router.add_get("/v1/models", models_handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    provider = OpenAICompatibleProvider(provider_name, model, f"http://127.0.0.1:{port}/v1")
    try:
        await provider.check()
    finally:
        await provider.aclose()
        await runner.cleanup()
    return provider


def _listing(*ids):
    async def handler(_):
        return web.json_response({"object": "list", "data": [
            {"id": i, "object": "model", "owned_by": "someone"} for i in ids]})
    return handler


def _warnings(caplog):
    return [r.getMessage() for r in caplog.records
            if r.name == WARNING_FROM and r.levelno == logging.WARNING]


def test_an_unlisted_model_is_warned_about(caplog):
    caplog.set_level(logging.WARNING, WARNING_FROM)
    asyncio.run(_check("vllm", "Qwen2.5-7B", _listing("Qwen/Qwen2.5-7B-Instruct", "other")))
    (message,) = _warnings(caplog)
    assert "model 'Qwen2.5-7B' is not in the models http://127.0.0.1:" in message
    assert "(Qwen/Qwen2.5-7B-Instruct, other)" in message and "--model" in message


@pytest.mark.parametrize("provider, model, handler", [
    ("vllm", "m1", _listing("m0", "m1")),                 # listed
    ("ollama", "llama3.1", _listing("llama3.1:latest")),  # Ollama's implicit tag
    ("llamacpp", "anything", _listing("smollm2.gguf")),   # serves its one model by any name
    ("vllm", "m1", _listing()),                           # lists nothing: nothing to say
])
def test_no_warning_when_listed_or_the_list_says_nothing(caplog, provider, model, handler):
    caplog.set_level(logging.WARNING, WARNING_FROM)
    asyncio.run(_check(provider, model, handler))
    assert _warnings(caplog) == []


@pytest.mark.parametrize("response", [
    lambda: web.Response(status=405, text="no listing here"),
    lambda: web.json_response({"models": ["m0"]}),
    lambda: web.json_response(["m0"]),
    lambda: web.json_response({"data": None}),
    lambda: web.json_response({"data": "m0"}),
    lambda: web.json_response({"data": [5, None, {"id": 3}, {"id": "m1", "owned_by": [1]}]}),
    lambda: web.json_response(None),
])
def test_servers_without_a_usable_list_are_tolerated(caplog, response):
    async def handler(_):
        return response()
    caplog.set_level(logging.WARNING, WARNING_FROM)
    asyncio.run(_check("vllm", "m1", handler))  # no error either
    assert _warnings(caplog) == []


def test_never_for_the_simulated_judge(sim, caplog):
    caplog.set_level(logging.WARNING, WARNING_FROM)

    async def main(base_url):
        provider = OpenAICompatibleProvider("vllm", "not-judge", base_url)
        try:
            await provider.check()
        finally:
            await provider.aclose()
        return provider

    with sim() as server:
        provider = asyncio.run(main(server.base_url))
    assert provider.simulated and _warnings(caplog) == []
