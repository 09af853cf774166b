import asyncio
import random

import pytest

from jurybox.cache import ResponseCache
from jurybox.errors import ParseError, ProviderError
from jurybox.protocols import PCFProtocol
from jurybox.providers import ChatRequest, ChatResponse, Message
from jurybox.runner import Job, RetryPolicy, Runner
from jurybox.sim import Faults, SimConfig

from ..conftest import FAST_RETRY, make_items


def _job(item):
    call = PCFProtocol(k=1).plan(item)[0]
    return Job(call.request, call.parse, meta={"item_id": item.item_id})


def _run(server, jobs, **kwargs):
    records = []

    async def main():
        provider = server.provider(timeout_s=kwargs.pop("timeout_s", 10))
        runner = Runner(provider, on_call=records.append, **kwargs)
        try:
            return await asyncio.gather(*(runner.run(j) for j in jobs)), runner
        finally:
            await provider.aclose()

    (outcomes, runner) = asyncio.run(main())
    return outcomes, runner, records


@pytest.mark.parametrize("faults", [Faults(first_429=2), Faults(first_500=2),
                                    Faults(first_429=1, first_500=1)])
def test_retries_injected_429_and_500_then_succeeds(sim, faults):
    items = make_items(3)
    with sim(items, SimConfig(faults=faults)) as server:
        outcomes, runner, records = _run(server, [_job(it) for it in items], retry=FAST_RETRY)
    assert all(o.ok for o in outcomes)
    assert runner.totals.model_calls == 9 and runner.totals.retries == 6  # 3 attempts each
    assert [r.attempts for r in records] == [3, 3, 3]


def test_gives_up_after_last_attempt_and_records_an_api_failure_never_cached(sim):
    items = make_items(2)
    cache = ResponseCache(":memory:")
    with sim(items, SimConfig(faults=Faults(first_429=10))) as server:
        outcomes, runner, records = _run(server, [_job(it) for it in items], cache=cache,
                                         retry=RetryPolicy(attempts=3, base_s=0))
    assert [o.failure.kind for o in outcomes] == ["api", "api"]
    assert "gave up after 3 attempts: HTTP 429" in outcomes[0].failure.message
    assert runner.totals.failures["api"] == 2 and len(cache) == 0
    assert all(r.error and r.text == "" for r in records)


def test_timeout_is_retried_then_recorded(sim):
    items = make_items(1)
    with sim(items, SimConfig(faults=Faults(rate_slow=1.0, slow_s=3))) as server:
        outcomes, runner, _ = _run(server, [_job(items[0])], timeout_s=0.2,
                                   retry=RetryPolicy(attempts=2, base_s=0))
    assert outcomes[0].failure.kind == "api"
    assert "no answer within 0.2 s" in outcomes[0].failure.message
    assert runner.totals.model_calls == 2


def test_cache_hit_makes_no_call(sim):
    items = make_items(2)
    cache = ResponseCache(":memory:")
    with sim(items) as server:
        first, r1, _ = _run(server, [_job(it) for it in items], cache=cache, retry=FAST_RETRY)
        second, r2, records = _run(server, [_job(it) for it in items], cache=cache,
                                   retry=FAST_RETRY)
    assert r1.totals.model_calls == 2 and r2.totals.model_calls == 0
    assert r2.totals.cache_hits == 2 and all(r.cached for r in records)
    assert [o.value for o in first] == [o.value for o in second]


def test_identical_jobs_in_flight_share_one_call(sim):
    items = make_items(1)
    with sim(items, SimConfig(latency_ms=50)) as server:
        outcomes, runner, records = _run(server, [_job(items[0]), _job(items[0])],
                                         retry=FAST_RETRY)
    assert runner.totals.model_calls == 1 and outcomes[0].value == outcomes[1].value
    assert sorted(r.cached for r in records) == [False, True]


class ScriptedProvider:
    """A provider at the seam that replays scripted answers (no HTTP)."""

    name, model = "scripted", "m"

    def __init__(self, texts):
        self.texts, self.requests = list(texts), []

    def cache_identity(self):
        return {"provider": self.name}

    async def complete(self, request):
        self.requests.append(request)
        item = self.texts.pop(0)
        if isinstance(item, Exception):
            raise item
        return ChatResponse(text=item)

    async def check(self):
        pass

    async def aclose(self):
        pass


def _parse_int(text):
    try:
        return int(text)
    except ValueError:
        raise ParseError(f"expected an integer, got {text!r}", raw=text) from None


REQ = ChatRequest(messages=(Message(role="user", content="pick"),))


