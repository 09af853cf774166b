"""The endpoint pool: one cache identity, item affinity, two choices by load, cooldowns."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from jurybox.errors import (ConfigError, EndpointGoneError, ProviderError,
                            RetryableProviderError, ServerError)
from jurybox.providers import ChatRequest, ChatResponse, Message
from jurybox.providers.pool import (AFFINITY, COOLDOWN_S, FAIL_THRESHOLD, PoolProvider,
                                    odd_replica)


class Replica:
    name, model, simulated = "vllm", "judge", False

    def __init__(self, url: str, *, fail: int = 0, hold: asyncio.Event | None = None) -> None:
        self.base_url, self.fail, self.hold, self.calls = url, fail, hold, 0
        self.retry_after: float | None = None
        self.listed: list[str] | None = None

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": "vllm", "base_url": self.base_url, "model": "judge"}

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        if self.hold is not None:
            await self.hold.wait()
        if self.fail > 0:
            self.fail -= 1
            raise ServerError("HTTP 503: busy", status=503, retry_after=self.retry_after)
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


def test_a_failed_call_moves_its_item_and_the_retry_after_is_not_waited_for() -> None:
    bad, good = Replica("http://bad/v1", fail=1), Replica("http://good/v1")
    bad.retry_after = 7.0
    pool = PoolProvider([bad, good], rng=random.Random(0))
    pool._affinity["x"] = pool._replicas[0]  # item x lives on the bad replica
    with pytest.raises(ServerError) as failed:
        call(pool, "x")
    assert failed.value.retry_after is None  # another replica is healthy: no wait
    assert [call(pool, "x") for _ in range(3)] == ["http://good/v1"] * 3  # x moved for good
    assert pool._replicas[0].failed_in_a_row == 1 and pool._replicas[0].until == 0.0


def test_a_replica_failing_three_times_in_a_row_cools_down_then_is_probed_back() -> None:
    now = [0.0]
    bad, good = Replica("http://bad/v1", fail=FAIL_THRESHOLD), Replica("http://good/v1")
    pool = PoolProvider([bad, good], rng=random.Random(0), clock=lambda: now[0])
    for item in ("a", "b", "c"):  # three items on the bad replica, one failure each
        pool._affinity[item] = pool._replicas[0]
        with pytest.raises(ServerError):
            call(pool, item)
    assert pool._replicas[0].until == COOLDOWN_S  # cooling down from t=0
    assert {call(pool, f"n{i}") for i in range(20)} == {"http://good/v1"}
    bad_stats = pool.replica_stats()[0]
    assert bad_stats["cooldowns"] == 1 and bad_stats["failures"] == FAIL_THRESHOLD == 3
    now[0] = COOLDOWN_S + 0.1  # back in: new items may go to it again (a probe)
    assert {call(pool, f"m{i}") for i in range(20)} == {"http://bad/v1", "http://good/v1"}


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


class Gone(Replica):
    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        raise EndpointGoneError(f"{self.base_url} exited with code -9")


def test_a_replica_whose_server_exited_is_out_and_the_run_stops_only_when_all_are() -> None:
    dead, alive = Gone("http://dead/v1"), Replica("http://alive/v1")
    pool = PoolProvider([dead, alive], rng=random.Random(0))
    pool._affinity["x"] = pool._replicas[0]
    with pytest.raises(RetryableProviderError, match="http://dead/v1: http://dead/v1 exited"):
        call(pool, "x")  # retryable: the runner's next attempt goes to the live replica
    assert [call(pool, f"n{i}") for i in range(10)] == ["http://alive/v1"] * 10
    assert dead.calls == 1 and pool.replica_stats()[0]["gone"] is True
    both = PoolProvider([Gone("http://d1/v1"), Gone("http://d2/v1")], rng=random.Random(0))
    with pytest.raises(RetryableProviderError):
        call(both, None)
    with pytest.raises(EndpointGoneError):  # the last one: the run stops
        call(both, None)


def test_a_replica_takes_at_most_its_limit_and_waiting_calls_count_as_load() -> None:
    async def main() -> tuple[int, int, list[str]]:
        gate = asyncio.Event()
        a, b = Replica("http://a/v1", hold=gate), Replica("http://b/v1", hold=gate)
        pool = PoolProvider([a, b], limits=[1, 3], rng=random.Random(0))
        assert pool.max_concurrency == 4
        tasks = [asyncio.create_task(pool.complete(REQ)) for _ in range(8)]
        await asyncio.sleep(0.05)
        started = (a.calls, b.calls)  # calls that reached the replica, not those waiting
        loads = [r.in_flight for r in pool._replicas]
        gate.set()
        texts = [r.text for r in await asyncio.gather(*tasks)]
        assert sum(loads) == 8
        return started[0], started[1], texts
    a_started, b_started, texts = asyncio.run(main())
    assert a_started == 1 and b_started == 3  # the rest waited for a slot
    assert len(texts) == 8
    with pytest.raises(ConfigError, match="limits must be integers >= 1"):
        PoolProvider([Replica("http://a/v1")], limits=[0])


def test_check_names_the_replica_that_serves_another_model() -> None:
    a, b, c = Replica("http://a/v1"), Replica("http://b/v1"), Replica("http://c/v1")
    a.listed, b.listed, c.listed = ["judge"], ["judge"], ["qwen2.5-7b"]
    with pytest.raises(ConfigError, match=r"^replica http://c/v1 does not serve 'judge': it "
                                          r"lists qwen2.5-7b, while http://a/v1 lists 'judge'"):
        asyncio.run(PoolProvider([a, b, c]).check())
    c.listed = None  # a server without a model list is not compared
    asyncio.run(PoolProvider([a, b, c]).check())


def test_odd_replica_when_no_server_lists_the_model_by_name() -> None:
    # llama.cpp lists its file, whatever name the call gives: the lists are compared
    same = [("http://a/v1", ["smollm2.gguf"]), ("http://b/v1", ["smollm2.gguf"])]
    assert odd_replica("local", same) is None
    odd = odd_replica("local", [*same, ("http://c/v1", ["qwen.gguf"])])
    assert odd == ("replica http://c/v1 lists other models (qwen.gguf) than http://a/v1 "
                   "(smollm2.gguf); the replicas of a pool serve one model (check --base-url "
                   "or the endpoints file)")
    assert odd_replica("m", [("http://a/v1", ["m:latest"]), ("http://b/v1", ["m"])]) is None


def test_pool_stats_count_items_whose_calls_stayed_on_one_replica() -> None:
    bad, good = Replica("http://bad/v1", fail=1), Replica("http://good/v1")
    pool = PoolProvider([bad, good], rng=random.Random(0))
    pool._affinity["x"] = pool._replicas[0]
    with pytest.raises(ServerError):
        call(pool, "x")  # x's first call, on bad
    call(pool, "x"), call(pool, "x")  # then good: x moved once
    for item in ("y", "z"):
        call(pool, item), call(pool, item)
    stats = pool.pool_stats()
    assert (stats["items"], stats["items_on_one_replica"]) == (3, 2)
    assert [s["calls"] for s in stats["replicas"]] == [bad.calls, good.calls]
    assert bad.calls + good.calls == 7


def test_calls_failing_together_in_one_outage_start_one_cooldown_not_one_per_three() -> None:
    # 6 calls in flight on a replica whose server dies fail together: that is one outage, so
    # one cooldown of COOLDOWN_S, not two (the second would double it to 2 x COOLDOWN_S)
    now = [0.0]

    async def fail_together(pool: PoolProvider, items: list[str], gate: asyncio.Event) -> None:
        async def one(item: str) -> None:
            AFFINITY.set(item)
            with pytest.raises(ServerError):
                await pool.complete(REQ)
        tasks = [asyncio.create_task(one(item)) for item in items]
        await asyncio.sleep(0)  # every call reaches the replica before any fails
        gate.set()
        await asyncio.gather(*tasks)

    gate = asyncio.Event()
    bad, good = Replica("http://bad/v1", fail=9, hold=gate), Replica("http://good/v1")
    pool = PoolProvider([bad, good], rng=random.Random(0), clock=lambda: now[0])
    items = [f"i{n}" for n in range(6)]
    for item in items:
        pool._affinity[item] = pool._replicas[0]
    asyncio.run(fail_together(pool, items, gate))
    assert bad.calls == 6 and pool._replicas[0].until == COOLDOWN_S
    assert pool.replica_stats()[0]["cooldowns"] == 1
    assert pool.replica_stats()[0]["failures"] == 6
    pool._failed(pool._replicas[0], 2.0)  # a shorter Retry-After in the outage: no change
    assert pool._replicas[0].until == COOLDOWN_S
    pool._failed(pool._replicas[0], 8.0)  # a longer one extends it, still one cooldown
    assert pool._replicas[0].until == 8.0 and pool.replica_stats()[0]["cooldowns"] == 1
    pool._replicas[0].until = COOLDOWN_S
    # back in at t = 5.5 and its probe fails: a new outage, the cooldown doubles (10 s) at once
    now[0] = COOLDOWN_S + 0.5
    pool._affinity["j0"] = pool._replicas[0]
    with pytest.raises(ServerError):
        call(pool, "j0")
    assert pool._replicas[0].until == COOLDOWN_S + 0.5 + 2 * COOLDOWN_S == 15.5
    assert pool.replica_stats()[0]["cooldowns"] == 2


def test_after_a_cooldown_one_call_at_a_time_probes_the_replica() -> None:
    async def main() -> None:
        now = [0.0]
        gate = asyncio.Event()
        bad, good = Replica("http://bad/v1", fail=FAIL_THRESHOLD + 1), Replica("http://good/v1")
        pool = PoolProvider([bad, good], rng=random.Random(0), clock=lambda: now[0])
        r_bad = pool._replicas[0]
        for item in ("a", "b", "c"):  # three failures in a row: a 5 s cooldown
            pool._affinity[item] = r_bad
            AFFINITY.set(item)
            with pytest.raises(ServerError):
                await pool.complete(REQ)
        assert (r_bad.until, r_bad.probing) == (COOLDOWN_S, True)
        now[0] = COOLDOWN_S  # back: the first call to it is the probe
        bad.hold = gate
        pool._affinity["p"] = r_bad
        AFFINITY.set("p")
        probe = asyncio.create_task(pool.complete(REQ))
        await asyncio.sleep(0)
        assert r_bad.in_flight == 1 and not r_bad.open(now[0])  # no second call meanwhile
        assert {pool._route(f"n{i}").stats.url for i in range(20)} == {"http://good/v1"}
        gate.set()
        with pytest.raises(ServerError):  # the probe fails: the next cooldown, doubled, at once
            await probe
        assert r_bad.until == COOLDOWN_S + 2 * COOLDOWN_S and r_bad.stats.cooldowns == 2
        now[0] = 3 * COOLDOWN_S
        pool._affinity["q"] = r_bad
        AFFINITY.set("q")
        assert (await pool.complete(REQ)).text == "http://bad/v1"  # the probe answers
        assert (r_bad.probing, r_bad.cooldowns) == (False, 0) and r_bad.open(now[0])
    asyncio.run(main())


def test_calls_in_flight_when_a_replica_fails_are_one_cooldown_not_one_per_three() -> None:
    async def main() -> tuple[PoolProvider, int]:
        gate = asyncio.Event()
        bad, good = Replica("http://bad/v1", fail=9, hold=gate), Replica("http://good/v1")
        pool = PoolProvider([bad, good], rng=random.Random(0), clock=lambda: 0.0)
        for i in range(9):  # nine items on the bad replica, their calls in flight at once
            pool._affinity[f"i{i}"] = pool._replicas[0]

        async def one(item: str) -> BaseException | None:
            AFFINITY.set(item)
            try:
                await pool.complete(REQ)
            except ServerError as exc:
                return exc
            return None
        tasks = [asyncio.create_task(one(f"i{i}")) for i in range(9)]
        await asyncio.sleep(0.01)
        gate.set()  # the server dies: all nine fail together
        failed = sum(isinstance(e, ServerError) for e in await asyncio.gather(*tasks))
        return pool, failed
    pool, failed = asyncio.run(main())
    bad = pool._replicas[0]
    assert failed == 9 and bad.stats.failures == 9
    # the first three cooled it down once, for COOLDOWN_S (not three times, for 5+10+20 s)
    assert bad.stats.cooldowns == 1 and bad.until == COOLDOWN_S == 5.0


def test_weights_are_relative_so_huge_finite_weights_still_route() -> None:
    # each weight is finite, their sum is not: random.choices would refuse every draw
    a, b = Replica("http://a/v1"), Replica("http://b/v1")
    huge = PoolProvider([a, b], weights=[1e308, 1e308], rng=random.Random(3))
    same = PoolProvider([Replica("http://a/v1"), Replica("http://b/v1")], weights=[1, 1],
                        rng=random.Random(3))
    assert [call(huge, f"i{n}") for n in range(12)] == [call(same, f"i{n}") for n in range(12)]
    assert {call(huge, f"j{n}") for n in range(40)} == {"http://a/v1", "http://b/v1"}


class Refusing(Replica):
    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        raise ProviderError("HTTP 400: bad request", status=400)


def test_a_replica_error_names_the_replica() -> None:
    bad, refusing = Replica("http://bad/v1", fail=2), Refusing("http://refusing/v1")
    pool = PoolProvider([bad, refusing, Replica("http://good/v1")], rng=random.Random(0))
    pool._affinity["x"], pool._affinity["y"] = pool._replicas[0], pool._replicas[1]
    with pytest.raises(ServerError) as failed:
        call(pool, "x")
    assert str(failed.value) == "http://bad/v1: HTTP 503: busy"
    assert failed.value.status == 503
    with pytest.raises(ProviderError) as refused:
        call(pool, "y")
    assert str(refused.value) == "http://refusing/v1: HTTP 400: bad request"


class Down(Replica):
    async def check(self) -> None:
        raise ProviderError(f"cannot reach {self.base_url} (connection refused)")


def test_a_replica_down_at_the_start_is_named_with_its_place_and_the_count() -> None:
    one = PoolProvider([Replica("http://a/v1"), Down("http://b/v1")])
    with pytest.raises(ProviderError) as caught:
        asyncio.run(one.check())
    assert str(caught.value) == (
        "replica 2 of 2: cannot reach http://b/v1 (connection refused); a pool's replicas must "
        "all answer when the run starts: start it, or leave it out of the pool")
    two = PoolProvider([Down("http://a/v1"), Replica("http://b/v1"), Down("http://c/v1")])
    with pytest.raises(ProviderError, match=r"^replica 1 of 3 \(2 of 3 failed\): cannot "
                                            r"reach http://a/v1 "):
        asyncio.run(two.check())


def test_check_refuses_a_replica_that_is_another_judge() -> None:
    real, sim = Replica("http://real/v1"), Replica("http://sim/v1")
    sim.simulated = True  # type: ignore[misc]
    with pytest.raises(ConfigError) as caught:
        asyncio.run(PoolProvider([real, sim]).check())
    assert str(caught.value) == ("replica http://sim/v1 is jurybox's simulated judge and "
                                 "http://real/v1 is not; the replicas of a pool are one judge")

    class Knowing(Replica):
        simulated = True

        def __init__(self, url: str, knows: str) -> None:
            super().__init__(url)
            self.knows = knows

        def cache_identity(self) -> dict[str, Any]:
            return {**super().cache_identity(), "sim_knows": self.knows}
    same = PoolProvider([Knowing("http://a/v1", "k1"), Knowing("http://b/v1", "k1")])
    asyncio.run(same.check())
    assert same.cache_identity() == {"provider": "vllm", "model": "judge", "sim_knows": "k1"}
    with pytest.raises(ConfigError) as caught:
        asyncio.run(PoolProvider([Knowing("http://a/v1", "k1"),
                                  Knowing("http://b/v1", "k2")]).check())
    assert str(caught.value) == ("replica http://b/v1 is another judge than http://a/v1 "
                                 "(sim_knows differs); the replicas of a pool are one judge")
