"""OpenAI's Batch API on the simulated judge, over HTTP (aiohttp client, 127.0.0.1)."""

import asyncio
import json

import aiohttp
import pytest

from jurybox.protocols import listwise_request
from jurybox.sim import BatchScript, Faults, SimConfig, SimJudge, SimServer
from jurybox.sim import batch_openai

from ..conftest import make_items

ITEMS = make_items(6)


def _body(item, seed=1):
    request = listwise_request(item.prompt, list(item.candidates), tag="00aa00aa", seed=seed)
    return {"model": "judge", "messages": [m.model_dump() for m in request.messages],
            "seed": request.seed}


def _line(custom_id, body, **change):
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
            "body": body, **change}


def _jsonl(lines):
    return "".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines)


async def _upload(http, base, text, purpose="batch"):
    form = aiohttp.FormData()
    form.add_field("purpose", purpose)
    form.add_field("file", text.encode(), filename="in.jsonl")
    async with http.post(f"{base}/files", data=form) as resp:
        return resp.status, await resp.json()


async def _create(http, base, lines):
    status, file = await _upload(http, base, _jsonl(lines))
    assert status == 200, file
    async with http.post(f"{base}/batches", json={
            "input_file_id": file["id"], "endpoint": "/v1/chat/completions",
            "completion_window": "24h", "metadata": {"run": "t"}}) as resp:
        assert resp.status == 200
        return await resp.json()


async def _wait(http, base, batch_id, until=("completed", "expired", "failed", "cancelled")):
    for _ in range(200):
        async with http.get(f"{base}/batches/{batch_id}") as resp:
            batch = await resp.json()
        if batch["status"] in until:
            return batch
        await asyncio.sleep(0.05)
    raise AssertionError(batch)


async def _lines(http, base, file_id):
    async with http.get(f"{base}/files/{file_id}/content") as resp:
        return [json.loads(ln) for ln in (await resp.text()).splitlines()]


def _serve(script=BatchScript(delay_s=0.2), config=SimConfig()):
    return SimServer(SimJudge(ITEMS, config), batch=script)


def test_a_batch_line_gets_the_online_answer_in_a_shuffled_order():
    async def go(base):
        async with aiohttp.ClientSession() as http:
            ids = [f"item-{i}" for i in range(6)]
            created = await _create(http, base, [_line(c, _body(it))
                                                 for c, it in zip(ids, ITEMS)])
            assert created["status"] == "validating" and created["object"] == "batch"
            assert created["id"].startswith("batch_") and created["metadata"] == {"run": "t"}
            assert created["expires_at"] == created["created_at"] + 86_400
            batch = await _wait(http, base, created["id"])
            assert batch["status"] == "completed" and batch["error_file_id"] is None
            assert batch["request_counts"] == {"total": 6, "completed": 6, "failed": 0}
            output = await _lines(http, base, batch["output_file_id"])
            online = {}
            for custom_id, item in zip(ids, ITEMS):
                async with http.post(f"{base}/chat/completions", json=_body(item)) as resp:
                    online[custom_id] = (await resp.json())["choices"][0]["message"]["content"]
            async with http.get(f"{base}/files/{batch['output_file_id']}") as resp:
                info = await resp.json()
            return output, online, info
    with _serve() as server:
        output, online, info = asyncio.run(go(server.base_url))
    assert [ln["custom_id"] for ln in output] != [f"item-{i}" for i in range(6)]  # shuffled
    assert sorted(ln["custom_id"] for ln in output) == sorted(online)
    for line in output:
        assert line["id"].startswith("batch_req_") and line["error"] is None
        assert line["response"]["status_code"] == 200
        body = line["response"]["body"]
        assert body["object"] == "chat.completion"
        assert body["choices"][0]["message"]["content"] == online[line["custom_id"]]
    assert info["object"] == "file" and info["purpose"] == "batch_output"
    assert info["bytes"] > 0 and info["filename"].endswith("_output.jsonl")


async def _file_or_none(http, base, file_id):
    return [] if file_id is None else await _lines(http, base, file_id)


