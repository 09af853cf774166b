"""Structured outputs: dialects, the cache key, the simulated judge, the once-per-run fallback."""

import json

import pytest

from jurybox.cache import cache_key
from jurybox.compare import BenchConfig, prepare_bench
from jurybox.errors import FormatRefusedError
from jurybox.providers import AnswerFormat, ChatRequest, ChatResponse, Message, response_format
from jurybox.rundir import read_jsonl
from jurybox.run import AnswerFormats, Engine, RunOptions
from jurybox.runner import RetryPolicy
from jurybox.sim import SimConfig, SimJudge, SimServer

SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string", "enum": ["A", "B"]}},
          "required": ["verdict"], "additionalProperties": False}
REQUEST = ChatRequest(messages=(Message(role="user", content="Which?"),))


def _fmt(mode):
    return AnswerFormat(mode=mode, schema_text=json.dumps(SCHEMA, sort_keys=True,
                                                           separators=(",", ":")))


def test_each_dialect_spells_response_format_its_own_way():
    assert response_format(_fmt("json-schema"), "openai") == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True}}
    assert response_format(_fmt("json-object"), "openai") == {"type": "json_object"}
    # llama-cpp-python's server: json_schema is a 500; json_object with a schema is enforced
    assert response_format(_fmt("json-schema"), "llamacpp") == {"type": "json_object",
                                                                "schema": SCHEMA}


def test_mode_and_schema_are_part_of_the_cache_key_and_off_keys_are_unchanged():
    identity = {"provider": "vllm", "base_url": "http://x/v1", "model": "m"}
    off = cache_key(identity, REQUEST)
    with_schema = cache_key(identity, REQUEST.model_copy(update={"answer_format": _fmt(
        "json-schema")}))
    with_object = cache_key(identity, REQUEST.model_copy(update={"answer_format": _fmt(
        "json-object")}))
    assert len({off, with_schema, with_object}) == 3
    assert off == cache_key(identity, ChatRequest(messages=(Message(role="user",
                                                                    content="Which?"),)))


def test_auto_means_the_schema_for_real_endpoints_and_off_for_the_simulated_judge():
    assert AnswerFormats("auto", simulated=False).mode == "json-schema"
    assert AnswerFormats("auto", simulated=True).mode is None
    assert AnswerFormats("json-object", simulated=True).mode == "json-object"
    assert AnswerFormats("off", simulated=False).apply(REQUEST, SCHEMA) is REQUEST
    assert AnswerFormats("auto", simulated=False).apply(REQUEST, None) is REQUEST


def _bench(tmp_path, provider, structured, name="run", concurrency=16):
    bench = prepare_bench(BenchConfig(dataset="rewardbench2-sample", k=2))
    from jurybox.compare.run import _job
    options = RunOptions(structured=structured, retry=RetryPolicy(attempts=2, base_s=0),
                         concurrency=concurrency)
    return Engine(provider, options).run(_job(bench, tmp_path / name, False))


def test_the_simulated_judge_honours_the_schema_and_answers_bare_json(tmp_path):
    config = SimConfig(style="mixed")
    with SimServer(SimJudge(prepare_bench(BenchConfig(dataset="rewardbench2-sample")).selection,
                            config)) as server:
        report = _bench(tmp_path, server.provider(), "json-schema")
    calls = read_jsonl(report.out / "calls.jsonl")
    assert calls and all(c["answer_format"] == "json-schema" for c in calls)
    assert all(json.loads(c["text"])["ranking"] for c in calls)  # no fences, prose, <think>
    assert report.summary.protocols["pcf"].accuracy.n == 8
    session = json.loads((report.out / "run.json").read_text())["sessions"][-1]
    assert session["structured"] == {"requested": "json-schema", "mode": "json-schema",
                                     "fallbacks": []}


def test_a_server_that_ignores_the_field_still_gets_every_answer_validated(tmp_path):
    config = SimConfig(style="mixed", structured="ignore")
    with SimServer(SimJudge(prepare_bench(BenchConfig(dataset="rewardbench2-sample")).selection,
                            config)) as server:
        report = _bench(tmp_path, server.provider(), "json-schema")
    texts = [c["text"] for c in read_jsonl(report.out / "calls.jsonl")]
    assert any(not t.startswith("{") for t in texts)  # fences, prose, think blocks came back
    assert report.summary.protocols["pcf"].accuracy.n == 8


