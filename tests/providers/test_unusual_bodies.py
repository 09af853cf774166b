"""Legal but unusual (or broken) response bodies: read when their meaning is clear, else one
recorded failure line, never a traceback; bad usage never enters the totals; a lone surrogate
in an answer is replaced and the answer kept."""

import asyncio
import json
import logging

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import ProviderError
from jurybox.protocols import listwise_request
from jurybox.providers import OpenAICompatibleProvider, Usage
from jurybox.rundir import read_jsonl
from jurybox.runner import CallRecord, Totals

from .fake_server import check_and_complete, completion, fake_server, listwise_answer

REQUEST = listwise_request("Q?", ["a", "b"], tag="0")


def _complete(base_url, transport="aiohttp"):
    return check_and_complete(OpenAICompatibleProvider("vllm", "m", base_url,
                                                       transport=transport), REQUEST)


@pytest.mark.parametrize("transport", ["aiohttp", "sdk"])
def test_content_as_a_list_of_text_parts_is_joined(transport):
    body = completion([{"type": "text", "text": '{"ranking": '},
                       {"type": "image_url", "image_url": {"url": "x"}},
                       {"type": "text", "text": '["A"]}'}])
    with fake_server(body) as url:
        response = _complete(url, transport)
    assert response.text == '{"ranking": ["A"]}' and response.finish_reason == "stop"


@pytest.mark.parametrize("transport", ["aiohttp", "sdk"])
@pytest.mark.parametrize("body, message", [
    (completion(5), r"choices\[0\]\.message\.content is a number \(5\), not a string"),
    (completion({"text": "x"}), r"choices\[0\]\.message\.content is an object, not a string"),
    (completion([5]), r"choices\[0\]\.message\.content\[0\] is a number \(5\), not a content"),
    (completion([{"type": "text", "text": None}]),
     r"choices\[0\]\.message\.content\[0\]\.text is null, not a string"),
    (completion("x", finish_reason=3), r"choices\[0\]\.finish_reason is a number \(3\), not a "
                                       r"string: whether the answer was cut off"),
    (completion("x", finish_reason={"a": 1}), r"finish_reason is an object, not a string"),
])
def test_fields_of_the_wrong_type_are_one_line_provider_errors(transport, body, message):
    with fake_server(body) as url:
        with pytest.raises(ProviderError, match=message) as caught:
            _complete(url, transport)
    assert "\n" not in str(caught.value)


def test_null_content_is_no_text_and_a_refusal_field_is_kept():
    body = {"choices": [{"message": {"content": None}, "finish_reason": "stop"}]}
    assert OpenAICompatibleProvider._response(body, 0.0).text == ""
    body["choices"][0]["message"]["refusal"] = "I cannot judge this."
    assert OpenAICompatibleProvider._response(body, 0.0).text == "I cannot judge this."


@pytest.mark.parametrize("usage, invalid", [
    ({"prompt_tokens": -2_000_000, "completion_tokens": 5},
     "prompt_tokens is -2000000, not a count >= 0"),
    ({"prompt_tokens": "100", "completion_tokens": 5},
     "prompt_tokens is a string ('100'), not a count >= 0"),
    ({"prompt_tokens": 100, "completion_tokens": 2.5},
     "completion_tokens is 2.5, not a count >= 0"),
    ({"prompt_tokens": True, "completion_tokens": 5},
     "prompt_tokens is a boolean (true), not a count >= 0"),
    ({"prompt_tokens": 10, "completion_tokens": 5,
      "prompt_tokens_details": {"cached_tokens": 11}},
     "cached_tokens (11) exceed prompt_tokens (10)"),
    ({"prompt_tokens": 10, "prompt_tokens_details": [1]},
     "usage.prompt_tokens_details is a list, not an object"),
    ([1, 2], "usage is a list, not an object"),
    ("lots", "usage is a string ('lots'), not an object"),
])
def test_usage_that_is_not_a_count_is_recorded_invalid_and_counts_nothing(usage, invalid):
    body = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}], "usage": usage}
    read = OpenAICompatibleProvider._response(body, 0.0).usage
    assert read.invalid == invalid
    assert (read.prompt_tokens, read.completion_tokens, read.cached_tokens) == (0, 0, 0)


