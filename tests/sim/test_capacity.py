"""A simulated server's capacity (--max-concurrency): at most N answers at once, the rest queued
first in, first out, counted at /v1/sim/stats; unlimited by default."""

import asyncio
import json

import aiohttp
import pytest
from typer.testing import CliRunner

import jurybox.sim
from jurybox.cli import app
from jurybox.protocols import listwise_request
from jurybox.sim import SimConfig, SimJudge, SimServer
from jurybox.sim.capacity import Capacity

from ..conftest import make_items

runner = CliRunner()


async def _settle() -> None:
    """Let every ready task run until it blocks."""
    for _ in range(5):
        await asyncio.sleep(0)


def test_slots_are_handed_over_first_in_first_out_and_a_cancelled_waiter_leaves():
    async def go():
        cap = Capacity(2)
        entered: list[int] = []
        gates = [asyncio.Event() for _ in range(7)]

        async def request(i):
            async with cap.slot():
                entered.append(i)
                await gates[i].wait()

        tasks = [asyncio.create_task(request(i)) for i in range(6)]
        await _settle()
        assert entered == [0, 1]
        assert cap.stats() == {"max_concurrency": 2, "in_flight": 2, "max_in_flight": 2,
                               "queued": 4, "queued_max": 4}
        gates[1].set()  # 1 leaves: its slot goes to 2, the first queued
        await _settle()
        assert entered == [0, 1, 2] and (cap.in_flight, cap.queued) == (2, 3)
        tasks.append(asyncio.create_task(request(6)))  # arrives late: queued behind 3, 4, 5
        await _settle()
        assert cap.queued == 4
        tasks[4].cancel()  # gives up while queued
        await _settle()
        assert cap.queued == 3
        for i in (0, 2, 3):
            gates[i].set()
            await _settle()
        assert entered == [0, 1, 2, 3, 5, 6] and (cap.in_flight, cap.queued) == (2, 0)
        gates[5].set()
        gates[6].set()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert tasks[4].cancelled()
        assert cap.stats() == {"max_concurrency": 2, "in_flight": 0, "max_in_flight": 2,
                               "queued": 0, "queued_max": 4}

    asyncio.run(go())


def test_a_waiter_cancelled_just_after_getting_the_slot_passes_it_on():
    async def go():
        cap = Capacity(1)
        entered: list[int] = []
        gates = [asyncio.Event() for _ in range(3)]

        async def request(i):
            async with cap.slot():
                entered.append(i)
                await gates[i].wait()

        tasks = [asyncio.create_task(request(i)) for i in range(3)]
        await _settle()
        gates[0].set()
        await asyncio.sleep(0)  # 0 leaves and hands its slot to 1, which has not run yet
        assert tasks[0].done() and not tasks[1].done() and entered == [0]
        assert (cap.in_flight, cap.queued) == (1, 1)
        tasks[1].cancel()
        await _settle()
        assert tasks[1].cancelled() and entered == [0, 2]
        assert (cap.in_flight, cap.queued) == (1, 0)
        gates[2].set()
        await _settle()
        assert cap.stats() == {"max_concurrency": 1, "in_flight": 0, "max_in_flight": 1,
                               "queued": 0, "queued_max": 2}

    asyncio.run(go())


def test_unlimited_never_queues_and_zero_is_refused():
    async def go():
        cap = Capacity()
        gate = asyncio.Event()

        async def request():
            async with cap.slot():
                await gate.wait()

        tasks = [asyncio.create_task(request()) for _ in range(5)]
        await _settle()
        assert cap.stats() == {"max_concurrency": None, "in_flight": 5, "max_in_flight": 5,
                               "queued": 0, "queued_max": 0}
        gate.set()
        await asyncio.gather(*tasks)
        assert cap.in_flight == 0

    asyncio.run(go())
    with pytest.raises(ValueError, match="max_concurrency must be at least 1"):
        Capacity(0)
    with pytest.raises(ValueError, match="max_concurrency must be at least 1"):
        SimServer(SimJudge(), max_concurrency=0)


# Over HTTP: a service time of 1 s, so the 6 requests (sent at once on loopback) all arrive
# while the first ones are still being answered.
SERVICE = SimConfig(latency_ms=1000)


