"""Answer schemas: what each protocol declares, and that answers in that shape parse."""

import json

from jurybox.datasets import ListwiseItem, PairwiseItem, RatedItem
from jurybox.parsing import parse_listwise, parse_rubric
from jurybox.protocols import (PROTOCOLS, Condition, RubricContext, RubricJudge, Unit,
                               build_protocol, listwise_schema, rubric_schema, verdict_schema)
from jurybox.rubrics import Rubric

ITEM = ListwiseItem("q1", "Which?", ("a", "b", "c"), frozenset({0}))
PAIR = PairwiseItem("p1", "2+2?", "4", "5", "A>B")


def test_listwise_schema_uses_enums_grammars_honour():
    schema = listwise_schema(("A", "B", "C"))
    candidate = schema["properties"]["candidates"]["properties"]["B"]
    assert candidate["properties"]["score"]["enum"] == list(range(101))  # not minimum/maximum
    assert "minimum" not in json.dumps(schema)
    assert schema["properties"]["ranking"]["items"]["enum"] == ["A", "B", "C"]
    assert schema["properties"]["ranking"]["minItems"] == schema["properties"]["ranking"][
        "maxItems"] == 3
    assert schema["required"] == ["candidates", "ranking", "rationale"]
    assert schema["additionalProperties"] is False


def test_an_answer_in_the_schemas_shape_parses():
    answer = {"candidates": {label: {"score": s, "major_factual_error": False,
                                     "hallucinated_specificity": False,
                                     "calibrated_uncertainty": label == "C"}
                             for label, s in zip("ABC", (90, 10, 40))},
              "ranking": ["A", "C", "B"], "rationale": "A is right."}
    parsed = parse_listwise(json.dumps(answer), labels=("A", "B", "C"))
    assert parsed.ranking == ("A", "C", "B") and parsed.candidates["C"].score == 40


def test_every_protocol_declares_its_schema():
    pcf = build_protocol("pcf", k=3)
    assert pcf.answer_schema(ITEM) == listwise_schema(("A", "B", "C"))
    assert build_protocol("apoc", verdict_format="json").answer_schema(PAIR) == verdict_schema()
    assert verdict_schema()["properties"]["verdict"]["enum"] == ["A", "B", "tie"]
    assert build_protocol("pairwise").answer_schema(PAIR) == {}  # verdict tokens: free text
    assert set(PROTOCOLS) == {"apoc", "both-orders", "direct", "keyed", "pairwise", "pcf",
                              "rubric"}


def test_rubric_schema_enumerates_the_scale_and_the_exclusion_code():
    schema = rubric_schema(1, 3, exclusion=0)
    assert schema["properties"]["score"]["enum"] == [0, 1, 2, 3]
    assert schema["properties"]["confidence"]["enum"] == list(range(101))
    rubric = Rubric.model_validate({"name": "t", "dimensions": [
        {"name": "market", "scale": {"min": 1, "max": 3},
         "exclusion": {"code": 0, "meaning": "not B2B"}}]})
    judge = build_protocol("rubric", context=RubricContext(
        rubric, [], {"i": RatedItem("i", "x")}, {}, {}), condition=Condition("zero-shot", 0))
    assert isinstance(judge, RubricJudge) and judge.name == "zero-shot@0"
    assert judge.answer_schema(Unit("r", "i")) == schema
    assert judge.params()["dimensions"] == ["market"]
    answer = '{"score": 0, "confidence": 90, "reasoning": "a consumer app"}'
    dim = rubric.dimension("market")
    assert parse_rubric(answer, valid=dim.valid_answer, allowed="1-3 or 0").score == 0
