"""The simulated judge's batch endpoints read the clock more than once per request (the
store advances the batch, then the answer says whether it ended): a batch whose end passes
between the two reads must not say it ended while requests are still in progress.

Found by benchmarks/batch_kill.py: under load a poll answering ~1,200 requests took longer
than the time left to the batch's end, the batch was reported ``expired`` with 5 requests
still processing; they went to the error file with ``status_code`` 0, the client (rightly,
for an error file line) sent them again, and the sim counted 5 requests paid twice.
"""

import asyncio
import json

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from jurybox.protocols import listwise_request
from jurybox.sim import SimJudge
from jurybox.sim.answering import Answerer
from jurybox.sim.batch_anthropic import add_anthropic_batch_routes
from jurybox.sim.batch_openai import add_openai_batch_routes
from jurybox.sim.batch_state import BatchScript, BatchStore

from ..conftest import make_items

ITEMS = make_items(4)


class Ticking:
    """A clock that moves 4 s each time it is read, from 1,000 s."""

    def __init__(self) -> None:
        self.now = 996.0

    def __call__(self) -> float:
        self.now += 4.0
        return self.now


def _body(item):
    request = listwise_request(item.prompt, list(item.candidates), tag="00aa00aa", seed=1)
    return {"model": "judge", "messages": [m.model_dump() for m in request.messages],
            "seed": request.seed, "max_tokens": 1024}


async def _serve(store):
    app = web.Application()
    answerer = Answerer(SimJudge(ITEMS))
    add_openai_batch_routes(app, store, answerer)
    add_anthropic_batch_routes(app, store, answerer)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    return server


def test_an_openai_batch_never_ends_with_a_request_still_processing():
    # delay 10 s, 4 requests ending at 2.5, 5, 7.5, 10 s. Clock reads: create 1,000 (its
    # answer 1,004); the poll advances at 1,008 (3 answered) and answers at 1,012, after the
    # end: it must say completed with all 4 answered, not 3 and one in the error file
    async def go():
        store = BatchStore(BatchScript(delay_s=10.0), clock=Ticking())
        server = await _serve(store)
        base = str(server.make_url("/v1"))
        lines = "".join(json.dumps({"custom_id": f"c{i}", "method": "POST",
                                                  "url": "/v1/chat/completions",
                                                  "body": _body(it)}) + "\n"
                        for i, it in enumerate(ITEMS))
        try:
            async with aiohttp.ClientSession() as http:
                form = aiohttp.FormData()
                form.add_field("purpose", "batch")
                form.add_field("file", lines.encode(), filename="in.jsonl")
                async with http.post(f"{base}/files", data=form) as resp:
                    file = await resp.json()
                async with http.post(f"{base}/batches", json={
                        "input_file_id": file["id"], "endpoint": "/v1/chat/completions",
                        "completion_window": "24h"}) as resp:
                    batch = await resp.json()
                async with http.get(f"{base}/batches/{batch['id']}") as resp:
                    batch = await resp.json()
        finally:
            await server.close()
        return batch

    batch = asyncio.run(go())
    assert batch["status"] == "completed"
    assert batch["request_counts"] == {"total": 4, "completed": 4, "failed": 0}
    assert batch["error_file_id"] is None


def test_anthropic_results_never_hold_a_request_still_processing():
    # the same clock: create 1,000 (answer 1,004); retrieve advances at 1,008 and answers at
    # 1,012 (ended); the results must hold 4 succeeded requests, none "processing"
    async def go():
        store = BatchStore(BatchScript(delay_s=10.0), clock=Ticking())
        server = await _serve(store)
        root = str(server.make_url("")).rstrip("/")
        requests = [{"custom_id": f"c{i}", "params": {
            "model": "c", "max_tokens": 1024, "system": _body(it)["messages"][0]["content"],
            "messages": _body(it)["messages"][1:]}} for i, it in enumerate(ITEMS)]
        try:
            async with aiohttp.ClientSession() as http:
                async with http.post(f"{root}/v1/messages/batches",
                                     json={"requests": requests}) as resp:
                    batch = await resp.json()
                async with http.get(f"{root}/v1/messages/batches/{batch['id']}") as resp:
                    batch = await resp.json()
        finally:
            await server.close()
        return batch

    batch = asyncio.run(go())
    assert batch["processing_status"] == "ended"
    assert batch["request_counts"] == {"processing": 0, "succeeded": 4, "errored": 0,
                                       "canceled": 0, "expired": 0}