def test_usage_whose_meaning_is_clear_is_read():
    body = {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12.0, "completion_tokens": None,
                      "prompt_tokens_details": None}}
    read = OpenAICompatibleProvider._response(body, 0.0).usage
    assert (read.prompt_tokens, read.completion_tokens, read.invalid) == (12, 0, None)
    del body["usage"]
    assert OpenAICompatibleProvider._response(body, 0.0).usage == Usage()


def test_totals_leave_invalid_usage_out_and_count_it():
    good = CallRecord(key="a", meta={}, attempts=1, outcome="ok",
                      usage=Usage(prompt_tokens=100, completion_tokens=7))
    bad = CallRecord(key="b", meta={}, attempts=1, outcome="ok",
                     usage=Usage.model_validate({"prompt_tokens": -2_000_000}))
    totals = Totals()
    for record in (good, bad):
        totals.add(record)
    assert (totals.prompt_tokens, totals.completion_tokens, totals.invalid_usage) == (100, 7, 1)
    assert totals.as_dict()["invalid_usage"] == 1
    # calls.jsonl as written, and a hand-edited one, give the same totals
    rows = [good.model_dump(mode="json"), bad.model_dump(mode="json"),
            {**good.model_dump(mode="json"), "usage": {"prompt_tokens": -5}},
            {**good.model_dump(mode="json"), "usage": "garbage"}]
    again = Totals.of_records(rows)
    assert (again.prompt_tokens, again.completion_tokens, again.invalid_usage) == (100, 7, 3)


def _judge(tmp_path, url, *extra, name="run"):
    data = tmp_path / "two.jsonl"
    data.write_text(json.dumps({"id": "q1", "prompt": "Q?", "candidates": ["x", "y"]}) + "\n"
                    + json.dumps({"id": "q2", "prompt": "R?", "candidates": ["u", "v"]}) + "\n")
    result = CliRunner().invoke(app, [
        "judge", str(data), "--model", "vllm/m", "--base-url", url, "--protocol", "direct",
        "--cache", str(tmp_path / "cache.sqlite"), "--out", str(tmp_path / name),
        "--attempts", "1", *extra])
    return result, tmp_path / name


