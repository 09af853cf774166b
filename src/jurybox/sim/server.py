"""The simulated judge as an OpenAI-compatible HTTP server on 127.0.0.1.

``POST /v1/chat/completions`` answers like an OpenAI endpoint (choices, usage); ``GET
/v1/models`` lists the model ``judge``. A prompt showing candidates or responses the judge was
not loaded with (serve-sim started with another ``--dataset``) is answered all the same, with
a header :data:`UNKNOWN_HEADER` counting them, a warning logged (the first time, then at
10, 100, 1000... such prompts), and counted in ``GET /v1/sim/stats`` (:class:`SimStats` as
JSON), which a run reads before and after judging to warn in its summary. Anthropic's
``POST /v1/messages`` is answered by the same judge. The batch APIs of both (OpenAI's
``/v1/files`` and ``/v1/batches``, Anthropic's ``/v1/messages/batches``) give each request
the answer the online endpoint gives for the same body (:mod:`.batch_openai`,
:mod:`.batch_anthropic`, scripted by :class:`BatchScript`). With ``max_concurrency`` N, at
most N online answers (``/v1/chat/completions`` and ``/v1/messages``, each held for its
latency) are served at once and the others queue in arrival order, as on a GPU server
(:class:`~jurybox.sim.capacity.Capacity`; its counters join ``/v1/sim/stats``); the batch
endpoints are not limited. :class:`SimServer` runs it in
a background thread with its own event loop, so the caller's loop (and its client CPU) stays
separate.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import asdict
from typing import Any

from aiohttp import web

from ..providers import SIM_OWNER, OpenAICompatibleProvider
from ..providers.openai_compat import SIM_KNOWS_FIELD
from .answering import (SIM_MODEL, UNKNOWN_HEADER, Answerer, PrefixCache, Reply,
                        anthropic_error_body, body_key)
from .batch_anthropic import add_anthropic_batch_routes
from .batch_openai import add_openai_batch_routes
from .batch_state import BATCH_STATS_PATH, BatchScript, BatchStore
from .capacity import Capacity
from .judge import SimJudge

__all__ = ["make_app", "SimServer", "SIM_MODEL", "UNKNOWN_HEADER", "STATS_PATH",
           "BATCH_STATS_PATH", "BatchScript", "PrefixCache", "serve_forever"]

#: The judge's counters (:class:`~jurybox.sim.judge.SimStats`) and the server's capacity
#: counters (:meth:`~jurybox.sim.capacity.Capacity.stats`), under the base URL's ``/v1``.
STATS_PATH = "/v1/sim/stats"


def make_app(judge: SimJudge, *, batch: BatchScript | None = None,
             max_concurrency: int | None = None) -> web.Application:
    """An aiohttp application serving ``judge``: online, and in batches (OpenAI's
    ``/v1/files`` and ``/v1/batches``, Anthropic's ``/v1/messages/batches``) as ``batch``
    scripts (default :class:`BatchScript`), with the batch counters at
    :data:`BATCH_STATS_PATH`. ``max_concurrency``: online answers served at once (each held
    for its latency, ``SimConfig.latency_ms``), the others queued first in, first out;
    ``None`` (default) for unlimited.

    Raises:
        ValueError: ``max_concurrency`` below 1.
    """
    answerer = Answerer(judge)
    store = BatchStore(batch)
    capacity = Capacity(max_concurrency)

    async def completions(request: web.Request) -> web.Response:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return web.json_response({"error": {"message": "invalid JSON body"}}, status=400)
        async with capacity.slot():
            return await _send(answerer.chat(body, body_key(raw)))

    async def messages(request: web.Request) -> web.Response:
        """Anthropic's ``/v1/messages``, answered by the same judge (a loopback fake for the
        Anthropic provider): a forced ``answer`` tool gets the answer as tool input."""
        raw = await request.read()
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return web.json_response(anthropic_error_body("invalid_request_error",
                                                          "invalid JSON body"), status=400)
        async with capacity.slot():
            return await _send(answerer.messages(body, body_key(raw)))

    async def stats(_: web.Request) -> web.Response:
        return web.json_response({**asdict(judge.stats), **capacity.stats()})

    async def batch_stats(request: web.Request) -> web.Response:
        detail = request.query.get("detail", "0") not in ("", "0", "false")
        return web.json_response(store.stats(detail=detail))

    knows = judge.knowledge()

    async def models(_: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [
            {"id": SIM_MODEL, "object": "model", "owned_by": SIM_OWNER,
             SIM_KNOWS_FIELD: knows}]})

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_get("/v1/models", models)
    app.router.add_get(STATS_PATH, stats)
    app.router.add_get(BATCH_STATS_PATH, batch_stats)
    app.router.add_post("/v1/messages", messages)
    add_openai_batch_routes(app, store, answerer)
    add_anthropic_batch_routes(app, store, answerer)
    return app


async def _send(reply: Reply) -> web.Response:
    """Wait the reply's delay, then send it."""
    if reply.delay_s:
        await asyncio.sleep(reply.delay_s)
    return web.json_response(reply.body, status=reply.status, headers=reply.headers)


class SimServer:
    """Runs the simulated judge on 127.0.0.1 in a background thread.

    Use as a context manager::

        with SimServer(SimJudge(items)) as server:
            provider = server.provider()

    Args:
        judge: the behaviour.
        port: TCP port, 0 for any free port (read ``server.port`` after start).
        batch: how its batch endpoints behave (default :class:`BatchScript`).
        max_concurrency: online answers served at once (a replica's capacity), the others
            queued first in, first out; ``None`` (default) for unlimited.

    Raises:
        ValueError: ``max_concurrency`` below 1.
    """

    def __init__(self, judge: SimJudge, *, host: str = "127.0.0.1", port: int = 0,
                 batch: BatchScript | None = None, max_concurrency: int | None = None) -> None:
        Capacity(max_concurrency)  # refuses a bad value here, not in the server's thread
        self.judge, self.host, self.port, self.batch = judge, host, port, batch
        self.max_concurrency = max_concurrency
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
        self._runner = web.AppRunner(make_app(self.judge, batch=self.batch,
                                              max_concurrency=self.max_concurrency),
                                     access_log=None)
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


def serve_forever(judge: SimJudge, *, host: str = "127.0.0.1", port: int = 8765,
                  batch: BatchScript | None = None, max_concurrency: int | None = None) -> None:
    """Serve in the foreground until interrupted (``jurybox serve-sim``); ``max_concurrency``
    as in :func:`make_app` (raises ValueError below 1)."""
    web.run_app(make_app(judge, batch=batch, max_concurrency=max_concurrency), host=host,
                port=port, access_log=None, print=None)
