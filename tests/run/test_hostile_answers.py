"""A judge that answers hostile text: the run completes with recorded parse failures; a rerun
with the same cache asks again (a failure is never served from the cache), and while the judge
still answers the same the failures are recorded again."""

import asyncio
import json
import threading

import pytest
from aiohttp import web

from jurybox.compare import BenchConfig, run_bench
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy

LABELS = ("A", "B", "C", "D")


def _listwise(score_literal: str) -> str:
    judged = {lab: {"score": 50, "major_factual_error": False,
                    "hallucinated_specificity": False, "calibrated_uncertainty": False}
              for lab in LABELS}
    text = json.dumps({"candidates": judged, "ranking": list(LABELS), "rationale": "x"})
    return text.replace('"score": 50', f'"score": {score_literal}', 1)


class FixedAnswerServer:
    """An OpenAI-compatible endpoint on 127.0.0.1 that answers every chat request with the
    same text (and lists model ``m``); counts the chat requests it served."""

    def __init__(self, text: str) -> None:
        self.text, self.served = text, 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    async def _completions(self, request: web.Request) -> web.Response:
        await request.read()
        self.served += 1
        return web.json_response({
            "id": "fixed", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": self.text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})

    async def _models(self, _: web.Request) -> web.Response:
        return web.json_response({"object": "list",
                                  "data": [{"id": "m", "object": "model", "owned_by": "x"}]})

    def __enter__(self) -> "FixedAnswerServer":
        ready = threading.Event()

        def serve() -> None:
            loop = self._loop = asyncio.new_event_loop()
            app = web.Application(client_max_size=64 * 1024 * 1024)
            app.router.add_post("/v1/chat/completions", self._completions)
            app.router.add_get("/v1/models", self._models)
            runner = web.AppRunner(app, access_log=None)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        assert ready.wait(10)
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def _bench(tmp_path, out, base_url):
    config = BenchConfig(dataset="rewardbench2-sample", model="vllm/m", base_url=base_url,
                         protocols=("direct",), limit=3)
    return run_bench(config, tmp_path / out, options=RunOptions(
        cache_path=tmp_path / "cache.sqlite", retry=RetryPolicy(attempts=1, base_s=0),
        structured="off"))


HOSTILE = {
    # Python refuses int() of more than 4,300 digits: this answer once ended the run (exit
    # 2, run.json "interrupted", no item recorded), and every rerun from the cache again
    "huge-digit score": (_listwise("9" * 5_000),
                         "score of A must be a number 0-100, got 99999999999999999999… "
                         "(a number of 5,000 characters)"),
    # json recursed once per level: RecursionError; now read 32 levels deep, and no answer
    "deep nesting": ('{"a":' * 10_000 + "1" + "}" * 10_000,
                     'missing "candidates" object mapping each label to its judgment; ranking '
                     "must list every label exactly once, as a JSON list of ['A', 'B', 'C', "
                     "'D']; got None"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_answers_are_recorded_failures_live_and_asked_again(tmp_path, case):
    text, message = HOSTILE[case]
    with FixedAnswerServer(text) as server:
        live = _bench(tmp_path, "live", server.base_url)
        served = server.served
        rerun = _bench(tmp_path, "rerun", server.base_url)  # a fresh run, same cache
        assert server.served == 2 * served  # every cached failure (and re-ask) asked again
    assert served == 6  # 3 items, each asked and re-asked once
    for result in (live, rerun):
        assert result.status == "partial"  # finished; items without a decision (not "interrupted")
        assert result.totals.failures == {"api": 0, "parse": 3, "refusal": 0}
        assert result.totals.reasks == 3
        manifest = json.loads((result.out / "run.json").read_text())
        assert manifest["status"] == "partial" and manifest["totals"]["failures"]["parse"] == 3
        items = read_jsonl(result.out / "items.jsonl")
        assert len(items) == 3 and all(i["failures"] == ["parse"] for i in items)
        calls = read_jsonl(result.out / "calls.jsonl")
        assert [c["parse_error"] for c in calls] == [message] * 6
        follow_ups = [c["messages"][-1][1] for c in calls if c["meta"]["reask"] == 1]
        assert all(f.startswith(f"Your reply could not be used: {message}.")
                   for f in follow_ups) and len(follow_ups) == 3
    assert (rerun.totals.cache_hits, rerun.totals.model_calls) == (0, 6)
    assert (live.totals.cached_failures_asked, rerun.totals.cached_failures_asked) == (0, 6)


def test_a_run_interrupted_by_the_old_crash_resumes_and_asks_again(tmp_path):
    # the state the old crash left: the cache holds the hostile answers, the run directory
    # no decision; resuming it with the server fixed asks again and decides every item
    text, _ = HOSTILE["huge-digit score"]
    with FixedAnswerServer(text) as server:
        _bench(tmp_path, "first", server.base_url)
        (tmp_path / "first" / "items.jsonl").unlink()  # as if it stopped before any decision
        (tmp_path / "first" / "calls.jsonl").unlink()
        served, server.text = server.served, _listwise("50")  # the server now answers well
        resumed = _bench(tmp_path, "first", server.base_url)
        assert server.served == served + 3  # each item's cached failure asked again
    assert resumed.status == "complete" and resumed.totals.failures["parse"] == 0
    assert resumed.totals.cached_failures_asked == 3 and resumed.totals.cache_hits == 0
    calls = read_jsonl(resumed.out / "calls.jsonl")
    assert [(c["outcome"], c.get("asked_again")) for c in calls] == [("ok", True)] * 3
