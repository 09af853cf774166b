"""The batch dispatcher: rounds, deduplication, re-attaching after a restart, requests a batch
did not answer, refused batches. Against an in-memory batch API (tests/batch/fakes.py); the
wire formats are tested against the simulated judge's batch endpoints elsewhere."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from jurybox.batch import BatchOptions, BatchProvider
from jurybox.batch.api import BatchLimits, BatchResult
from jurybox.cache import ResponseCache, cache_key
from jurybox.errors import ConfigError, ParseError, ProviderError
from jurybox.providers import ChatRequest, Message
from jurybox.rundir.batches import BatchJournal, endpoint_digest, read_journal
from jurybox.runner import Job, Runner
from jurybox.runner.retry import RetryPolicy

from .fakes import FakeAPI, FakeOnline, FakeServer

FAST = BatchOptions(poll_s=0.01, poll_max_s=0.02, quiet_s=0.05)


def req(text: str) -> ChatRequest:
    return ChatRequest(messages=(Message(role="user", content=text),))


def key(text: str) -> str:
    return cache_key(FakeOnline().cache_identity(), req(text))


def make(tmp_path: Path, server: FakeServer, *, session: int = 0,
         options: BatchOptions = FAST, limits: BatchLimits = BatchLimits(1000, 10**9),
         online: FakeOnline | None = None) -> tuple[BatchProvider, Runner, ResponseCache]:
    online = online or FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), session)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    provider = BatchProvider(online, FakeAPI(server, limits), journal, options,
                             answered=lambda k: cache.get(k) is not None)
    runner = Runner(provider, cache=cache, concurrency=10_000,
                    retry=RetryPolicy(attempts=3, base_s=0), abort_after=None)
    return provider, runner, cache


def settled(provider: BatchProvider, runner: Runner, *texts: str) -> list[str | None]:
    """Ask ``texts`` through ``runner`` on a fresh loop, then stop ``provider``'s pollers."""
    async def main() -> list[str | None]:
        try:
            return await ask(runner, *texts)
        finally:
            await provider.stop()

    return asyncio.run(main())


async def ask(runner: Runner, *texts: str) -> list[str | None]:
    outcomes = await asyncio.gather(*(runner.run(Job(req(t), str)) for t in texts))
    return [o.value if o.failure is None else f"FAILED {o.failure.kind}: {o.failure.message}"
            for o in outcomes]


def test_each_stage_is_one_batch_round(tmp_path: Path) -> None:
    server = FakeServer(polls=2)
    provider, runner, cache = make(tmp_path, server)

    async def item(n: int) -> str | None:
        first = await ask(runner, f"a{n}", f"b{n}")  # stage 1: two calls
        (second,) = await ask(runner, f"then {first[0]}")  # stage 2 depends on stage 1
        return second

    async def main() -> list[str | None]:
        try:
            return list(await asyncio.gather(*(item(n) for n in range(3))))
        finally:
            await provider.stop()

    assert asyncio.run(main()) == ["THEN A0", "THEN A1", "THEN A2"]
    # two rounds: the 6 stage-1 requests in one batch, the 3 stage-2 requests in another
    assert [len(b.lines) for b in server.batches.values()] == [6, 3]
    assert max(server.submitted.values()) == 1
    journal = read_journal(tmp_path / "batches.jsonl")
    assert [(b.batch, b.batch_id, b.ended, b.state) for b in journal.values()] == [
        ("0-1", "b1", True, "completed"), ("0-2", "b2", True, "completed")]
    assert provider.stats.as_dict() == {"batches": 2, "requests": 9}
    assert cache.get(key("a0")).batch is True


def test_identical_requests_are_sent_once(tmp_path: Path) -> None:
    server = FakeServer()
    provider, runner, _ = make(tmp_path, server)

    assert settled(provider, runner, "same", "same", "other") == ["SAME", "SAME", "OTHER"]
    assert sorted(server.submitted.values()) == [1, 1]


def test_a_round_over_the_limit_is_split(tmp_path: Path) -> None:
    server = FakeServer()
    provider, runner, _ = make(tmp_path, server, limits=BatchLimits(2, 10**9))

    assert settled(provider, runner, *"abcde") == list("ABCDE")
    assert [len(b.lines) for b in server.batches.values()] == [2, 2, 1]