def test_reask_carries_the_error_and_recovers():
    provider = ScriptedProvider(["seven", "7"])
    runner = Runner(provider, retry=FAST_RETRY)
    outcome = asyncio.run(runner.run(Job(REQ, _parse_int)))
    assert outcome.value == 7 and runner.totals.reasks == 1
    follow_up = provider.requests[1].messages
    assert [m.role for m in follow_up] == ["user", "assistant", "user"]
    assert follow_up[1].content == "seven"
    assert "expected an integer, got 'seven'" in follow_up[2].content


def test_second_parse_failure_is_recorded_with_raw_text_never_a_value():
    runner = Runner(ScriptedProvider(["seven", "still seven"]), retry=FAST_RETRY)
    outcome = asyncio.run(runner.run(Job(REQ, _parse_int)))
    assert outcome.value is None and outcome.failure.kind == "parse"
    assert outcome.failure.raw == "still seven"
    assert runner.totals.failures == {"api": 0, "parse": 1, "refusal": 0}


def test_non_retryable_error_is_not_retried():
    provider = ScriptedProvider([ProviderError("HTTP 401 authentication failed", status=401)])
    runner = Runner(provider, retry=FAST_RETRY)
    outcome = asyncio.run(runner.run(Job(REQ, _parse_int)))
    assert outcome.failure.kind == "api" and len(provider.requests) == 1


def test_retry_policy_honours_retry_after_and_caps():
    policy = RetryPolicy(attempts=6, base_s=0.5, max_s=30)
    rng = random.Random(0)
    assert policy.delay(0, 3.0, rng) >= 3.0
    assert all(0 <= policy.delay(a, None, rng) <= min(30, 0.5 * 2 ** a) for a in range(10))
    assert policy.delay(0, 999.0, rng) == 30
    assert RetryPolicy(base_s=0).delay(5, None, rng) == 0


def test_unexpected_client_errors_are_recorded_failures():
    runner = Runner(ScriptedProvider([KeyError("boom")]), retry=FAST_RETRY)
    outcome = asyncio.run(runner.run(Job(REQ, _parse_int)))
    assert outcome.failure.kind == "api" and "unexpected KeyError" in outcome.failure.message


def test_many_failures_in_a_row_stop_the_run():
    provider = ScriptedProvider([ProviderError("HTTP 404: no such model")] * 5)
    runner = Runner(provider, retry=FAST_RETRY, abort_after=3)

    async def main():
        for _ in range(5):
            await runner.run(Job(REQ, _parse_int))

    with pytest.raises(ProviderError, match="3 calls in a row failed; last error: HTTP 404"):
        asyncio.run(main())
    assert len(provider.requests) == 3


class CutOffProvider(ScriptedProvider):
    """Answers '7' cut off at the token limit first, then '7' in full."""

    async def complete(self, request):
        self.requests.append(request)
        return ChatResponse(text="7", finish_reason="length" if len(self.requests) == 1
                            else "stop")


def test_an_answer_cut_off_at_the_token_limit_is_never_used():
    provider = CutOffProvider([])
    runner = Runner(provider, retry=FAST_RETRY)
    outcome = asyncio.run(runner.run(Job(REQ, _parse_int)))
    assert outcome.value == 7 and runner.totals.reasks == 1
    assert "cut off at the token limit" in provider.requests[1].messages[-1].content


def test_reask_asks_again_in_the_format_the_job_asked_for():
    # a JSON job keeps the follow-up it always had (its cache key must not move) ...
    provider = ScriptedProvider(["seven", "7"])
    asyncio.run(Runner(provider, retry=FAST_RETRY).run(Job(REQ, _parse_int)))
    assert provider.requests[1].messages[2].content == (
        "Your reply could not be used: expected an integer, got 'seven'. Reply again with "
        "only the JSON object in the format asked for above.")
    # ... verdict tokens and result markers are asked for as such, never as JSON
    from jurybox.protocols.pairwise_prompts import TOKEN_REASK
    from jurybox.protocols.rubric_prompts import MARKER_REASK

    for asked in (TOKEN_REASK, MARKER_REASK):
        provider = ScriptedProvider(["seven", "7"])
        asyncio.run(Runner(provider, retry=FAST_RETRY).run(Job(REQ, _parse_int, reask=asked)))
        follow_up = provider.requests[1].messages[2].content
        assert follow_up.endswith(f"Reply again with {asked}.") and "JSON" not in follow_up


def test_pairwise_token_calls_carry_their_reask():
    from jurybox.datasets import PairwiseItem
    from jurybox.protocols import build_protocol
    from jurybox.protocols.pairwise_prompts import TOKEN_REASK

    item = PairwiseItem(item_id="p", question="Q?", response_a="a", response_b="b", label="A>B")
    token = build_protocol("pairwise", seed=0).plan(item)
    as_json = build_protocol("pairwise", seed=0, verdict_format="json").plan(item)
    assert [c.reask for c in token] == [TOKEN_REASK] and [c.reask for c in as_json] == [None]
