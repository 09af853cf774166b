"""``personalize``: judge (rater, item) units with zero-shot, aggregate and personalized rubric
judges, write a run directory, and evaluate alignment with each rater."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..cache import ResponseCache
from ..datasets import file_sha256, load_rated_items, load_ratings
from ..errors import ConfigError
from ..providers import parse_spec
from ..reports import RunDir, read_jsonl
from ..rubrics import load_rubric
from ..bench.run import call_logger, open_endpoint
from ..bench.engine import run_pool
from ..runner import CallRecord, RetryPolicy, Runner
from ..sim import RubricKnowledge, SimConfig, SimJudge
from .evaluate import alignment, paired_personalized_vs_aggregate, reasoning_similarity
from .judge import JudgeContext, judge_unit
from .plan import conditions, select_units

__all__ = ["PersonalizeConfig", "PersonalizeResult", "run_personalize"]


@dataclass(frozen=True)
class PersonalizeConfig:
    """Everything that defines a personalize run (stored in run.json; resume needs the same).

    Attributes:
        raters: rater ids, or how many to sample (seeded), or None for all.
        limit: items per rater (None: all they rated).
        dimensions: rubric dimensions to judge (None: those in both rubric and ratings).
    """

    ratings: str
    items: str
    rubric: str
    model: str = "sim"
    configs: tuple[str, ...] = ("zero-shot", "aggregate", "personalized")
    shots: tuple[int, ...] = (0, 1, 2, 5, 10)
    seeds: int = 3
    threshold: float = 80.0
    raters: tuple[str, ...] | int | None = None
    limit: int | None = None
    dimensions: tuple[str, ...] | None = None
    level: str = "ordinal"
    seed: int = 0
    group_field: str | None = None
    text_field: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    base_url: str | None = None
    sim: SimConfig = field(default_factory=lambda: SimConfig(bias="none"))

    def as_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["sim"] = self.sim.settings() if self.model == "sim" else None
        return d


@dataclass
class PersonalizeResult:
    """Alignment rows, paired comparisons, reasoning similarity, totals, where it is."""

    summary: dict[str, Any]
    out: Path
    totals: dict[str, Any]
    judged_now: int
    simulated: bool


def run_personalize(config: PersonalizeConfig, out: str | Path, *,
                    cache_path: str | Path | None, concurrency: int = 16,
                    retry: RetryPolicy | None = None,
                    on_call: Callable[[CallRecord], None] | None = None,
                    on_item: Callable[[Any], None] | None = None,
                    on_start: Callable[[int, int], None] | None = None) -> PersonalizeResult:
    """Run (or resume) a personalize experiment and evaluate it.

    Raises:
        DataError: bad ratings, items or rubric file.
        ConfigError: unknown rater, config or dimension; nothing to judge; missing API key.
    """
    rubric = load_rubric(config.rubric)
    table = load_ratings(config.ratings, dimensions=None, exclusion_codes={
        d.name: [d.exclusion.code] for d in rubric.dimensions if d.exclusion})
    items = load_rated_items(config.items, text_field=config.text_field,
                             group_field=config.group_field)
    dims = tuple(d for d in rubric.names if d in set(table.dimensions))
    if config.dimensions:
        unknown = [d for d in config.dimensions if d not in dims]
        if unknown:
            raise ConfigError(f"dimension(s) {unknown} are not in both the rubric and the "
                              f"ratings; available: {list(dims)}")
        dims = tuple(d for d in dims if d in config.dimensions)
    if not dims:
        raise ConfigError(f"the rubric's dimensions {rubric.names} do not occur in the ratings "
                          f"({table.dimensions})")
    conds = conditions(config.configs, config.shots)
    units = select_units(table, raters=config.raters, limit=config.limit, items=list(items),
                         seed=config.seed)
    ctx = JudgeContext(
        rubric=rubric, dimensions=dims, ratings=[r for r in table.ratings if r.item_id in items],
        items=items, labels={(r.rater_id, r.item_id, r.dimension): r.score
                             for r in table.ratings if isinstance(r.score, float)},
        domains={r.item_id: r.domain for r in table.ratings}, seeds=config.seeds,
        threshold=config.threshold, seed=config.seed, temperature=config.temperature,
        max_tokens=config.max_tokens)
    knowledge = RubricKnowledge(table, {i: it.text for i, it in items.items()})
    sha = {name: file_sha256(Path(p)) for name, p in
           (("ratings", config.ratings), ("items", config.items), ("rubric", config.rubric))}
    with open_endpoint(config.model, base_url=config.base_url,
                       judge=lambda: SimJudge((), config.sim, rubric=knowledge)) as provider:
        rundir, judged, totals = asyncio.run(_judge_all(
            config, ctx, provider, conds, units, out, sha, cache_path, concurrency, retry,
            on_call, on_item, on_start))
    records = [r for r in read_jsonl(rundir.items_path)
               if r["protocol"] in {c.name for c in conds}]
    summary = _evaluate(records, config, dims, rubric, [c.name for c in conds])
    summary.update(simulated=provider.simulated, model=config.model, totals=totals,
                   n_units=len(units), conditions=[c.name for c in conds],
                   dimensions=list(dims))
    rundir.write_summary(summary)
    return PersonalizeResult(summary, rundir.path, totals, judged, provider.simulated)


async def _judge_all(config, ctx, provider, conds, units, out, sha, cache_path, concurrency,
                     retry, on_call, on_item, on_start):
    try:
        if parse_spec(config.model).provider != "sim":
            await provider.check()
        rundir = RunDir(out, {**config.as_dict(), "sha256": sha})
        cache = ResponseCache(cache_path) if cache_path else None
        manifest = {"jurybox_version": __version__, "command": sys.argv, "kind": "personalize",
                    "model": {"spec": config.model, "simulated": provider.simulated,
                              "endpoint": provider.cache_identity()}, "seed": config.seed}
        runner = Runner(provider, cache=cache, concurrency=concurrency, retry=retry,
                        on_call=call_logger(rundir, on_call))
        todo = [(u, c) for u in units for c in conds
                if (f"{u.rater_id}|{u.item_id}", c.name) not in rundir.done]
        if on_start is not None:
            on_start(len(units) * len(conds), len(units) * len(conds) - len(todo))

        async def judge(job) -> None:
            unit, cond = job
            rundir.append_item(await judge_unit(ctx, runner, unit, cond))
            if on_item is not None:
                on_item(unit)

        try:
            with rundir.session(manifest, runner.totals.as_dict):
                await run_pool(todo, judge, workers=max(1, concurrency // 2))
        finally:
            rundir.close()
            if cache is not None:
                cache.close()
        return rundir, len(todo), runner.totals.as_dict()
    finally:
        await provider.aclose()


def _evaluate(records: list[dict], config: PersonalizeConfig, dims, rubric,
              order: list[str]) -> dict[str, Any]:
    largest = max((c.k for c in conditions(config.configs, config.shots)), default=0)
    similarity = []
    if largest > 0:
        for cfg in ("personalized", "aggregate"):
            if cfg in config.configs:
                for dim in dims:
                    scale = rubric.dimension(dim).scale
                    similarity.append(reasoning_similarity(
                        records, condition=f"{cfg}@{largest}", dimension=dim,
                        span=scale.max - scale.min, seed=config.seed))
    rows = alignment(records, dimensions=dims, level=config.level, seed=config.seed,
                     conditions=order)
    return {"alignment": rows,
            "personalized_vs_aggregate": paired_personalized_vs_aggregate(
                records, dimensions=dims, seed=config.seed),
            "reasoning_similarity": similarity,
            "shortfall_units": sum(1 for r in records for d in r["dimensions"].values()
                                   if d.get("shortfall"))}
