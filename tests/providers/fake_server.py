"""A loopback OpenAI-compatible (and Anthropic Messages) server whose answers a test writes
byte for byte: for bodies no real server is expected to send, but some do."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web

#: A well-formed listwise answer for two candidates (labels A, B), A ranked first.
def listwise_answer(rationale: str = "A is right.") -> str:
    """The JSON text of a listwise answer ranking A over B (``rationale`` as given)."""
    flags = {"major_factual_error": False, "hallucinated_specificity": False,
             "calibrated_uncertainty": False}
    return json.dumps({"candidates": {"A": {"score": 90, **flags}, "B": {"score": 20, **flags}},
                       "ranking": ["A", "B"], "rationale": rationale})


def completion(content: Any = None, *, finish_reason: Any = "stop", usage: Any = None,
               raw_content: str | None = None) -> str:
    """A chat completion body as text; ``raw_content`` is JSON text put in place of
    ``content`` as is (for escapes such as ``"\\ud800"`` that json.dumps would not write)."""
    body: dict[str, Any] = {"choices": [{"index": 0, "message": {
        "role": "assistant", "content": "@@CONTENT@@" if raw_content else content},
        "finish_reason": finish_reason}]}
    if usage is not None:
        body["usage"] = usage
    text = json.dumps(body)
    return text.replace('"@@CONTENT@@"', raw_content) if raw_content else text


@contextmanager
def fake_server(chat: Callable[[dict], str] | str, *,
                models: str = '{"data": [{"id": "m", "owned_by": "test"}]}',
                seen: list[str] | None = None, status: int = 200,
                keys: list[str | None] | None = None) -> Iterator[str]:
    """Serve ``chat`` (a body, or request JSON -> body) at ``/v1/chat/completions`` and
    ``/v1/messages`` with HTTP ``status``, and ``models`` at ``/v1/models``, on 127.0.0.1 in
    a thread; yields the base URL (``http://127.0.0.1:PORT/v1``). ``seen`` collects each
    request's path and query; ``keys`` its Authorization header (None: none)."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    state: dict[str, Any] = {}

    async def answer(request: web.Request) -> web.Response:
        if seen is not None:
            seen.append(str(request.rel_url))
        if keys is not None:
            keys.append(request.headers.get("Authorization"))
        body = chat if isinstance(chat, str) else chat(await request.json())
        return web.Response(text=body, content_type="application/json", status=status)

    async def listing(request: web.Request) -> web.Response:
        if seen is not None:
            seen.append(str(request.rel_url))
        if keys is not None:
            keys.append(request.headers.get("Authorization"))
        return web.Response(text=models, content_type="application/json")

    async def start() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", answer)
        app.router.add_post("/v1/messages", answer)
        app.router.add_get("/v1/models", listing)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        state["runner"] = runner
        state["port"] = site._server.sockets[0].getsockname()[1]

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(state["runner"].cleanup())
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield f"http://127.0.0.1:{state['port']}/v1"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def check_and_complete(provider: Any, request: Any = None) -> Any:
    """``provider.check()`` then one ``complete(request)`` (a two-candidate listwise request
    by default), the provider closed after; the response."""
    from jurybox.protocols.prompts import listwise_request

    request = request or listwise_request("Q?", ["a", "b"], tag="0")

    async def main() -> Any:
        try:
            await provider.check()
            return await provider.complete(request)
        finally:
            await provider.aclose()
    return asyncio.run(main())