def test_a_restart_reattaches_and_never_resubmits(tmp_path: Path) -> None:
    server = FakeServer(polls=1000)  # never ends during the first session

    async def first() -> None:
        provider, runner, cache = make(tmp_path, server)
        task = asyncio.ensure_future(ask(runner, "x", "y"))
        while not server.batches:
            await asyncio.sleep(0.01)
        task.cancel()  # Ctrl-C: the batch stays in flight at the provider
        await asyncio.gather(task, return_exceptions=True)
        await provider.stop()
        cache.close()

    asyncio.run(first())
    assert read_journal(tmp_path / "batches.jsonl")["0-1"].batch_id == "b1"
    server.batches["b1"].polls_left = 1  # it ends at the next poll

    async def second() -> list[str | None]:
        provider, runner, _ = make(tmp_path, server, session=1)
        try:
            return await ask(runner, "x", "y")
        finally:
            assert provider.stats.as_dict() == {"reattached": 1}
            await provider.stop()

    assert asyncio.run(second()) == ["X", "Y"]
    assert dict(server.submitted) == {key("x"): 1, key("y"): 1}


def test_a_batch_created_but_not_journalled_is_found_again(tmp_path: Path) -> None:
    """Killed between creating the batch and writing its id: the journal has the intent and
    the file; the restart finds the batch at the provider instead of sending it again."""
    server = FakeServer()
    online = FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 0)
    entry = journal.intent("fake", [key("x")])
    journal.write("file", entry.batch, file_id="file-0-1")
    server.create(entry.batch, [{"custom_id": key("x"), "text": "x"}])

    provider, runner, _ = make(tmp_path, server, session=1)
    assert settled(provider, runner, "x") == ["X"]
    assert server.submitted[key("x")] == 1
    assert read_journal(tmp_path / "batches.jsonl")["0-1"].batch_id == "b1"


def test_asks_during_the_lookup_wait_for_it(tmp_path: Path) -> None:
    """Two requests of a batch journalled without its id, asked at once: the second waits
    for the lookup the first started, instead of queueing a request of its own."""
    server = FakeServer()
    journal = BatchJournal(tmp_path, endpoint_digest(FakeOnline().cache_identity()), 0)
    entry = journal.intent("fake", [key("x"), key("y")])
    server.create(entry.batch, [{"custom_id": key("x"), "text": "x"},
                                {"custom_id": key("y"), "text": "y"}])
    provider, runner, _ = make(tmp_path, server, session=1)
    assert settled(provider, runner, "x", "y") == ["X", "Y"]
    assert dict(server.submitted) == {key("x"): 1, key("y"): 1}


def test_a_batch_that_cannot_be_looked_up_fails_its_requests_not_hangs(tmp_path: Path) -> None:
    server = FakeServer(find_fails=True)
    journal = BatchJournal(tmp_path, endpoint_digest(FakeOnline().cache_identity()), 0)
    journal.intent("fake", [key("x")])
    provider, runner, _ = make(tmp_path, server, session=1)
    (result,) = settled(provider, runner, "x")
    assert result is not None and result.startswith("FAILED api: batch 0-1 may hold this")
    assert server.submitted[key("x")] == 0


def test_requests_queued_while_waiting_for_room_are_sent(tmp_path: Path) -> None:
    """An enqueued-token limit below two requests: one batch at a time, and a stage-2
    request queued while the flush waits for room still goes out (no hang)."""
    server = FakeServer()
    provider, runner, _ = make(tmp_path, server, limits=BatchLimits(1, 10**9),
                               options=BatchOptions(poll_s=0.01, poll_max_s=0.02,
                                                    quiet_s=0.05, max_enqueued_tokens=2))

    async def item(n: int) -> str | None:
        (first,) = await ask(runner, f"a{n}")
        (second,) = await ask(runner, f"then {first}")
        return second

    async def main() -> list[str | None]:
        try:
            return list(await asyncio.wait_for(asyncio.gather(item(0), item(1)), 10))
        finally:
            await provider.stop()

    assert asyncio.run(main()) == ["THEN A0", "THEN A1"]
    assert len(server.batches) == 4 and max(server.submitted.values()) == 1


class SlowFind(FakeAPI):
    """A batch API whose look-up takes a while, as an HTTP call does."""

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        await asyncio.sleep(0.05)
        return await super().find(tag, file_id, n_requests, created_after)


