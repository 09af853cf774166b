"""Anthropic's Message Batches API on the simulated judge: over HTTP with aiohttp, and through
the ``anthropic`` SDK (``messages.batches``)."""

import asyncio
import json

import aiohttp
import pytest

from jurybox.protocols import listwise_request
from jurybox.sim import BatchScript, SimConfig, SimJudge, SimServer
from jurybox.sim import batch_anthropic

from ..conftest import make_items

ITEMS = make_items(6)


def _params(item, seed=1):
    request = listwise_request(item.prompt, list(item.candidates), tag="00aa00aa", seed=seed)
    system, *rest = request.messages
    return {"model": "claude-test", "max_tokens": 1024, "system": system.content,
            "messages": [m.model_dump() for m in rest]}


def _serve(script=BatchScript(delay_s=0.2)):
    return SimServer(SimJudge(ITEMS, SimConfig()), batch=script)


def _root(server):
    return f"http://127.0.0.1:{server.port}"


def test_results_are_the_online_messages_in_a_shuffled_order():
    requests = [{"custom_id": f"item-{i}", "params": _params(it)} for i, it in enumerate(ITEMS)]

    async def go(root):
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{root}/v1/messages/batches",
                                 json={"requests": requests}) as resp:
                created = await resp.json()
            async with http.get(f"{root}/v1/messages/batches/{created['id']}/results") as resp:
                early = resp.status
            for _ in range(200):
                async with http.get(f"{root}/v1/messages/batches/{created['id']}") as resp:
                    batch = await resp.json()
                if batch["processing_status"] == "ended":
                    break
                await asyncio.sleep(0.05)
            async with http.get(batch["results_url"]) as resp:
                results = [json.loads(ln) for ln in (await resp.text()).splitlines()]
            online = {}
            for request in requests:
                async with http.post(f"{root}/v1/messages", json=request["params"]) as resp:
                    online[request["custom_id"]] = (await resp.json())["content"][0]["text"]
            return created, early, batch, results, online
    with _serve() as server:
        created, early, batch, results, online = asyncio.run(go(_root(server)))
    assert created["type"] == "message_batch" and created["id"].startswith("msgbatch_")
    assert created["processing_status"] == "in_progress" and created["results_url"] is None
    assert created["request_counts"] == {"processing": 6, "succeeded": 0, "errored": 0,
                                         "canceled": 0, "expired": 0}
    assert early == 404  # no results before processing ends
    assert batch["request_counts"]["succeeded"] == 6 and batch["ended_at"] is not None
    assert batch["created_at"].endswith("Z")
    assert [r["custom_id"] for r in results] != [f"item-{i}" for i in range(6)]  # shuffled
    assert sorted(r["custom_id"] for r in results) == sorted(online)
    for line in results:
        assert line["result"]["type"] == "succeeded"
        message = line["result"]["message"]
        assert message["type"] == "message"
        assert message["content"][0]["text"] == online[line["custom_id"]]


@pytest.mark.parametrize("custom_id, problem", [
    ("has space", "does not match"), ("x" * 65, "does not match"), ("", "does not match")])
def test_a_bad_custom_id_is_a_400(custom_id, problem):
    async def go(root):
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{root}/v1/messages/batches", json={"requests": [
                    {"custom_id": custom_id, "params": _params(ITEMS[0])}]}) as resp:
                return resp.status, await resp.json()
    with _serve() as server:
        status, body = asyncio.run(go(_root(server)))
    assert status == 400 and body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error" and problem in body["error"]["message"]


