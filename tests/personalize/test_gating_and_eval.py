import asyncio
import json
import math

import pytest

from jurybox.datasets import Rating, RatedItem
from jurybox.personalize import alignment, conditions
from jurybox.personalize.evaluate import paired_personalized_vs_aggregate
from jurybox.protocols import RubricContext, RubricJudge, Unit
from jurybox.providers import ChatResponse
from jurybox.rubrics import Rubric
from jurybox.run import ItemCalls
from jurybox.runner import RetryPolicy, Runner

RUBRIC = Rubric.model_validate({"name": "t", "dimensions": [
    {"name": "specificity", "scale": {"min": 1, "max": 4}},
    {"name": "validity", "scale": {"min": 1, "max": 4}, "requires": {"specificity": ">= 2"}},
    {"name": "market", "scale": {"min": 0, "max": 3}, "requires": {"validity": ">= 3"},
     "exclusion": {"code": 0, "meaning": "not B2B"}}]})


class ScoreProvider:
    """Answers every rubric prompt with a fixed score per dimension; records the prompts."""

    name, model, simulated = "scripted", "m", True

    def __init__(self, scores):
        self.scores, self.asked = scores, []

    def cache_identity(self):
        return {"provider": self.name}

    async def complete(self, request):
        user = request.messages[1].content
        dim = next(line.split(": ")[1] for line in user.splitlines()
                   if line.startswith("Dimension: "))
        self.asked.append(dim)
        return ChatResponse(text=json.dumps({"score": self.scores[dim], "confidence": 95,
                                             "reasoning": dim}))

    async def check(self):
        pass

    async def aclose(self):
        pass


def judge_unit(ctx, runner, unit, condition, seeds):
    """The rubric protocol's decision on ``unit`` as its items.jsonl record."""
    judge = RubricJudge(ctx, condition, seeds=seeds, threshold=80, seed=0)

    async def run():
        return await judge.judge(unit, ItemCalls(runner, unit.key).for_protocol(judge.name))
    return asyncio.run(run()).to_record()


def _judge(scores):
    provider = ScoreProvider(scores)
    ctx = RubricContext(rubric=RUBRIC, ratings=[Rating("i2", "r", "specificity", 3.0)],
                        items={"i1": RatedItem("i1", "an idea"), "i2": RatedItem("i2", "other")},
                        labels={("r", "i1", "specificity"): 2.0}, domains={})
    runner = Runner(provider, retry=RetryPolicy(attempts=1, base_s=0))
    record = judge_unit(ctx, runner, Unit("r", "i1"), conditions(["personalized"], [1])[0], 3)
    return record, provider.asked


def test_gating_never_asks_a_gated_dimension():
    record, asked = _judge({"specificity": 1, "validity": 4, "market": 3})
    assert set(asked) == {"specificity"} and len(asked) == 3  # 3 seeds, then nothing
    dims = record["dimensions"]
    assert dims["specificity"] == {**dims["specificity"], "status": "scored", "score": 1,
                                   "label": 2.0}
    assert dims["validity"]["status"] == "gated"
    assert dims["validity"]["gate"] == "specificity = 1 fails >= 2"
    assert dims["market"]["status"] == "gated" and dims["market"]["gate"] == \
        "validity has no score"


class UnsureProvider(ScoreProvider):
    """Answers with confidence 10: every prediction is dropped, every dimension abstains."""

    async def complete(self, request):
        response = await super().complete(request)
        return ChatResponse(text=response.text.replace('"confidence": 95', '"confidence": 10'))


def test_an_abstained_prerequisite_blocks_rather_than_gates():
    provider = UnsureProvider({"specificity": 3, "validity": 3, "market": 3})
    ctx = RubricContext(rubric=RUBRIC, ratings=[], items={"i1": RatedItem("i1", "an idea")},
                        labels={}, domains={})
    record = judge_unit(ctx, Runner(provider), Unit("r", "i1"), conditions(["zero-shot"], [0])[0],
                        2)
    statuses = [record["dimensions"][d]["status"] for d in RUBRIC.names]
    assert statuses == ["abstain", "blocked", "blocked"]
    assert record["dimensions"]["validity"]["gate"] == "no usable score for specificity"