def test_requests_asked_while_the_restart_looks_a_batch_up_wait_for_it(tmp_path: Path
                                                                       ) -> None:
    """Killed between creating the batch and writing its id; the rerun's first request looks
    the batch up at the provider; requests asked meanwhile must wait for the look-up, not
    go into a new batch (found by benchmarks/batch_kill.py: 1,334 requests paid twice)."""
    server = FakeServer()
    online = FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 0)
    entry = journal.intent("fake", [key("x"), key("y")])
    journal.write("file", entry.batch, file_id="file-0-1")
    server.create(entry.batch, [{"custom_id": key(t), "text": t} for t in "xy"])

    async def main() -> list[str | None]:
        journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 1)
        cache = ResponseCache(tmp_path / "cache.sqlite")
        provider = BatchProvider(online, SlowFind(server), journal, FAST,
                                 answered=lambda k: cache.get(k) is not None)
        runner = Runner(provider, cache=cache, concurrency=100,
                        retry=RetryPolicy(attempts=3, base_s=0), abort_after=None)
        try:
            return await ask(runner, "x", "y")
        finally:
            await provider.stop()
            cache.close()

    assert asyncio.run(main()) == ["X", "Y"]
    assert len(server.batches) == 1  # the batch found, none created
    assert dict(server.submitted) == {key("x"): 1, key("y"): 1}


def test_an_intent_never_created_is_lost_and_sent_again(tmp_path: Path) -> None:
    server = FakeServer()
    journal = BatchJournal(tmp_path, endpoint_digest(FakeOnline().cache_identity()), 0)
    journal.intent("fake", [key("x")])  # killed before the upload

    provider, runner, _ = make(tmp_path, server, session=1)
    assert settled(provider, runner, "x") == ["X"]
    entries = read_journal(tmp_path / "batches.jsonl")
    assert [(b.batch, b.state) for b in entries.values()] == [("0-1", "lost"),
                                                             ("1-1", "completed")]
    assert server.submitted[key("x")] == 1


def test_an_ended_batch_not_yet_cached_is_read_again(tmp_path: Path) -> None:
    """Killed after the batch ended, before its answers were cached: the rerun reads its
    results again rather than sending the requests again."""
    server = FakeServer()
    online = FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 0)
    entry = journal.intent("fake", [key("x")])
    journal.write("created", entry.batch,
                  batch_id=server.create(entry.batch, [{"custom_id": key("x"), "text": "x"}]))
    journal.write("ended", entry.batch, state="completed", counts={"done": 1})

    provider, runner, _ = make(tmp_path, server, session=1)
    assert settled(provider, runner, "x") == ["X"]
    assert server.submitted[key("x")] == 1


def test_expired_requests_go_in_the_next_batch(tmp_path: Path) -> None:
    seen: dict[str, int] = {}

    def outcome(cid: str) -> str:  # "y" expires the first time it is read
        seen[cid] = seen.get(cid, 0) + 1
        return "expired" if cid == key("y") and seen[cid] == 1 else "succeeded"

    server = FakeServer(outcome=outcome)
    provider, runner, _ = make(tmp_path, server)

    assert settled(provider, runner, "x", "y") == ["X", "Y"]
    assert [len(b.lines) for b in server.batches.values()] == [2, 1]
    assert server.submitted[key("y")] == 2
    assert provider.stats.as_dict() == {"batches": 2, "requests": 3, "not_answered": 1}


def test_fallback_online_sends_what_a_batch_did_not_answer_online(tmp_path: Path) -> None:
    server = FakeServer(outcome=lambda cid: "expired" if cid == key("y") else "succeeded")
    online = FakeOnline()
    provider, runner, cache = make(tmp_path, server, online=online,
                                   options=BatchOptions(poll_s=0.01, poll_max_s=0.02,
                                                        quiet_s=0.05, fallback="online"))

    assert settled(provider, runner, "x", "y") == ["X", "Y"]
    assert online.calls == 1 and len(server.batches) == 1
    assert cache.get(key("y")).batch is False and cache.get(key("x")).batch is True


def test_a_request_never_answered_is_a_failure_not_a_score(tmp_path: Path) -> None:
    server = FakeServer(outcome=lambda cid: "expired")
    provider, runner, cache = make(tmp_path, server)

    (result,) = settled(provider, runner, "x")
    assert result is not None and result.startswith("FAILED api: gave up after 3 attempts")
    assert "request expired" in result
    assert server.submitted[key("x")] == 3 and cache.get(key("x")) is None


def test_a_refused_batch_makes_recorded_failures_and_the_run_goes_on(tmp_path: Path) -> None:
    server = FakeServer(reject=True)
    provider, runner, _ = make(tmp_path, server)

    results = settled(provider, runner, *[f"r{i}" for i in range(30)])
    assert len(results) == 30 and all(r is not None and r.startswith("FAILED api") and
                                      "invalid_request: line 1 is not valid" in r
                                      for r in results)
    assert read_journal(tmp_path / "batches.jsonl")["0-1"].state == "rejected"


