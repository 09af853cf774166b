"""How the runner parses: every problem in one re-ask and in calls.jsonl, long answers off
the event loop, a parser's crash a recorded failure."""

import asyncio
import json
import threading

from jurybox.datasets import ListwiseItem
from jurybox.errors import ParseError
from jurybox.protocols import PCFProtocol
from jurybox.providers import ChatRequest, Message
from jurybox.runner import Job, Runner
from jurybox.runner.runner import INLINE_PARSE_CHARS, parse_answer

from ..conftest import FAST_RETRY
from .test_runner import ScriptedProvider

REQ = ChatRequest(messages=(Message(role="user", content="pick"),))
ITEM = ListwiseItem("q", "Question?", ("a", "b", "c"), frozenset({0}))


def _listwise(scores, ranking=("A", "B", "C")):
    return json.dumps({"candidates": {lab: {"score": s, "major_factual_error": False,
                                            "hallucinated_specificity": False,
                                            "calibrated_uncertainty": False}
                                      for lab, s in zip("ABC", scores)},
                       "ranking": list(ranking)})


def test_one_reask_names_every_invalid_field_and_calls_record_them_all():
    call = PCFProtocol(k=1).plan(ITEM)[0]
    provider = ScriptedProvider([_listwise((150, -1, "x"), ("A", "A", "B")),
                                 _listwise((90, 40, 65))])
    records = []
    runner = Runner(provider, retry=FAST_RETRY, on_call=records.append)
    outcome = asyncio.run(runner.run(Job(call.request, call.parse)))
    everything = ("score of A must be a number 0-100, got 150; score of B must be a number "
                  "0-100, got -1; score of C must be a number 0-100, got 'x'; ranking must "
                  "list every label exactly once: duplicate ['A'], missing ['C']")
    assert provider.requests[1].messages[-1].content.startswith(
        f"Your reply could not be used: {everything}. Reply again with")
    assert records[0].parse_error == everything
    assert outcome.ok and outcome.value.candidates["C"].score == 65.0


def _thread_of_parse(text):
    seen = []

    def parse(t):
        seen.append(threading.get_ident())
        return len(t)

    async def main():
        return await parse_answer(parse, text), threading.get_ident()

    value, loop_thread = asyncio.run(main())
    assert value == len(text)
    return seen[0] == loop_thread


def test_short_answers_parse_in_place_long_ones_in_a_worker_thread():
    assert _thread_of_parse("x" * INLINE_PARSE_CHARS) is True
    assert _thread_of_parse("x" * (INLINE_PARSE_CHARS + 1)) is False


def test_the_event_loop_runs_while_a_long_answer_is_parsed():
    # the parse waits until a coroutine on the loop lets it go: on the loop it would wait
    # forever (20 s here, the hang guard) because the loop could not run that coroutine
    released = threading.Event()

    def parse(text):
        return released.wait(20)

    async def main():
        async def release():
            await asyncio.sleep(0.01)
            released.set()

        result, _ = await asyncio.gather(parse_answer(parse, "x" * (INLINE_PARSE_CHARS + 1)),
                                         release())
        return result

    assert asyncio.run(main()) is True


def test_a_parser_crash_is_a_recorded_parse_failure_not_reasked():
    def broken(text):
        raise RecursionError("maximum recursion depth exceeded")

    def fine(text):
        if text == "boom":
            raise ValueError("Exceeds the limit (4300 digits)")
        raise ParseError("unusable", raw=text)

    provider = ScriptedProvider(["deep", "boom"])
    records = []
    runner = Runner(provider, retry=FAST_RETRY, on_call=records.append)
    first = asyncio.run(runner.run(Job(REQ, broken)))
    assert first.failure.kind == "parse" and len(provider.requests) == 1  # no re-ask
    assert first.failure.message == ("the answer could not be read (the parser failed: "
                                     "RecursionError: maximum recursion depth exceeded)")
    assert first.failure.raw == "deep"
    second = asyncio.run(runner.run(Job(REQ, fine)))
    assert second.failure.kind == "parse" and "ValueError: Exceeds the limit" in (
        second.failure.message)
    assert [r.outcome for r in records] == ["parse", "parse"]
    assert runner.totals.failures == {"api": 0, "parse": 2, "refusal": 0}
    assert runner.totals.reasks == 0
