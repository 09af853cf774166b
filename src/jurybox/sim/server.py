"""The simulated judge as an OpenAI-compatible HTTP server on 127.0.0.1.

``POST /v1/chat/completions`` answers like an OpenAI endpoint (choices, usage); ``GET
/v1/models`` lists the model ``judge``. A prompt showing candidates or responses the judge was
not loaded with (serve-sim started with another ``--dataset``) is answered all the same, with
a header :data:`UNKNOWN_HEADER` counting them, a warning logged (the first time, then at
10, 100, 1000... such prompts), and counted in ``GET /v1/sim/stats`` (:class:`SimStats` as
JSON), which a run reads before and after judging to warn in its summary.
:class:`SimServer` runs it in a background thread with its own event loop, so the caller's
loop (and its client CPU) stays separate.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
import time
from collections import Counter
from dataclasses import asdict
from typing import Any

from aiohttp import web

from ..providers import SIM_OWNER, OpenAICompatibleProvider
from ..providers.openai_compat import SIM_KNOWS_FIELD
from .judge import SimJudge

__all__ = ["make_app", "SimServer", "SIM_MODEL", "UNKNOWN_HEADER", "STATS_PATH"]

SIM_MODEL = "judge"
#: Response header: how many of the prompt's candidates or responses the judge does not know.
UNKNOWN_HEADER = "X-Jurybox-Sim-Unknown"
#: The judge's counters (:class:`~jurybox.sim.judge.SimStats`), under the base URL's ``/v1``.
STATS_PATH = "/v1/sim/stats"

log = logging.getLogger(__name__)


def _note_unknown(judge: SimJudge) -> None:
    """Log the unknown prompts at the first one, then at 10, 100, 1000, ..."""
    n = judge.stats.unknown_prompts
    if n == 1 or (n >= 10 and str(n).rstrip("0") == "1"):
        log.warning("asked about %d prompt(s) whose candidates or responses it does not know "
                    "(it was loaded with %d items: start serve-sim with the run's --dataset); "
                    "their judgments are noise around a middling quality", n,
                    judge.stats.known_items)


def _anthropic_error(status: int, kind: str, message: str,
                     retry_after_s: float | None = None) -> web.Response:
    headers = {"Retry-After": f"{retry_after_s:g}"} if retry_after_s is not None else None
    return web.json_response({"type": "error", "error": {"type": kind, "message": message}},
                             status=status, headers=headers)


class PrefixCache:
    """A prompt-prefix cache like vLLM's automatic prefix caching: the prompt (messages
    concatenated) is cut into blocks of ``block`` characters, each block keyed by the hash of
    everything up to its end; the leading blocks already seen are "cached". Reported as
    ``prompt_tokens_details.cached_tokens`` (about 4 characters a token), so runs show what a
    provider's prefix discount would see. Holds one 16-byte digest per distinct block."""

    def __init__(self, block: int = 256) -> None:
        self.block = block
        self._seen: set[bytes] = set()

    def cached_chars(self, prompt: str) -> int:
        """Characters of ``prompt`` in leading blocks seen before; records its blocks."""
        digest, cached, hit = hashlib.blake2b(digest_size=16), 0, True
        for start in range(0, len(prompt) - self.block + 1, self.block):
            digest.update(prompt[start:start + self.block].encode())
            key = digest.copy().digest()
            if hit and key in self._seen:
                cached += self.block
            else:
                hit = False
                self._seen.add(key)
        return cached