def test_a_predicted_exclusion_code_is_missing_for_statistics():
    record, _ = _judge({"specificity": 3, "validity": 3, "market": 0})
    assert record["dimensions"]["market"]["status"] == "excluded"


def test_open_gates_ask_every_dimension_in_order():
    record, asked = _judge({"specificity": 3, "validity": 3, "market": 0})
    assert asked == ["specificity"] * 3 + ["validity"] * 3 + ["market"] * 3
    assert record["dimensions"]["market"]["score"] == 0  # the exclusion code is an answer
    assert record["dimensions"]["market"]["status"] == "excluded"


def _record(protocol, rater, item, score, label, status="scored", k=2):
    return {"unit": f"{rater}|{item}", "protocol": protocol, "rater_id": rater,
            "item_id": item, "k": k, "dimensions": {
                "d": {"status": status, "score": score, "label": label}}}


def test_alignment_by_hand():
    # rater a: (label, score) = (1, 1), (2, 2), (3, 3) -> exact 1, MAE 0, alpha 1
    # rater b: (1, 2), (2, 2), abstained (3, None) -> exact 1/2, MAE 1/2; coverage 5/6
    # mean over raters: exact (1 + .5)/2 = .75, MAE .25; gated units are left out entirely
    records = [_record("c", "a", "x", 1, 1), _record("c", "a", "y", 2, 2),
               _record("c", "a", "z", 3, 3), _record("c", "b", "x", 2, 1),
               _record("c", "b", "y", 2, 2), _record("c", "b", "z", None, 3, "abstain"),
               _record("c", "b", "w", None, 3, "gated")]
    records += [_record("c", "b", "v", None, 2, "blocked"),
                _record("c", "b", "u", 0, 2, "excluded")]
    # blocked counts against coverage (b: 2 of 4 asked units scored), excluded does not
    (row,) = alignment(records, dimensions=["d"])
    assert (row.units, row.scored, row.abstain, row.gated) == (9, 5, 1, 1)
    assert (row.blocked, row.excluded) == (1, 1)
    assert row.coverage == pytest.approx(5 / 7)
    assert row.coverage_by_rater.mean == pytest.approx((1 + 2 / 4) / 2)
    assert row.exact.mean == pytest.approx(0.75)
    assert row.mae.mean == pytest.approx(0.25)
    assert row.n_raters == 2 and row.alpha.n == 2


def test_personalized_vs_aggregate_is_paired_on_absolute_error():
    records = [_record("aggregate@2", "a", "x", 3, 1), _record("personalized@2", "a", "x", 1, 1),
               _record("aggregate@2", "a", "y", 2, 2), _record("personalized@2", "a", "y", 3, 2),
               _record("aggregate@2", "b", "x", 1, 1),
               _record("personalized@2", "b", "x", None, 1, "abstain")]
    (shot,) = paired_personalized_vs_aggregate(records, dimensions=["d"])
    p = shot.comparison
    # units both scored: a|x (AE 2 -> 0: closer), a|y (0 -> 1: further); b|x left out
    assert (shot.k, p.n, p.improvements, p.regressions) == (2, 2, 1, 1)
    assert p.difference == pytest.approx(0.5) and math.isclose(p.p_value, 1.0)


def test_answer_format_is_in_the_config_only_when_not_json():
    from jurybox.personalize import PersonalizeConfig

    # run directories written before the option resume: their config has no answer_format
    plain = PersonalizeConfig(ratings="r.csv", items="i.csv", rubric="pbig", model="sim")
    assert "answer_format" not in plain.as_dict()
    marker = PersonalizeConfig(ratings="r.csv", items="i.csv", rubric="pbig", model="sim",
                               answer_format="result-marker")
    assert marker.as_dict()["answer_format"] == "result-marker"