def _chat_bodies(items):
    return [{"model": "judge", "seed": 1, "messages": [m.model_dump() for m in listwise_request(
        item.prompt, list(item.candidates), tag="00aa00aa", seed=1).messages]}
        for item in items]


async def _post_all(base_url, path, bodies):
    async with aiohttp.ClientSession() as http:
        async def post(body):
            async with http.post(base_url + path, data=json.dumps(body)) as resp:
                return resp.status, await resp.json()
        answers = await asyncio.gather(*(post(b) for b in bodies))
        async with http.get(base_url + "/sim/stats") as resp:
            stats = await resp.json()
    return answers, stats


def _capacity_counters(stats):
    return {k: stats[k] for k in ("max_concurrency", "in_flight", "max_in_flight", "queued",
                                  "queued_max")}


def test_a_capped_server_answers_two_at_a_time_with_the_uncapped_answers():
    items = make_items(6)
    bodies = _chat_bodies(items)
    with SimServer(SimJudge(items, SERVICE), max_concurrency=2) as capped:
        answers, stats = asyncio.run(_post_all(capped.base_url, "/chat/completions", bodies))
    with SimServer(SimJudge(items, SERVICE)) as default:
        reference, default_stats = asyncio.run(_post_all(default.base_url, "/chat/completions",
                                                         bodies))
    # 2 answered at once, the other 4 queued; nothing left in flight once all are answered
    assert _capacity_counters(stats) == {"max_concurrency": 2, "in_flight": 0,
                                         "max_in_flight": 2, "queued": 0, "queued_max": 4}
    assert stats["prompts"] == 6
    assert [status for status, _ in answers] == [200] * 6
    texts = [body["choices"][0]["message"]["content"] for _, body in answers]
    assert texts == [body["choices"][0]["message"]["content"] for _, body in reference]
    assert len(set(texts)) == 6  # six distinct items, six distinct answers
    # the default is unlimited: all 6 at once, none queued
    assert _capacity_counters(default_stats) == {"max_concurrency": None, "in_flight": 0,
                                                 "max_in_flight": 6, "queued": 0,
                                                 "queued_max": 0}


def test_chat_completions_and_messages_share_the_slots():
    item = make_items(1)[0]
    chat = _chat_bodies([item])[0]
    messages = {"model": "judge", "max_tokens": 512, "messages": chat["messages"]}

    async def go(base_url):
        async with aiohttp.ClientSession() as http:
            async def post(path, body):
                async with http.post(base_url + path, data=json.dumps(body)) as resp:
                    return resp.status
            statuses = await asyncio.gather(post("/chat/completions", chat),
                                            post("/messages", messages))
            async with http.get(base_url + "/sim/stats") as resp:
                return statuses, await resp.json()

    with SimServer(SimJudge([item], SERVICE), max_concurrency=1) as server:
        statuses, stats = asyncio.run(go(server.base_url))
    assert statuses == [200, 200]
    assert _capacity_counters(stats) == {"max_concurrency": 1, "in_flight": 0,
                                         "max_in_flight": 1, "queued": 0, "queued_max": 1}


def test_serve_sim_passes_max_concurrency_and_refuses_zero(monkeypatch):
    seen = []
    monkeypatch.setattr(jurybox.sim, "serve_forever",
                        lambda judge, **kw: seen.append(kw["max_concurrency"]))
    for args, expected in (([], None), (["--max-concurrency", "4"], 4)):
        result = runner.invoke(app, ["serve-sim", "--dataset", "none", *args])
        assert result.exit_code == 0, result.output
        assert seen.pop() == expected
    assert "4 at once" in result.output
    result = runner.invoke(app, ["serve-sim", "--max-concurrency", "0"])
    assert result.exit_code == 2
    assert "'--max-concurrency'" in result.output
    assert "greater than or equal to 1" in result.output
    shown = runner.invoke(app, ["serve-sim", "--help"], env={"COLUMNS": "400"}).output
    assert "--max-concurrency" in shown and "JURYBOX_SIM_MAX_CONCURRENCY" in shown
