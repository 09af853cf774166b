"""A failure is never served from the cache: a rerun asks again (issue 29).

A hostile judge on 127.0.0.1 answers every request with an unusable answer; the run records
parse failures and the cache keeps the answers. The server is fixed and the same command is
rerun (into the same run directory, or a fresh one with the same cache): every cached failure
is asked again, its new answer replaces the cached one, and every item is decided.
"""

import asyncio
import json

import pytest
from typer.testing import CliRunner

from jurybox.cache import ResponseCache
from jurybox.cli import app
from jurybox.errors import ParseError, ProviderError
from jurybox.providers import ChatRequest, ChatResponse, Message
from jurybox.rundir import read_jsonl
from jurybox.runner import Job, Runner

from ..providers.fake_server import completion, fake_server, listwise_answer

cli = CliRunner()
N_ITEMS = 3


def _score(literal: str) -> str:
    return listwise_answer().replace('"score": 90', f'"score": {literal}', 1)


# each: (answer text, finish_reason); all are answers the runner cannot use
HOSTILE = {
    "10k-deep nesting": ('{"a":' * 10_000 + "1" + "}" * 10_000, "stop"),
    "score of 10^400": (_score("1" + "0" * 400), "stop"),
    "5 MB of open braces": ("{" * 5_000_000, "stop"),
    "cut off at the token limit": (listwise_answer()[:-20], "length"),
}


class Judge:
    """The fake server's answers: hostile until ``fixed``; counts chat requests."""

    def __init__(self, text: str, finish_reason: str) -> None:
        self.text, self.finish_reason, self.served = text, finish_reason, 0

    def fix(self) -> None:
        self.text, self.finish_reason = listwise_answer(), "stop"

    def __call__(self, request: dict) -> str:
        self.served += 1
        return completion(self.text, finish_reason=self.finish_reason)


def _judge(tmp_path, base_url: str, out: str, *, exit_code: int = 0):
    items = tmp_path / "lw.jsonl"
    if not items.exists():
        items.write_text("".join(json.dumps({"id": f"q{i}", "prompt": f"Question {i}?",
                                             "candidates": [f"a{i}", f"b{i}"]}) + "\n"
                                 for i in range(N_ITEMS)))
    result = cli.invoke(app, ["judge", str(items), "--model", "vllm/m", "--base-url", base_url,
                              "--protocol", "direct", "--attempts", "2", "--structured", "off",
                              "--cache", str(tmp_path / "c.sqlite"),
                              "--out", str(tmp_path / out)])
    assert result.exit_code == exit_code, result.output
    totals = json.loads((tmp_path / out / "run.json").read_text())["sessions"][-1]["totals"]
    return result.output, totals


@pytest.mark.parametrize("same_out", [True, False], ids=["same --out", "fresh --out"])
@pytest.mark.parametrize("case", HOSTILE)
def test_a_cached_failure_is_asked_again_once_the_server_is_fixed(tmp_path, case, same_out):
    judge = Judge(*HOSTILE[case])
    with fake_server(judge) as url:
        out, first = _judge(tmp_path, url, "run", exit_code=1)  # 1: no item was judged
        assert first["reasks"] == N_ITEMS
        # each item asked and re-asked once (a re-ask quotes at most REASK_ECHO_CHARS of
        # the answer, so even 5 MB makes a small request); both answers unusable, both cached
        assert judge.served == 2 * N_ITEMS
        assert first["failures"] == {"api": 0, "parse": N_ITEMS, "refusal": 0}
        served = judge.served
        assert "cached_failures_asked" not in first and "asked again" not in out

        judge.fix()
        out, second = _judge(tmp_path, url, "run" if same_out else "fresh")
        # every item's first request was a cached failure: asked again (no cache hit, no
        # re-ask), and decided
        assert judge.served == served + N_ITEMS
        assert (second["model_calls"], second["cache_hits"], second["reasks"]) == (N_ITEMS, 0, 0)
        assert second["cached_failures_asked"] == N_ITEMS
        assert second["failures"] == {"api": 0, "parse": 0, "refusal": 0}
        assert f"cached failures asked again: {N_ITEMS}" in out
        run = tmp_path / ("run" if same_out else "fresh")
        latest = {i["item_id"]: i for i in read_jsonl(run / "items.jsonl")}
        assert len(latest) == N_ITEMS and not any(i["failed"] for i in latest.values())
        asked = [c for c in read_jsonl(run / "calls.jsonl") if c.get("asked_again")]
        assert len(asked) == N_ITEMS and all(c["outcome"] == "ok" for c in asked)
        # the totals count each item once, by its last judgment (the failed first records
        # are superseded, not added: 3 items, 0 failed, never 6 items, 3 failed)
        summary = json.loads((run / "summary.json").read_text())
        assert summary["n_items"] == N_ITEMS
        assert (summary["judge"]["n_items"], summary["judge"]["n_failed"]) == (N_ITEMS, 0)
        assert summary["protocols"]["direct"]["items_failed"] == 0
        assert f"{N_ITEMS} items: 0 failed" in out

        # the new answers replaced the cached failures: a third run is all cache hits
        out, third = _judge(tmp_path, url, "third")
        assert judge.served == served + N_ITEMS
        assert (third["model_calls"], third["cache_hits"]) == (0, N_ITEMS)
        assert "cached_failures_asked" not in third and "asked again" not in out
    cache = ResponseCache(tmp_path / "c.sqlite", read_only=True)
    try:
        assert all(cache.get(c["key"]).text == listwise_answer() for c in asked)
    finally:
        cache.close()


class _NoEndpoint:
    name, model, simulated = "none", "none", False

    def cache_identity(self) -> dict:
        return {"endpoint": "none"}

    async def complete(self, request: ChatRequest) -> ChatResponse:
        raise ProviderError("offline: never called")


def _refuse(text: str) -> str:
    raise ParseError("not a judgment", raw=text)


def test_offline_replay_keeps_a_recorded_failure_a_failure():
    cache = ResponseCache(":memory:")
    request = ChatRequest(messages=(Message(role="user", content="Q?"),))
    runner = Runner(_NoEndpoint(), cache=cache, offline=True, reask=False)
    from jurybox.cache import cache_key
    cache.put(cache_key(runner._identity, request), ChatResponse(text="unusable"))
    outcome = asyncio.run(runner.run(Job(request, _refuse)))
    assert outcome.failure is not None and outcome.failure.kind == "parse"
    assert outcome.failure.raw == "unusable"
    t = runner.totals
    assert (t.cache_hits, t.model_calls, t.cached_failures_asked) == (1, 0, 0)
    assert t.failures["parse"] == 1


def test_an_identical_call_in_flight_is_not_asked_again():
    # two jobs for one request: the second shares the first's call (not the cache), so a
    # failed answer is re-asked, not asked again
    served = []

    class Endpoint(_NoEndpoint):
        async def complete(self, request: ChatRequest) -> ChatResponse:
            served.append(len(request.messages))
            await asyncio.sleep(0.01)
            return ChatResponse(text="unusable")

    request = ChatRequest(messages=(Message(role="user", content="Q?"),))
    runner = Runner(Endpoint(), cache=ResponseCache(":memory:"), reask=False)

    async def both():
        return await asyncio.gather(runner.run(Job(request, _refuse)),
                                    runner.run(Job(request, _refuse)))
    outcomes = asyncio.run(both())
    assert all(o.failure is not None for o in outcomes)
    assert served == [1] and runner.totals.cached_failures_asked == 0
    assert runner.totals.cache_hits == 1