def test_scripted_errors_expiries_and_judge_faults_go_to_the_error_file():
    async def go(base, lines):
        async with aiohttp.ClientSession() as http:
            batch = await _wait(http, base, (await _create(http, base, lines))["id"])
            return (batch, await _file_or_none(http, base, batch["error_file_id"]),
                    await _file_or_none(http, base, batch["output_file_id"]))
    lines = [_line(f"r{i}", _body(ITEMS[i % 6], seed=i)) for i in range(10)]
    script = BatchScript(delay_s=0.0, error_rate=0.25, expire_share=0.2, seed=3)
    with _serve(script) as server:
        batch, errors, output = asyncio.run(go(server.base_url, lines))
    # expired round(0.2 * 10) = 2, errored round-half-up(2.5) = 3, succeeded 10 - 5 = 5
    assert batch["status"] == "expired" and batch["expired_at"] is not None
    assert batch["request_counts"] == {"total": 10, "completed": 5, "failed": 3}
    assert len(output) == 5
    failed = [e for e in errors if e["response"]]
    assert [e["response"]["status_code"] for e in failed] == [500] * 3
    assert {e["response"]["body"]["error"]["message"] for e in failed} == {
        "internal server error (simulated batch error)"}
    assert [e["error"]["code"] for e in errors if not e["response"]] == ["batch_expired"] * 2
    # the judge's own HTTP faults: every request's first attempt is a 429
    with _serve(BatchScript(delay_s=0.0), SimConfig(faults=Faults(first_429=1))) as server:
        batch, errors, output = asyncio.run(go(server.base_url, lines[:3]))
        assert batch["status"] == "completed" and output == []
        assert {(e["response"]["status_code"], e["response"]["body"]["error"]["message"])
                for e in errors} == {(429, "rate limited (injected)")}
        batch, errors, output = asyncio.run(go(server.base_url, lines[:3]))  # retried: fine
        assert len(output) == 3 and batch["error_file_id"] is None
    # a slow answer's delay (120 s here) is not waited in a batch (_wait gives up after 10 s)
    slow = SimConfig(faults=Faults(rate_slow=1.0, slow_s=120.0))
    with _serve(BatchScript(delay_s=0.0), slow) as server:
        batch, errors, output = asyncio.run(go(server.base_url, lines[:3]))
    assert batch["status"] == "completed" and len(output) == 3 and errors == []


def test_an_invalid_input_file_fails_the_batch_with_line_errors(monkeypatch):
    body = _body(ITEMS[0])
    lines = ["{not json", _line("", body), _line("a", body), _line("a", body),
             _line("b", body, method="GET"), _line("c", body, url="/v1/embeddings"),
             _line("d", {"messages": []}), _line("e", body)]

    async def go(base):
        async with aiohttp.ClientSession() as http:
            bad = await _wait(http, base, (await _create(http, base, lines))["id"])
            async with http.post(f"{base}/batches", json={
                    "input_file_id": "file-none", "endpoint": "/v1/chat/completions",
                    "completion_window": "24h"}) as resp:
                unknown = resp.status, await resp.json()
            monkeypatch.setattr(batch_openai, "MAX_REQUESTS", 1)
            big = await _wait(http, base, (await _create(http, base, [
                _line("x", {"model": "m"}), _line("y", {"model": "m"})]))["id"])
            monkeypatch.setattr(batch_openai, "MAX_FILE_BYTES", 100)
            too_large = await _upload(http, base, "x" * 101)
            return bad, unknown, big, too_large
    with _serve() as server:
        bad, unknown, big, too_large = asyncio.run(go(server.base_url))
    assert bad["status"] == "failed" and bad["output_file_id"] is None
    assert bad["request_counts"] == {"total": 0, "completed": 0, "failed": 0}
    assert [(e["code"], e["line"]) for e in bad["errors"]["data"]] == [
        ("invalid_json_line", 1), ("missing_required_parameter", 2),
        ("duplicate_custom_id", 4), ("invalid_method", 5), ("invalid_url", 6),
        ("missing_required_parameter", 7)]
    assert unknown[0] == 400 and "file-none" in unknown[1]["error"]["message"]
    assert [e["code"] for e in big["errors"]["data"]] == ["too_many_requests"]
    assert too_large[0] == 400 and too_large[1]["error"]["code"] == "file_too_large"