def test_duplicates_bounds_and_reject_are_refused(monkeypatch):
    async def post(root, requests):
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{root}/v1/messages/batches",
                                 json={"requests": requests}) as resp:
                return resp.status, (await resp.json())["error"]

    two = [{"custom_id": c, "params": _params(ITEMS[0])} for c in ("a", "a")]
    with _serve(BatchScript(reject=True)) as server:
        status, error = asyncio.run(post(_root(server), two[:1]))
    assert (status, error["type"]) == (400, "invalid_request_error")
    assert "rejected" in error["message"]
    with _serve() as server:
        assert asyncio.run(post(_root(server), two))[1]["message"] == (
            "requests.1.custom_id: 'a' is not unique in the batch")
        monkeypatch.setattr(batch_anthropic, "MAX_REQUESTS", 1)
        status, error = asyncio.run(post(_root(server),
                                         [two[0], {**two[1], "custom_id": "b"}]))
        assert (status, error["type"]) == (400, "invalid_request_error")
        assert "at most 1" in error["message"]
        monkeypatch.setattr(batch_anthropic, "MAX_BODY_BYTES", 100)
        status, error = asyncio.run(post(_root(server), two[:1]))
        assert (status, error["type"]) == (413, "request_too_large")


def test_the_anthropic_sdk_creates_polls_reads_lists_and_cancels():
    anthropic = pytest.importorskip("anthropic")

    async def go(root):
        client = anthropic.AsyncAnthropic(base_url=root, api_key="x", max_retries=0)
        requests = [{"custom_id": f"r{i}", "params": _params(ITEMS[i])} for i in range(3)]
        batch = await client.messages.batches.create(requests=requests)
        for _ in range(200):
            batch = await client.messages.batches.retrieve(batch.id)
            if batch.processing_status == "ended":
                break
            await asyncio.sleep(0.05)
        results = [r async for r in await client.messages.batches.results(batch.id)]
        late = await client.messages.batches.create(requests=requests)
        canceling = await client.messages.batches.cancel(late.id)
        listed = await client.messages.batches.list(limit=1)
        return batch, results, canceling, listed
    with _serve(BatchScript(delay_s=0.2, cancel_s=30.0, error_rate=1 / 3)) as server:
        batch, results, canceling, listed = asyncio.run(go(_root(server)))
    # errored: round(1/3 * 3) = 1 of 3
    assert (batch.request_counts.succeeded, batch.request_counts.errored) == (2, 1)
    kinds = sorted(r.result.type for r in results)
    assert kinds == ["errored", "succeeded", "succeeded"]
    (errored,) = [r.result for r in results if r.result.type == "errored"]
    assert errored.error.error.type == "api_error"
    assert all(r.result.message.content[0].type == "text"
               for r in results if r.result.type == "succeeded")
    assert canceling.processing_status == "canceling"
    assert canceling.cancel_initiated_at is not None and canceling.request_counts.canceled == 3
    assert [b.id for b in listed.data] == [canceling.id] and listed.has_more is True


def test_the_list_pages_newest_first_both_ways():
    async def go(root):
        async with aiohttp.ClientSession() as http:
            ids = []
            for i in range(3):
                async with http.post(f"{root}/v1/messages/batches", json={"requests": [
                        {"custom_id": f"r{i}", "params": _params(ITEMS[i])}]}) as resp:
                    ids.append((await resp.json())["id"])
            pages = []
            for query in ({"limit": "2"}, {"limit": "2", "after_id": ids[1]},
                          {"limit": "1", "before_id": ids[0]}, {"limit": "0"}):
                async with http.get(f"{root}/v1/messages/batches", params=query) as resp:
                    pages.append((resp.status, await resp.json()))
            return ids, pages
    with _serve() as server:
        ids, pages = asyncio.run(go(_root(server)))
    newest, after, before, bad = pages
    assert [b["id"] for b in newest[1]["data"]] == [ids[2], ids[1]]
    assert (newest[1]["has_more"], newest[1]["first_id"], newest[1]["last_id"]) == (
        True, ids[2], ids[1])
    assert [b["id"] for b in after[1]["data"]] == [ids[0]] and after[1]["has_more"] is False
    # before ids[0] (the oldest) come ids[2], ids[1]; a page of 1 is the adjacent one
    assert [b["id"] for b in before[1]["data"]] == [ids[1]] and before[1]["has_more"] is True
    assert bad[0] == 400 and bad[1]["error"]["type"] == "invalid_request_error"
