"""Rubric judging as a protocol: per (rater, item) unit, the dimensions in gating order, S
seeds each, a confidence filter and a vote (arXiv 2604.22517).

Staged: a dimension is asked only when its prerequisites passed, judged from the judge's own
final scores of the earlier dimensions, so a gated dimension is never paid for.

Vote (DESIGN.md, "Rubric judges"): of the S predictions, those with confidence below the
threshold (default 80) are dropped; the survivors' most common score wins; a tie between
most common scores goes to the survivors' median (the lower middle value when the count is
even, so the result stays on the scale); none left: abstain.

Statuses per (unit, dimension): ``scored``; ``excluded`` (the exclusion code, e.g. "not a
B2B product": a valid answer, missing for statistics); ``abstain`` (every prediction below
the threshold); ``failed`` (no prediction parsed); ``gated`` (a prerequisite's score fails
its rule, or the prerequisite was gated: missing by design); ``blocked`` (a prerequisite
abstained or failed, so the rule could not be applied: counted against coverage).
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..datasets import RatedItem, Rating
from ..limits import MAX_SEEDS
from ..parsing import RubricJudgment
from ..rubrics import Dimension, Rubric
from .base import CallBudget, Calls, PlannedCall, Task, register
from .examples import JudgeKind, RatingIndex, select_examples
from .rubric_prompts import (MARKER_REASK, RUBRIC_ANSWER_FORMATS, RubricAnswerFormat, rubric_parser,
                             rubric_request)
from .schemas import rubric_schema

__all__ = ["Condition", "DimensionResult", "MAX_SEEDS", "RubricContext", "RubricDecision",
           "RubricJudge", "Unit", "Vote", "decoding_seed", "vote"]


Status = Literal["scored", "excluded", "abstain", "failed", "gated", "blocked"]


@dataclass(frozen=True)
class Vote:
    """The final score of S predictions.

    Attributes:
        score: the voted score, or None when every prediction was dropped (abstain).
        n_predictions: predictions that parsed; n_kept: those at or above the threshold.
        tie: the most common scores tied and the median decided.
    """

    score: int | None
    n_predictions: int
    n_kept: int
    tie: bool = False


def vote(predictions: Sequence[RubricJudgment], *, threshold: float = 80.0) -> Vote:
    """Confidence filter, then majority, a tie to the (lower) median, none left: abstain.

    >>> J = RubricJudgment
    >>> vote([J(3, 90, ""), J(3, 85, ""), J(1, 99, "")]).score
    3
    >>> vote([J(2, 90, ""), J(4, 90, ""), J(1, 50, "")])  # tie 2 vs 4 -> median of [2, 4]
    Vote(score=2, n_predictions=3, n_kept=2, tie=True)
    >>> vote([J(2, 10, "")]).score is None  # all below the threshold: abstain
    True
    """
    kept = [p.score for p in predictions if p.confidence >= threshold]
    if not kept:
        return Vote(None, len(predictions), 0)
    counts = Counter(kept).most_common()
    top = [score for score, c in counts if c == counts[0][1]]
    if len(top) == 1:
        return Vote(top[0], len(predictions), len(kept))
    return Vote(int(statistics.median_low(kept)), len(predictions), len(kept), tie=True)


def decoding_seed(seed: int, sample: int) -> int:
    """The decoding seed of sample ``sample`` under run seed ``seed`` (a hash, so run seeds
    do not share samples' seeds: seed 1 sample 0 differs from seed 0 sample 1)."""
    digest = hashlib.sha256(f"{seed}\x1f{sample}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


@dataclass(frozen=True)
class Unit:
    """What a rubric judge judges: a target rater and an item they rated."""

    rater_id: str
    item_id: str

    @property
    def key(self) -> str:
        """The unit's key in items.jsonl: ``rater|item``."""
        return f"{self.rater_id}|{self.item_id}"


@dataclass(frozen=True)
class Condition:
    """A rubric judge: whose ratings its examples are (``judge``) and how many (``k``)."""

    judge: JudgeKind
    k: int

    @property
    def name(self) -> str:
        """The judge's name in items.jsonl and the tables: ``judge@k`` (``personalized@5``;
        zero-shot: ``zero-shot@0``)."""
        return f"{self.judge}@{self.k}"


@dataclass(frozen=True)
class RubricContext:
    """What every unit's judging reads, shared by the conditions of a run.

    Attributes:
        ratings: the ratings examples are drawn from.
        items: item id -> text (and group, for leave-one-out).
        labels: (rater, item, dimension) -> that rater's score (for evaluation).
        domains: item id -> domain (examples come from the same domain).
    """

    rubric: Rubric
    ratings: Sequence[Rating]
    items: Mapping[str, RatedItem]
    labels: Mapping[tuple[str, str, str], float]
    domains: Mapping[str, str | None]

    @property
    def groups(self) -> dict[str, str | None]:
        return {i: it.group for i, it in self.items.items()}


@dataclass(frozen=True)
class DimensionResult:
    """One dimension of one unit: status, voted score, the rater's label, the predictions
    ``[score, confidence]`` per parsed seed, a reasoning text of a kept agreeing prediction,
    the failures, the example shortfall, and why a gated or blocked dimension was not asked."""

    status: Status
    score: int | None
    label: float | None = None
    tie: bool = False
    predictions: tuple[tuple[int, float], ...] = ()
    reasoning: str | None = None
    failures: tuple[str, ...] = ()
    shortfall: int = 0
    gate: str | None = None


@dataclass(frozen=True)
class RubricDecision:
    """A rubric judge's decision on one unit (one line of items.jsonl)."""

    unit: str
    protocol: str
    rater_id: str
    item_id: str
    judge: str
    k: int
    domain: str | None
    dimensions: dict[str, DimensionResult]
    failures: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> bool:
        """True when a dimension has no prediction because its calls failed."""
        return any(d.status == "failed" for d in self.dimensions.values())

    def to_record(self) -> dict[str, Any]:
        """The items.jsonl line (written once, by the run engine)."""
        return {**asdict(self), "failed": self.failed}


@register("rubric")
class RubricJudge:
    """A zero-shot, aggregate or personalized rubric judge (one condition).

    Args:
        context: ratings, items, labels and domains of the run.
        condition: judge kind and shots k.
        dimensions: the rubric dimensions to judge, in gating order.
        seeds: predictions per dimension (example sample and decoding seed), 1 to
            :data:`MAX_SEEDS`.
        threshold: confidence filter, 0-100.
        seed: run seed.
        temperature: sampling temperature.
        max_tokens: completion budget, tokens.
        answer_format: how the judge answers: ``"json"`` (score, confidence, reasoning; with
            a JSON schema for structured output) or ``"result-marker"`` (feedback, then
            ``[RESULT] <score>``, as Prometheus 2 answers; no schema, so the call is free text
            whatever ``--structured`` says). Result-marker answers state no confidence: they
            count as confidence 100, so the threshold keeps them all.

    Raises:
        ValueError: seeds outside 1 to MAX_SEEDS, threshold outside 0-100, an unknown
            dimension or answer format.
    """

    ARGS = ("context", "condition", "dimensions", "seeds", "threshold", "seed", "temperature",
            "max_tokens", "answer_format")
    task: Task = "rubric"

    def __init__(self, context: RubricContext, condition: Condition,
                 dimensions: Sequence[str] | None = None, seeds: int = 3,
                 threshold: float = 80.0, seed: int = 0, temperature: float = 0.0,
                 max_tokens: int = 512, answer_format: RubricAnswerFormat = "json") -> None:
        if answer_format not in RUBRIC_ANSWER_FORMATS:
            raise ValueError(f"answer_format must be one of "
                             f"{', '.join(RUBRIC_ANSWER_FORMATS)}, got {answer_format!r}")
        if seeds < 1:
            raise ValueError(f"seeds must be >= 1, got {seeds}")
        if seeds > MAX_SEEDS:
            raise ValueError(f"seeds must be at most {MAX_SEEDS}, got {seeds:,}")
        if not 0 <= threshold <= 100:
            raise ValueError(f"threshold must be 0-100, got {threshold}")
        names = context.rubric.names
        self.dimensions = tuple(d for d in names if dimensions is None or d in dimensions)
        unknown = [d for d in dimensions or () if d not in names]
        if unknown:
            raise ValueError(f"dimension(s) {', '.join(unknown)} are not in the rubric "
                             f"({', '.join(names)})")
        self.context, self.condition, self.seeds = context, condition, seeds
        self.threshold, self.seed = threshold, seed
        self.temperature, self.max_tokens = temperature, max_tokens
        self.answer_format: RubricAnswerFormat = answer_format
        self.name = condition.name
        self._groups = context.groups
        self._ratings = (context.ratings if isinstance(context.ratings, RatingIndex)
                         else RatingIndex(context.ratings))  # indexed once, read per unit

    def params(self) -> dict[str, Any]:
        return {"judge": self.condition.judge, "k": self.condition.k,
                "rubric": self.context.rubric.name, "dimensions": list(self.dimensions),
                "seeds": self.seeds, "threshold": self.threshold, "seed": self.seed,
                "temperature": self.temperature, "max_tokens": self.max_tokens,
                "answer_format": self.answer_format}

    def answer_schema(self, item: Unit) -> dict[str, Any]:
        """The first dimension's JSON schema; ``{}`` for result-marker answers (free text)."""
        return self._schema(self.context.rubric.dimension(self.dimensions[0])) or {}

    def _schema(self, dim: Dimension) -> dict[str, Any] | None:
        # a result-marker answer is prose: no JSON schema applies, structured output is off
        return _schema(dim) if self.answer_format == "json" else None

    def plan_dimension(self, unit: Unit, name: str) -> tuple[list[PlannedCall], int]:
        """The S calls that ask ``name`` for ``unit``, and the largest example shortfall."""
        ctx, cond = self.context, self.condition
        dim = ctx.rubric.dimension(name)
        calls, shortfall = [], 0
        for s in range(self.seeds):
            selection = select_examples(cond.judge, cond.k, ratings=self._ratings,
                                        target_rater=unit.rater_id, item_id=unit.item_id,
                                        dimension=name, groups=self._groups,
                                        domain=ctx.domains.get(unit.item_id), seed=self.seed,
                                        sample=s)
            shortfall = max(shortfall, selection.shortfall)
            shown = [(ex, ctx.items[ex.item_id].text) for ex in selection.examples
                     if ex.item_id in ctx.items]
            request = rubric_request(dim, ctx.items[unit.item_id].text, shown,
                                     # no rater in the tag: a zero-shot prompt is the same
                                     # for every rater, so it is asked (and paid for) once
                                     tag_parts=(self.seed, unit.item_id, name, s),
                                     seed=decoding_seed(self.seed, s), judge=cond.judge,
                                     answer_format=self.answer_format,
                                     temperature=self.temperature, max_tokens=self.max_tokens)
            calls.append(PlannedCall(
                f"{name}/s{s}", (), (), request, rubric_parser(dim, self.answer_format),
                schema=self._schema(dim),
                reask=MARKER_REASK if self.answer_format == "result-marker" else None,
                meta={"rater_id": unit.rater_id, "item_id": unit.item_id, "dimension": name,
                      "condition": cond.name, "sample": s,
                      # which ratings were shown, so a run can be audited
                      "examples": [[ex.item_id, ex.rater_id, ex.score] for ex, _ in shown],
                      "shortfall": selection.shortfall}))
        return calls, shortfall

    async def _ask(self, unit: Unit, name: str, calls: Calls) -> DimensionResult:
        dim = self.context.rubric.dimension(name)
        planned, shortfall = self.plan_dimension(unit, name)
        outcomes = await calls.gather(planned)
        predictions: list[RubricJudgment] = [o.value for o in outcomes if o.value is not None]
        result = vote(predictions, threshold=self.threshold)
        status: Status = ("scored" if result.score is not None else
                          "failed" if not predictions else "abstain")
        if status == "scored" and dim.exclusion is not None and \
                result.score == dim.exclusion.code:
            status = "excluded"
        reasons = [p.reasoning for p in predictions
                   if p.score == result.score and p.confidence >= self.threshold]
        return DimensionResult(
            status, result.score, tie=result.tie,
            predictions=tuple((p.score, p.confidence) for p in predictions),
            reasoning=reasons[0] if reasons else None,
            failures=tuple(o.failure.kind for o in outcomes if o.failure is not None),
            shortfall=shortfall)

    def budget(self, item: Unit) -> CallBudget:
        """Every dimension's calls at most (no gate closes); at least the first dimension's
        (every later one gated off)."""
        per_dim = [self.plan_dimension(item, name)[0] for name in self.dimensions]
        return CallBudget([c for calls in per_dim for c in calls],
                          len(per_dim[0]) if per_dim else 0)

    async def judge(self, item: Unit, calls: Calls) -> RubricDecision:
        """Judge the dimensions in order; gating from the judge's own final scores."""
        rubric, unit = self.context.rubric, item
        finals: dict[str, float | None] = {}
        dims: dict[str, DimensionResult] = {}
        for name in self.dimensions:
            unanswered = [p for p in rubric.dimension(name).requires
                          if p in dims and dims[p].status in ("abstain", "failed", "blocked")]
            if unanswered:  # not the rule: the judge gave no usable prerequisite score
                result = DimensionResult("blocked", None,
                                         gate=f"no usable score for {', '.join(unanswered)}")
            elif (gated := rubric.gate(name, finals)) is not None:
                result = DimensionResult("gated", None, gate=gated)
            else:
                result = await self._ask(unit, name, calls)
            label = self.context.labels.get((unit.rater_id, unit.item_id, name))
            dims[name] = DimensionResult(**{**asdict(result), "label": (
                None if label is None or math.isnan(label) else label)})
            finals[name] = result.score
        return RubricDecision(
            unit=unit.key, protocol=self.name, rater_id=unit.rater_id, item_id=unit.item_id,
            judge=self.condition.judge, k=self.condition.k,
            domain=self.context.domains.get(unit.item_id), dimensions=dims,
            failures=tuple(f for d in dims.values() for f in d.failures))


def _schema(dim: Dimension) -> dict[str, Any]:
    exclusion = dim.exclusion.code if dim.exclusion is not None else None
    return rubric_schema(int(dim.scale.min), int(dim.scale.max),
                         None if exclusion is None else int(exclusion))