def test_a_broken_body_is_a_recorded_failure_with_no_traceback_logged(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with fake_server(completion({"not": "text"})) as url:
        result, out = _judge(tmp_path, url)
    assert result.exit_code == 1, result.output  # nothing judged
    calls = read_jsonl(out / "calls.jsonl")
    assert {c["outcome"] for c in calls} == {"api"}
    assert all(c["error"] == "the endpoint's answer is not text: choices[0].message.content is "
               "an object, not a string or a list of text parts" for c in calls)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert "Traceback" not in result.output


def test_negative_usage_never_enters_the_run_totals(tmp_path):
    body = completion(listwise_answer(), usage={"prompt_tokens": -2_000_000,
                                                "completion_tokens": 40})
    with fake_server(body) as url:
        result, out = _judge(tmp_path, url)
    assert result.exit_code == 0, result.output
    totals = json.loads((out / "run.json").read_text())["totals"]
    assert (totals["prompt_tokens"], totals["completion_tokens"], totals["invalid_usage"]) == (
        0, 0, 2)
    calls = read_jsonl(out / "calls.jsonl")
    assert [c["usage"]["invalid"] for c in calls] == [
        "prompt_tokens is -2000000, not a count >= 0"] * 2


def test_a_lone_surrogate_in_an_answer_is_replaced_and_the_answer_kept(tmp_path):
    # the body's JSON escapes a lone surrogate in the answer's text: "...right \ud800 here..."
    raw = json.dumps(listwise_answer("A is right @@ here.")).replace("@@", "\\ud800")
    body = completion(raw_content=raw)
    assert json.loads(body)["choices"][0]["message"]["content"].count("\ud800") == 1
    with fake_server(body) as url:
        result, out = _judge(tmp_path, url)
        assert result.exit_code == 0, result.output
        judgments = read_jsonl(out / "judgments.jsonl")
        calls = read_jsonl(out / "calls.jsonl")
        shown_first = {c["meta"]["item_id"]: c["meta"]["order"][0] for c in calls}
        assert {j["item_id"]: j["winners"] for j in judgments} == {  # label A won
            i: [first] for i, first in shown_first.items()}
        assert all("right \ufffd here" in c["text"] and c["repaired"] ==
                   "1 lone surrogate replaced by U+FFFD" for c in calls)
        # the cache holds the answers: a second run is served from it
        again, out2 = _judge(tmp_path, url, name="run2")
    assert again.exit_code == 0, again.output
    calls = read_jsonl(out2 / "calls.jsonl")
    assert [c["cached"] for c in calls] == [True, True]
    assert all(c["repaired"] == "1 lone surrogate replaced by U+FFFD" for c in calls)


def test_a_server_whose_model_list_is_null_is_used(tmp_path):
    with fake_server(completion(listwise_answer()), models='{"data": null}') as url:
        result, _ = _judge(tmp_path, url)
    assert result.exit_code == 0, result.output


def _anthropic(base_url):
    from jurybox.providers.anthropic import AnthropicProvider

    return check_and_complete(
        AnthropicProvider("m", api_key="k", base_url=base_url.removesuffix("/v1")), REQUEST)


def _message(content, stop_reason="end_turn", usage=None):
    return json.dumps({"id": "msg", "type": "message", "role": "assistant", "model": "m",
                       "content": content, "stop_reason": stop_reason,
                       "usage": usage if usage is not None else {"input_tokens": 10,
                                                                  "output_tokens": 3}})


@pytest.mark.parametrize("body, message", [
    (_message([{"type": "text", "text": 5}]), r"content\[0\]\.text is a number \(5\)"),
    (_message("hello"), r"content is a string \('hello'\), not a list of content blocks"),
    (_message([7]), r"content\[0\] is a number \(7\), not a content block"),
    (_message([{"type": "text", "text": "x"}], stop_reason=3),
     r"stop_reason is a number \(3\), not a string"),
    ("[1, 2]", r"not a Messages API message: it is a list"),
    ("not json", r"/v1/messages answered with a body that is not JSON"),
])
def test_anthropic_fields_of_the_wrong_type_are_one_line_provider_errors(body, message):
    pytest.importorskip("anthropic")
    with fake_server(body, models="null") as url:  # a listing the SDK cannot read: tolerated
        with pytest.raises(ProviderError, match=message):
            _anthropic(url)


def test_anthropic_bad_usage_is_invalid_and_a_lone_surrogate_is_replaced():
    pytest.importorskip("anthropic")
    body = _message([{"type": "text", "text": "@@"}], usage={"input_tokens": -5,
                                                            "output_tokens": 3})
    with fake_server(body.replace('"@@"', '"ok \\ud800"')) as url:
        response = _anthropic(url)
    assert response.text == "ok \ufffd" and response.repaired == (
        "1 lone surrogate replaced by U+FFFD")
    assert response.usage.invalid == "usage.input_tokens is -5, not a count >= 0"
    good = _message([{"type": "text", "text": "ok"}], stop_reason="max_tokens", usage={
        "input_tokens": 10, "output_tokens": 2.0, "cache_read_input_tokens": 4})
    with fake_server(good) as url:
        response = _anthropic(url)
    assert (response.usage.prompt_tokens, response.usage.completion_tokens,
            response.usage.cached_tokens, response.finish_reason) == (14, 2, 4, "length")


def test_an_endless_error_body_is_read_only_up_to_its_bound():
    # an HTTP 500 whose body never ended grew a run to 2.7 GB before its timeout: the
    # error text is read up to MAX_ERROR_BODY_BYTES and the rest never
    from jurybox.providers.responses import MAX_ERROR_BODY_BYTES
    from jurybox.providers.responses import error_text as _error_text

    pulled = []

    class Content:
        async def iter_chunked(self, size):
            while True:  # endless
                pulled.append(size)
                yield b"x" * size

    class Response:
        content = Content()

    text = asyncio.run(_error_text(Response()))
    assert text == "x" * MAX_ERROR_BODY_BYTES + " ..."
    assert sum(pulled) <= MAX_ERROR_BODY_BYTES + (1 << 16)  # one chunk past the bound at most