def test_reject_cancel_and_list():
    lines = [_line(f"r{i}", _body(ITEMS[i])) for i in range(3)]

    async def go(base):
        async with aiohttp.ClientSession() as http:
            created = await _create(http, base, lines)
            async with http.post(f"{base}/batches/{created['id']}/cancel") as resp:
                cancelling = await resp.json()
            cancelled = await _wait(http, base, created["id"], until=("cancelled",))
            async with http.post(f"{base}/batches/{created['id']}/cancel") as resp:
                again = resp.status
            errors = await _lines(http, base, cancelled["error_file_id"])
            ids = [created["id"]] + [(await _create(http, base, lines))["id"] for _ in "ab"]
            async with http.get(f"{base}/batches", params={"limit": "2"}) as resp:
                first = await resp.json()
            async with http.get(f"{base}/batches", params={"limit": "2",
                                                           "after": first["last_id"]}) as resp:
                rest = await resp.json()
            async with http.get(f"{base}/sim/batch_stats", params={"detail": "1"}) as resp:
                stats = await resp.json()
            return cancelling, cancelled, again, errors, ids, first, rest, stats
    with _serve(BatchScript(delay_s=60.0, cancel_s=0.2)) as server:
        cancelling, cancelled, again, errors, ids, first, rest, stats = asyncio.run(
            go(server.base_url))
    assert cancelling["status"] == "cancelling" and cancelling["cancelling_at"] is not None
    assert cancelled["cancelled_at"] is not None and cancelled["output_file_id"] is None
    assert again == 409
    assert sorted(e["custom_id"] for e in errors) == ["r0", "r1", "r2"]
    assert {e["error"]["code"] for e in errors} == {"batch_cancelled"}
    assert [b["id"] for b in first["data"]] == ids[:0:-1] and first["has_more"] is True
    assert first["object"] == "list" and first["first_id"] == ids[2]
    assert [b["id"] for b in rest["data"]] == ids[:1] and rest["has_more"] is False
    # the two later batches resubmit r0-r2 while the second is in progress: 3 paid twice
    assert stats == {"batches_created": 3, "requests_submitted": 9, "distinct_custom_ids": 3,
                     "resubmitted": 3, "submissions": {"r0": 3, "r1": 3, "r2": 3}}

    async def rejected(base):
        async with aiohttp.ClientSession() as http:
            return await _wait(http, base, (await _create(http, base, lines))["id"])
    with _serve(BatchScript(reject=True)) as server:
        batch = asyncio.run(rejected(server.base_url))
    assert batch["status"] == "failed" and batch["failed_at"] is not None
    assert [e["code"] for e in batch["errors"]["data"]] == ["rejected"]


def test_the_openai_sdk_uploads_creates_polls_and_reads():
    openai = pytest.importorskip("openai")
    text = _jsonl([_line(f"r{i}", _body(ITEMS[i])) for i in range(3)])

    async def go(base):
        client = openai.AsyncOpenAI(base_url=base, api_key="x", max_retries=0)
        file = await client.files.create(file=("in.jsonl", text.encode()), purpose="batch")
        batch = await client.batches.create(input_file_id=file.id,
                                            endpoint="/v1/chat/completions",
                                            completion_window="24h")
        for _ in range(200):
            batch = await client.batches.retrieve(batch.id)
            if batch.status == "completed":
                break
            await asyncio.sleep(0.05)
        content = await client.files.content(batch.output_file_id)
        listed = await client.batches.list(limit=5)
        deleted = await client.files.delete(file.id)
        return file, batch, content.text, listed, deleted
    with _serve() as server:
        file, batch, content, listed, deleted = asyncio.run(go(server.base_url))
    assert file.purpose == "batch" and file.bytes == len(text.encode())
    assert batch.request_counts.total == 3 and batch.request_counts.completed == 3
    assert sorted(json.loads(ln)["custom_id"] for ln in content.splitlines()) == [
        "r0", "r1", "r2"]
    assert [b.id for b in listed.data] == [batch.id] and deleted.deleted is True