def test_results_for_requests_never_sent_are_ignored_and_counted(tmp_path: Path) -> None:
    server = FakeServer(extra_results=[BatchResult("f" * 64, "succeeded")])
    provider, runner, _ = make(tmp_path, server)

    assert settled(provider, runner, "x") == ["X"]
    assert provider.stats.unknown_results == 1


def test_a_journal_of_another_judge_is_refused(tmp_path: Path) -> None:
    BatchJournal(tmp_path, "0123456789abcdef", 0).intent("fake", ["k"])
    with pytest.raises(ConfigError, match=r"batches.jsonl: batch 0-1 was sent to another judge"):
        BatchJournal(tmp_path, endpoint_digest(FakeOnline().cache_identity()), 1)


class UnreadableOnce(FakeAPI):
    """The first batch's output file is gone (HTTP 404) when it is read."""

    async def results(self, batch_id: str):  # type: ignore[no-untyped-def]
        if batch_id == "b1":
            raise ProviderError(f"GET /files/out-{batch_id}/content: HTTP 404", status=404)
        async for result in super().results(batch_id):
            yield result


def test_a_batch_whose_results_are_gone_ends_and_is_not_waited_on_again(tmp_path: Path) -> None:
    server = FakeServer()
    online = FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 0)
    provider = BatchProvider(online, UnreadableOnce(server), journal, FAST)
    runner = Runner(provider, cache=None, concurrency=100,
                    retry=RetryPolicy(attempts=3, base_s=0), abort_after=None)
    assert settled(provider, runner, "x") == ["X"]  # sent again in b2, answered there
    entries = read_journal(tmp_path / "batches.jsonl")
    assert [(b.batch_id, b.state) for b in entries.values()] == [("b1", "lost"),
                                                                ("b2", "completed")]
    assert entries["0-1"].reason is not None and "HTTP 404" in entries["0-1"].reason
    assert provider.in_flight() == {}


class _Versioned(FakeAPI):
    """Answers ``TEXT#<n>`` from the n-th batch created (from 0): a later batch's answers
    differ from an earlier one's."""

    async def results(self, batch_id: str):  # type: ignore[override]
        async for result in super().results(batch_id):
            if result.response is not None:
                text = f"{result.response.text}#{int(batch_id[1:]) - 1}"
                result = dataclasses.replace(
                    result, response=result.response.model_copy(update={"text": text}))
            yield result


def _no_x0(text: str) -> str:
    if text == "X#0":
        raise ParseError("not a judgment", raw=text)
    return text


def test_a_cached_failure_is_asked_again_in_a_new_batch_not_read_again(tmp_path: Path) -> None:
    """Session 0 caches x's unusable answer (and z's, lost as if killed before it was
    cached). Session 1 asks x again: a new batch answers it; re-reading the ended batch for
    z must not hand x its old answer."""
    server = FakeServer()

    def session(index: int, *texts: str) -> tuple[list[str | None], Runner, ResponseCache]:
        online = FakeOnline()
        api = _Versioned(server)
        journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), index)
        cache = ResponseCache(tmp_path / "cache.sqlite")
        provider = BatchProvider(online, api, journal, FAST,
                                 answered=lambda k: cache.get(k) is not None)
        runner = Runner(provider, cache=cache, reask=False, abort_after=None,
                        retry=RetryPolicy(attempts=3, base_s=0))

        async def main() -> list[str | None]:
            try:
                outcomes = await asyncio.gather(*(runner.run(Job(req(t), _no_x0))
                                                  for t in texts))
            finally:
                await provider.stop()
            return [o.value if o.failure is None else o.failure.kind for o in outcomes]
        return asyncio.run(main()), runner, cache

    first, runner, cache = session(0, "x", "z")
    assert first == ["parse", "Z#0"]
    cache._db.execute("DELETE FROM responses WHERE key = ?", (key("z"),))
    cache.close()
    second, runner, cache = session(1, "x", "z")
    assert second == ["X#1", "Z#0"]  # x asked anew; z read again from its ended batch
    assert server.submitted[key("x")] == 2 and server.submitted[key("z")] == 1
    t = runner.totals
    assert (t.cached_failures_asked, t.cache_hits, t.batch_calls) == (1, 0, 2)
    got = cache.get(key("x"))
    assert got is not None and got.text == "X#1"  # the new answer replaced the old
