"""The rubric judge's answer format: JSON (default) or feedback then ``[RESULT] <score>``."""

import pytest

from jurybox.datasets import RatedItem
from jurybox.errors import ConfigError
from jurybox.protocols import Condition, RubricContext, Unit, build_protocol
from jurybox.rubrics import Rubric
from jurybox.sim.rubric import rubric_answer

RUBRIC = Rubric.model_validate({"name": "t", "dimensions": [
    {"name": "clarity", "scale": {"min": 1, "max": 4, "levels": {1: "unclear", 4: "clear"}}}]})
CONTEXT = RubricContext(rubric=RUBRIC, ratings=[], items={"i1": RatedItem("i1", "Some text.")},
                        labels={}, domains={})


def _judge(**args):
    return build_protocol("rubric", context=CONTEXT, condition=Condition("zero-shot", 0),
                          seeds=1, **args)


def test_result_marker_prompt_parser_and_no_schema():
    judge = _judge(answer_format="result-marker")
    [call], _ = judge.plan_dimension(Unit("r", "i1"), "clarity")
    user = call.request.messages[1].content
    assert user.endswith('The output format should look as follows: "Feedback: <your '
                         'feedback> [RESULT] <an integer 1-4>". Write nothing after the score.')
    assert '"confidence"' not in user
    assert call.schema is None and judge.answer_schema(Unit("r", "i1")) == {}
    assert judge.params()["answer_format"] == "result-marker"
    assert call.parse("Feedback: clear enough.\n[RESULT] 3").score == 3
    assert call.reask is not None and "[RESULT]" in call.reask and "JSON" not in call.reask


def test_json_stays_the_default():
    judge = _judge()
    [call], _ = judge.plan_dimension(Unit("r", "i1"), "clarity")
    assert judge.params()["answer_format"] == "json" and call.reask is None
    assert call.schema is not None and call.schema["required"] == ["score", "confidence",
                                                                  "reasoning"]
    assert call.request.messages[1].content.endswith('"reasoning": "<one or two sentences>"}')


def test_an_unknown_answer_format_is_a_config_error():
    with pytest.raises(ConfigError, match="answer_format must be one of .*got 'xml'"):
        _judge(answer_format="xml")


def test_the_simulated_judge_answers_in_the_format_asked():
    [marker], _ = _judge(answer_format="result-marker").plan_dimension(Unit("r", "i1"),
                                                                       "clarity")
    [plain], _ = _judge().plan_dimension(Unit("r", "i1"), "clarity")
    text = rubric_answer(marker.request.messages[1].content, None, 0.0)
    # unknown item: the centre of 1-4 is 2.5, rounded to 2 (banker's rounding), no noise
    assert text.startswith("Feedback: On clarity") and text.endswith("\n[RESULT] 2")
    assert marker.parse(text).score == 2
    assert plain.parse(rubric_answer(plain.request.messages[1].content, None, 0.0)).score == 2


class MarkerlessOnce:
    """Answers without a result marker, then (re-asked) with one; records what it was sent."""

    name, model, simulated = "scripted", "m", True

    def __init__(self):
        self.sent = []

    def cache_identity(self):
        return {"provider": self.name}

    async def complete(self, request):
        from jurybox.providers import ChatResponse

        self.sent.append(request)
        return ChatResponse(text="I would say 3." if len(self.sent) == 1 else
                            "Feedback: mostly clear.\n[RESULT] 3")

    async def check(self):
        pass

    async def aclose(self):
        pass


def test_an_answer_without_a_marker_is_re_asked_like_any_parse_failure():
    import asyncio

    from jurybox.run import ItemCalls
    from jurybox.runner import RetryPolicy, Runner

    provider = MarkerlessOnce()
    runner = Runner(provider, retry=RetryPolicy(attempts=1, base_s=0))
    judge = _judge(answer_format="result-marker")
    unit = Unit("r", "i1")

    async def run():
        return await judge.judge(unit, ItemCalls(runner, unit.key).for_protocol(judge.name))
    result = asyncio.run(run()).dimensions["clarity"]
    assert len(provider.sent) == 2  # the answer, then one re-ask carrying the error
    assert "no [RESULT] marker found" in provider.sent[1].messages[-1].content
    assert (result.status, result.score, result.predictions) == ("scored", 3, ((3, 100.0),))
