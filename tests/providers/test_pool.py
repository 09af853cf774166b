"""The endpoint pool: one cache identity, item affinity, two choices by load, cooldowns."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from jurybox.errors import ConfigError, ServerError
from jurybox.providers import ChatRequest, ChatResponse, Message
from jurybox.providers.pool import AFFINITY, COOLDOWN_S, FAIL_THRESHOLD, PoolProvider


class Replica:
    name, model, simulated = "vllm", "judge", False

    def __init__(self, url: str, *, fail: int = 0, hold: asyncio.Event | None = None) -> None:
        self.base_url, self.fail, self.hold, self.calls = url, fail, hold, 0

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": "vllm", "base_url": self.base_url, "model": "judge"}

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        if self.hold is not None:
            await self.hold.wait()
        if self.fail > 0:
            self.fail -= 1
            raise ServerError("HTTP 503: busy", status=503)
        return ChatResponse(text=self.base_url, latency_s=0.5)

    async def check(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


REQ = ChatRequest(messages=(Message(role="user", content="which is better?"),))


def call(pool: PoolProvider, item: str | None) -> str:
    async def main() -> str:
        AFFINITY.set(item)
        return (await pool.complete(REQ)).text
    return asyncio.run(main())


def test_one_cache_identity_for_the_pool_the_model_not_the_url() -> None:
    a, b = Replica("http://a/v1"), Replica("http://b/v1")
    assert PoolProvider([a, b]).cache_identity() == {"provider": "vllm", "model": "judge"}
    assert PoolProvider([b]).cache_identity() == PoolProvider([a, b]).cache_identity()


def test_every_call_of_an_item_goes_to_its_replica() -> None:
    replicas = [Replica(f"http://r{i}/v1") for i in range(3)]
    pool = PoolProvider(replicas, rng=random.Random(0))
    for item in ("x", "y", "z", "w"):
        first = call(pool, item)
        assert all(call(pool, item) == first for _ in range(6))  # 7 orders, one replica
    stats = pool.replica_stats()
    assert sum(s["calls"] for s in stats) == 28 and all(s["failures"] == 0 for s in stats)
    assert [s["mean_latency_s"] for s in stats if s["calls"]] == [0.5] * sum(
        1 for s in stats if s["calls"])


def test_two_choices_send_a_new_item_to_the_less_loaded_replica() -> None:
    a, b = Replica("http://a/v1"), Replica("http://b/v1")
    pool = PoolProvider([a, b], rng=random.Random(1))
    pool._replicas[0].in_flight = 5  # a is busy
    picked = [pool._route(f"item{i}").stats.url for i in range(20)]
    # the same draws by hand: b unless both draws of a pair were a (the busier one)
    draws = random.Random(1)
    expected = ["http://a/v1" if draws.choices("ab", k=2) == ["a", "a"] else "http://b/v1"
                for _ in range(20)]
    assert picked == expected
    assert picked.count("http://b/v1") == 20 - picked.count("http://a/v1") >= 12


def test_a_failing_replica_cools_down_and_its_items_move() -> None:
    now = [0.0]
    bad, good = Replica("http://bad/v1", fail=FAIL_THRESHOLD), Replica("http://good/v1")
    pool = PoolProvider([bad, good], rng=random.Random(0), clock=lambda: now[0])
    pool._affinity["x"] = pool._replicas[0]  # item x lives on the bad replica
    for _ in range(FAIL_THRESHOLD):
        with pytest.raises(ServerError):
            call(pool, "x")
    assert call(pool, "x") == "http://good/v1"  # the runner's next attempt: elsewhere
    bad_stats = pool.replica_stats()[0]
    assert bad_stats["cooldowns"] == 1 and bad_stats["failures"] == FAIL_THRESHOLD
    now[0] = COOLDOWN_S + 0.1  # back in: a new item may go to it again (a probe)
    assert {call(pool, f"n{i}") for i in range(20)} == {"http://bad/v1", "http://good/v1"}


def test_when_every_replica_cools_down_the_one_back_soonest_is_asked() -> None:
    now = [0.0]
    a, b = Replica("http://a/v1", fail=10), Replica("http://b/v1", fail=10)
    pool = PoolProvider([a, b], rng=random.Random(0), clock=lambda: now[0])
    for _ in range(2 * FAIL_THRESHOLD):
        with pytest.raises(ServerError):
            call(pool, None)
    assert all(r.until > 0 for r in pool._replicas)
    soonest = min(pool._replicas, key=lambda r: r.until)
    with pytest.raises(ServerError):
        call(pool, None)
    assert soonest.stats.calls == FAIL_THRESHOLD + 1


def test_a_pool_of_different_models_or_bad_weights_is_refused() -> None:
    other = Replica("http://c/v1")
    other.model = "another"  # type: ignore[misc]
    with pytest.raises(ConfigError, match="the replicas of a pool serve one model: http://c/v1 "
                                          "is vllm/another, http://a/v1 is vllm/judge"):
        PoolProvider([Replica("http://a/v1"), other])
    with pytest.raises(ConfigError, match="weights must be finite numbers > 0"):
        PoolProvider([Replica("http://a/v1")], weights=[float("nan")])
    with pytest.raises(ConfigError, match="at least one replica"):
        PoolProvider([])