def make_app(judge: SimJudge) -> web.Application:
    """An aiohttp application serving ``judge``."""
    attempts: Counter[str] = Counter()
    prefixes = PrefixCache()

    async def completions(request: web.Request) -> web.Response:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return web.json_response({"error": {"message": "invalid JSON body"}}, status=400)
        ident = hashlib.sha256(raw).hexdigest()
        attempt = attempts[ident]
        attempts[ident] += 1
        answer = judge.answer(body, attempt)
        if answer.unknown:
            _note_unknown(judge)
        if answer.delay_s:
            await asyncio.sleep(answer.delay_s)
        if answer.status != 200:
            headers = ({"Retry-After": f"{answer.retry_after_s:g}"}
                       if answer.retry_after_s is not None else None)
            return web.json_response({"error": {"message": answer.text}}, status=answer.status,
                                     headers=headers)
        prompt = "".join(f"{m.get('role')}\x1f{m.get('content', '')}\x1e"
                         for m in body.get("messages", []) if isinstance(m, dict))
        prompt_chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
        cached = min(prefixes.cached_chars(prompt) // 4, prompt_chars // 4 + 1)
        return web.json_response({
            "id": f"sim-{ident[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", SIM_MODEL),
            "choices": [{"index": 0, "finish_reason": answer.finish_reason,
                         "message": {"role": "assistant", "content": answer.text}}],
            "usage": {"prompt_tokens": prompt_chars // 4 + 1,
                      "prompt_tokens_details": {"cached_tokens": cached},
                      "completion_tokens": len(answer.text) // 4 + 1,
                      "total_tokens": (prompt_chars + len(answer.text)) // 4 + 2},
        }, headers={UNKNOWN_HEADER: str(answer.unknown)})

    async def messages(request: web.Request) -> web.Response:
        """Anthropic's ``/v1/messages``, answered by the same judge (a loopback fake for the
        Anthropic provider): a forced ``answer`` tool gets the answer as tool input."""
        raw = await request.read()
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return _anthropic_error(400, "invalid_request_error", "invalid JSON body")
        ident = hashlib.sha256(raw).hexdigest()
        attempt = attempts[ident]
        attempts[ident] += 1
        tools = body.get("tools") or []
        chat = {"messages": ([{"role": "system", "content": body["system"]}]
                             if body.get("system") else []) + list(body.get("messages", [])),
                "max_tokens": body.get("max_tokens"),
                "response_format": {"type": "json_schema"} if tools else None}
        answer = judge.answer(chat, attempt)
        if answer.unknown:
            _note_unknown(judge)
        if answer.delay_s:
            await asyncio.sleep(answer.delay_s)
        if answer.status != 200:
            kind = {429: "rate_limit_error", 400: "invalid_request_error"}.get(
                answer.status, "overloaded_error")
            status = 529 if kind == "overloaded_error" else answer.status
            return _anthropic_error(status, kind, answer.text, answer.retry_after_s)
        content: list[dict[str, Any]] = [{"type": "text", "text": answer.text}]
        if tools:
            try:
                content = [{"type": "tool_use", "id": f"toolu_{ident[:12]}",
                            "name": tools[0]["name"], "input": json.loads(answer.text)}]
            except json.JSONDecodeError:
                pass  # a refusal or a cut-off answer comes back as text
        prompt_chars = sum(len(str(m.get("content", ""))) for m in chat["messages"])
        return web.json_response({
            "id": f"msg_{ident[:12]}", "type": "message", "role": "assistant",
            "model": body.get("model", SIM_MODEL), "content": content,
            "stop_reason": "max_tokens" if answer.finish_reason == "length" else
            "tool_use" if tools else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": prompt_chars // 4 + 1,
                      "output_tokens": len(answer.text) // 4 + 1}})

    async def stats(_: web.Request) -> web.Response:
        return web.json_response(asdict(judge.stats))

    knows = judge.knowledge()

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [
            {"id": SIM_MODEL, "object": "model", "owned_by": SIM_OWNER,
             SIM_KNOWS_FIELD: knows}]})

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_get("/v1/models", models)
    app.router.add_get(STATS_PATH, stats)
    app.router.add_post("/v1/messages", messages)
    return app


class SimServer:
    """Runs the simulated judge on 127.0.0.1 in a background thread.

    Use as a context manager::

        with SimServer(SimJudge(items)) as server:
            provider = server.provider()

    Args:
        judge: the behaviour.
        port: TCP port, 0 for any free port (read ``server.port`` after start).
    """

    def __init__(self, judge: SimJudge, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.judge, self.host, self.port = judge, host, port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def provider(self, *, timeout_s: float = 60.0, transport: str = "aiohttp"
                 ) -> OpenAICompatibleProvider:
        """A provider for this server; its cache identity is the judge's configuration and what
        it knows (:meth:`SimJudge.knowledge`: the items and their gold), not the port, which
        changes between runs."""
        return OpenAICompatibleProvider("sim", SIM_MODEL, self.base_url, timeout_s=timeout_s,
                                        transport=transport,  # type: ignore[arg-type]
                                        identity={"provider": "sim", "model": SIM_MODEL,
                                                  "config": self.judge.config.identity(),
                                                  "knows": self.judge.knowledge()})

    def start(self) -> SimServer:
        ready = threading.Event()
        errors: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._start_site())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())  # type: ignore[union-attr]
            loop.close()

        self._thread = threading.Thread(target=serve, name="jurybox-sim", daemon=True)
        self._thread.start()
        ready.wait()
        if errors:
            raise errors[0]
        return self

    async def _start_site(self) -> None:
        self._runner = web.AppRunner(make_app(self.judge), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._loop = self._thread = None

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def serve_forever(judge: SimJudge, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve in the foreground until interrupted (``jurybox serve-sim``)."""
    web.run_app(make_app(judge), host=host, port=port, access_log=None, print=None)
