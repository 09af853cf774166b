"""Judge one (rater, item) unit under one condition: dimensions in gating order, S seeds each,
confidence filter and vote (protocols.rubric), gating from the judge's own final scores."""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..datasets import RatedItem, Rating
from ..protocols import rubric_parser, rubric_request, select_examples, vote
from ..rubrics import Rubric
from ..runner import Job, Runner
from .plan import Condition, Unit

__all__ = ["JudgeContext", "judge_unit", "decoding_seed"]


def decoding_seed(seed: int, sample: int) -> int:
    """The decoding seed of sample ``sample`` under run seed ``seed`` (a hash, so run seeds
    do not share samples' seeds: seed 1 sample 0 differs from seed 0 sample 1)."""
    digest = hashlib.sha256(f"{seed}\x1f{sample}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


@dataclass(frozen=True)
class JudgeContext:
    """Everything a unit's judging reads (shared across units)."""

    rubric: Rubric
    dimensions: tuple[str, ...]
    ratings: Sequence[Rating]
    items: Mapping[str, RatedItem]
    labels: Mapping[tuple[str, str, str], float]  # (rater, item, dimension) -> label
    domains: Mapping[str, str | None]
    seeds: int
    threshold: float
    seed: int
    temperature: float = 0.0
    max_tokens: int = 512


async def _dimension(ctx: JudgeContext, runner: Runner, unit: Unit, cond: Condition,
                     dim_name: str) -> dict[str, Any]:
    dim = ctx.rubric.dimension(dim_name)
    groups = {i: it.group for i, it in ctx.items.items()}
    jobs, shortfall = [], 0
    for s in range(ctx.seeds):
        selection = select_examples(cond.config, cond.k, ratings=ctx.ratings,  # type: ignore
                                    target_rater=unit.rater_id, item_id=unit.item_id,
                                    dimension=dim_name, groups=groups,
                                    domain=ctx.domains.get(unit.item_id), seed=ctx.seed, sample=s)
        shortfall = max(shortfall, selection.shortfall)
        shown = [(ex, ctx.items[ex.item_id].text) for ex in selection.examples
                 if ex.item_id in ctx.items]
        request = rubric_request(dim, ctx.items[unit.item_id].text, shown,
                                 # no rater in the tag: a zero-shot prompt is the same
                                 # for every rater, so it is asked (and paid for) once
                                 tag_parts=(ctx.seed, unit.item_id, dim_name, s),
                                 seed=decoding_seed(ctx.seed, s), config=cond.config,
                                 temperature=ctx.temperature,
                                 max_tokens=ctx.max_tokens)
        jobs.append(Job(request, rubric_parser(dim),
                        meta={"rater_id": unit.rater_id, "item_id": unit.item_id,
                              "dimension": dim_name, "condition": cond.name, "sample": s,
                              # which ratings were shown, so a run can be audited
                              "examples": [[ex.item_id, ex.rater_id, ex.score]
                                           for ex, _ in shown],
                              "shortfall": selection.shortfall}))
    outcomes = await asyncio.gather(*(runner.run(job) for job in jobs))
    predictions = [o.value for o in outcomes if o.ok]
    result = vote(predictions, threshold=ctx.threshold)
    failed = [o.failure.kind for o in outcomes if o.failure is not None]
    status = ("scored" if result.score is not None else
              "failed" if not predictions else "abstain")
    if status == "scored" and dim.exclusion is not None and result.score == dim.exclusion.code:
        status = "excluded"  # "not applicable": a valid answer, missing for statistics
    reasons = [p.reasoning for p in predictions
               if p.score == result.score and p.confidence >= ctx.threshold]
    return {"status": status, "score": result.score, "tie": result.tie,
            "predictions": [[p.score, p.confidence] for p in predictions],
            "reasoning": reasons[0] if reasons else None,  # of a kept, agreeing prediction
            "failures": failed, "shortfall": shortfall}


async def judge_unit(ctx: JudgeContext, runner: Runner, unit: Unit, cond: Condition
                     ) -> dict[str, Any]:
    """The unit's record for items.jsonl: per dimension its status, final score, the target
    rater's label, predictions and a reasoning text.

    Statuses: ``scored``; ``excluded`` (the exclusion code, e.g. "not a B2B product");
    ``abstain`` (every prediction below the confidence threshold); ``failed`` (no prediction
    parsed); ``gated`` (a prerequisite's score fails its rule, or the prerequisite was gated:
    missing by design); ``blocked`` (a prerequisite abstained or failed, so the rule could not
    be applied: counted against coverage, like a failure).
    """
    finals: dict[str, float | None] = {}
    dims: dict[str, Any] = {}
    for name in ctx.dimensions:
        prereqs = ctx.rubric.dimension(name).requires
        unanswered = [p for p in prereqs if dims.get(p, {}).get("status") in
                      ("abstain", "failed", "blocked")]
        if unanswered:  # not the rule: the judge gave no usable prerequisite score
            dims[name] = {"status": "blocked", "score": None,
                          "gate": f"no usable score for {', '.join(unanswered)}"}
        elif (gated := ctx.rubric.gate(name, finals)) is not None:
            dims[name] = {"status": "gated", "score": None, "gate": gated}
        else:
            dims[name] = await _dimension(ctx, runner, unit, cond, name)
        label = ctx.labels.get((unit.rater_id, unit.item_id, name))
        dims[name]["label"] = None if label is None or math.isnan(label) else label
        finals[name] = dims[name]["score"]
    return {"item_id": f"{unit.rater_id}|{unit.item_id}", "protocol": cond.name,
            "rater_id": unit.rater_id, "target_item": unit.item_id, "config": cond.config,
            "k": cond.k, "domain": ctx.domains.get(unit.item_id), "dimensions": dims,
            "failures": [f for d in dims.values() for f in d.get("failures", [])]}