class RefusingProvider:
    """A real-looking endpoint that refuses json-schema and answers json-object."""

    name, model, simulated = "vllm", "m", False

    def __init__(self, refuse=("json-schema",)):
        self.refuse, self.sent = refuse, []
        self.judge = SimJudge(prepare_bench(BenchConfig(dataset="rewardbench2-sample"))
                              .selection, SimConfig(style="plain"))

    def cache_identity(self):
        return {"provider": "refusing"}

    async def complete(self, request):
        fmt = request.answer_format
        self.sent.append(None if fmt is None else fmt.mode)
        if fmt is not None and fmt.mode in self.refuse:
            raise FormatRefusedError("HTTP 400: response_format json_schema is not supported",
                                     status=400)
        body = {"messages": [m.model_dump() for m in request.messages], "seed": request.seed}
        return ChatResponse(text=self.judge.answer(body, 0).text)

    async def check(self):
        pass

    async def aclose(self):
        pass


def test_auto_falls_back_once_for_the_run_and_records_it(tmp_path):
    provider = RefusingProvider()
    report = _bench(tmp_path, provider, "auto", concurrency=1)  # one item at a time
    assert report.summary.protocols["pcf"].accuracy.n == 8  # every item still judged
    assert report.totals.failures["api"] == 0
    session = json.loads((report.out / "run.json").read_text())["sessions"][-1]
    assert session["structured"] == {"requested": "auto", "mode": "json-object", "fallbacks": [
        {"from": "json-schema", "to": "json-object"}]}
    calls = read_jsonl(report.out / "calls.jsonl")
    refused = [c for c in calls if c["format_refused"]]
    assert refused and all(c["answer_format"] == "json-schema" for c in refused)
    # the first item's two calls were refused; every later call asked json-object at once
    assert provider.sent.count("json-schema") == len(refused) == 2
    assert len(calls) == 8 * 2 + 2


def test_auto_falls_back_to_free_text_when_no_mode_is_accepted(tmp_path):
    report = _bench(tmp_path, RefusingProvider(refuse=("json-schema", "json-object")), "auto")
    session = json.loads((report.out / "run.json").read_text())["sessions"][-1]
    assert session["structured"]["mode"] == "off"
    assert [f["to"] for f in session["structured"]["fallbacks"]] == ["json-object", "off"]
    assert report.summary.protocols["pcf"].accuracy.n == 8


@pytest.mark.parametrize("mode", ["json-schema", "json-object"])
def test_an_explicit_mode_does_not_fall_back_a_refusal_is_a_recorded_failure(tmp_path, mode):
    report = _bench(tmp_path, RefusingProvider(refuse=(mode,)), mode)
    assert report.summary.protocols["pcf"].accuracy.n == 0
    assert report.totals.failures["api"] > 0


def test_every_call_keeps_the_messages_the_judge_was_shown(tmp_path):
    bench = prepare_bench(BenchConfig(dataset="rewardbench2-sample", k=2))
    with SimServer(SimJudge(bench.selection, SimConfig())) as server:
        report = _bench(tmp_path, server.provider(), "off")
    planned = {p.request.messages[1].content: p for proto in bench.protocols
               for item in bench.selection for p in proto.plan(item)}
    calls = read_jsonl(report.out / "calls.jsonl")
    assert calls
    for c in calls:
        (system_role, system), (user_role, user) = c["messages"][:2]
        assert (system_role, user_role) == ("system", "user")
        assert user in planned and system == planned[user].request.messages[0].content


def test_score_replays_a_structured_run_offline(tmp_path):
    from jurybox.compare import rescore_run

    bench = prepare_bench(BenchConfig(dataset="rewardbench2-sample", k=2))
    with SimServer(SimJudge(bench.selection, SimConfig())) as server:
        ran = _bench(tmp_path, server.provider(), "json-schema")
    again = rescore_run(ran.out, tmp_path / "rescored")
    assert again.totals.model_calls == 0 and again.totals.failures["api"] == 0
    assert again.summary.protocols == ran.summary.protocols
