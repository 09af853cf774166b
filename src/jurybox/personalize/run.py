"""``personalize``: judge (rater, item) units with zero-shot, aggregate and personalized rubric
judges through the run engine, and evaluate alignment with each rater."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, get_args

from ..datasets import file_sha256, load_rated_items, load_ratings, resolve_bundled
from ..datasets import BUNDLED_ITEMS, BUNDLED_RATINGS, BUNDLED_RUBRICS, RatingsTable
from ..limits import sampling_problem
from ..errors import ConfigError, DataError
from ..fields import check_arguments, check_fields
from ..protocols import RubricAnswerFormat, RubricContext, Unit, build_protocol
from ..rubrics import Rubric, load_rubric
from ..stats.krippendorff import Level
from ..compare.config import DEFAULT_MODEL
from ..providers import redact_url
from ..providers.spec import require_model
from ..rundir import previous_sessions
from ..run import (Engine, RunHooks, RunInfo, RunJob, RunOptions, RunReport, check_endpoint,
                   open_endpoint)
from ..run.loops import entered_off_loop
from ..sim import RubricKnowledge, SimConfig, SimJudge
from .evaluate import (AlignmentRow, ReasoningSimilarity, ShotComparison, alignment,
                       paired_personalized_vs_aggregate, reasoning_similarity)
from .plan import check_names, conditions, select_units

#: Krippendorff's alpha's levels of measurement (``level``).
ALPHA_LEVELS: tuple[str, ...] = get_args(Level)

__all__ = ["PreparedPersonalize", "prepare_personalize", "PersonalizeConfig",
           "PersonalizeResult", "PersonalizeSummary", "arun_personalize", "check_scales",
           "run_personalize"]


@dataclass(frozen=True)
class PersonalizeConfig:
    """Everything that defines a personalize run (stored in run.json; resume needs the same).

    Attributes:
        ratings, items, rubric: files, or bundled names (``squality``; rubrics ``pbig``,
            ``squality``, ``offensiveness``).
        judges: judge kinds: ``zero-shot``, ``aggregate``, ``personalized``.
        shots: few-shot counts k.
        seeds: predictions per (unit, dimension); threshold: confidence filter, 0-100.
        raters: rater ids, or how many to sample (seeded), or None for all.
        limit: items per rater (None: all they rated).
        dimensions: rubric dimensions to judge (None: those in both rubric and ratings).
        model: the judge (``provider/model``, ``local``, ``sim``); default ``sim`` for
            bundled ratings only (a user's ratings without a model is a ConfigError).
        seed: the run seed (unit sample, example draws, decoding seeds, bootstrap).
        answer_format: how the judge answers: ``"json"`` or ``"result-marker"`` (feedback,
            then ``[RESULT] <score>``, for Prometheus-style judges; see
            :class:`~jurybox.protocols.RubricJudge`).
    """

    ratings: str
    items: str
    rubric: str
    model: str = DEFAULT_MODEL
    judges: tuple[str, ...] = ("zero-shot", "aggregate", "personalized")
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
    answer_format: RubricAnswerFormat = "json"

    def __post_init__(self) -> None:
        if self.model == DEFAULT_MODEL:  # not given: the simulated judge on bundled data only
            if self.ratings not in BUNDLED_RATINGS:
                require_model(None, str(self.ratings), how='model= (e.g. model="sim")')
            object.__setattr__(self, "model", "sim")
        check_fields(self)  # ConfigError naming a field of the wrong kind (seeds=2.5, ...)

    def as_dict(self) -> dict[str, Any]:
        """As stored in run.json's ``config``. ``answer_format`` appears only when it is not
        ``"json"``, so run directories written before the option existed still resume (and
        keep their default folder); the protocols' parameters in run.json always list it."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["base_url"] = redact_url(self.base_url)  # credentials are never recorded
        d["sim"] = self.sim.settings() if self.model == "sim" else None
        if self.answer_format == "json":
            del d["answer_format"]
        return d


@dataclass(frozen=True)
class PersonalizeSummary:
    """A personalize run's summary.json."""

    alignment: list[AlignmentRow]
    personalized_vs_aggregate: list[ShotComparison]
    reasoning_similarity: list[ReasoningSimilarity]
    shortfall_units: int
    simulated: bool = False
    model: str = ""
    totals: dict[str, Any] = field(default_factory=dict)
    n_units: int = 0
    conditions: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["personalized_vs_aggregate"] = [p.to_json() for p in self.personalized_vs_aggregate]
        return d


#: What a personalize run returns.
PersonalizeResult = RunReport[PersonalizeSummary]


def _dimensions(config: PersonalizeConfig, rubric: Rubric, rated: list[str]) -> tuple[str, ...]:
    dims = tuple(d for d in rubric.names if d in set(rated))
    if config.dimensions is not None:
        check_names(config.dimensions, "--dimensions", "dimension")
        unknown = [d for d in config.dimensions if d not in dims]
        if unknown:
            raise ConfigError(f"dimension(s) {', '.join(unknown)} are not in both the rubric "
                              f"and the ratings; available: {', '.join(dims) or 'none'}")
        dims = tuple(d for d in dims if d in config.dimensions)
    if not dims:
        raise ConfigError(f"the rubric's dimensions {rubric.names} do not occur in the ratings "
                          f"({rated})")
    return dims


def check_scales(table: RatingsTable, rubric: Rubric, dimensions: Iterable[str]) -> None:
    """Check that every rating on one of ``dimensions`` is an answer its rubric dimension
    allows: an integer level of the scale (min..max) or the exclusion code (which
    :func:`~jurybox.datasets.load_ratings` has already made NaN). A rating outside the scale
    would make MAE and exact agreement meaningless, so it is refused, not clipped.

    Raises:
        DataError: the first rating outside its dimension's scale (file, line, ``score``).
    """
    wanted = set(dimensions)
    for r in table.ratings:
        if r.dimension not in wanted or not isinstance(r.score, float) or math.isnan(r.score):
            continue
        dim = rubric.dimension(r.dimension)
        if not dim.valid_answer(r.score):
            code = f" or the exclusion code {dim.exclusion.code}" if dim.exclusion else ""
            raise DataError(table.path, f"score {r.score:g} by rater {r.rater_id!r} is not on "
                            f"the rubric's scale for {r.dimension!r}: an integer "
                            f"{dim.scale.min}-{dim.scale.max}{code}", line=r.line,
                            field="score")


@dataclass(frozen=True)
class PreparedPersonalize:
    """A checked personalize run: what it judges and with which judges (no call made)."""

    rubric: Rubric
    table: RatingsTable
    items: dict[str, Any]
    dimensions: tuple[str, ...]
    conditions: list[Any]
    units: list[Unit]
    judges: list[Any]


def prepare_personalize(config: PersonalizeConfig) -> PreparedPersonalize:
    """Load and check everything a personalize run needs before its first call.

    Raises:
        DataError, ConfigError: as :func:`run_personalize`.
    """
    if problem := sampling_problem(seed=config.seed, temperature=config.temperature,
                                   max_tokens=config.max_tokens):
        raise ConfigError(problem)
    check_endpoint(config.model, config.base_url)  # a dry run refuses what a run refuses
    if config.limit is not None and config.limit < 1:
        raise ConfigError(f"--limit must be >= 1, got {config.limit}")
    if config.level not in ALPHA_LEVELS:  # used only after judging: checked before it
        raise ConfigError(f"level must be one of {', '.join(ALPHA_LEVELS)}, got "
                          f"{config.level!r}")
    rubric = load_rubric(config.rubric)
    table = load_ratings(config.ratings, dimensions=None, exclusion_codes={
        d.name: [d.exclusion.code] for d in rubric.dimensions if d.exclusion})
    items = load_rated_items(config.items, text_field=config.text_field,
                             group_field=config.group_field)
    dims = _dimensions(config, rubric, list(table.dimensions))
    check_scales(table, rubric, dims)
    conds = conditions(config.judges, config.shots)
    units = select_units(table, raters=config.raters, limit=config.limit, items=list(items),
                         seed=config.seed)
    context = RubricContext(
        rubric=rubric, ratings=[r for r in table.ratings if r.item_id in items], items=items,
        labels={(r.rater_id, r.item_id, r.dimension): r.score
                for r in table.ratings if isinstance(r.score, float)},
        domains={r.item_id: r.domain for r in table.ratings})
    judges = [build_protocol("rubric", context=context, condition=c, dimensions=dims,
                             seeds=config.seeds, threshold=config.threshold, seed=config.seed,
                             temperature=config.temperature, max_tokens=config.max_tokens,
                             answer_format=config.answer_format) for c in conds]
    return PreparedPersonalize(rubric, table, items, dims, conds, units, judges)


def run_personalize(config: PersonalizeConfig, out: str | Path, *,
                    options: RunOptions | None = None,
                    hooks: RunHooks | None = None) -> PersonalizeResult:
    """Run (or resume) a personalize experiment and evaluate it.

    Blocks, inside a running event loop too (the engine then runs on a worker thread: see
    :meth:`~jurybox.run.Engine.run`); :func:`arun_personalize` is the awaitable form.

    Raises:
        DataError: bad ratings, items or rubric file; a rating off its dimension's scale
            (:func:`check_scales`).
        ConfigError: unknown, duplicate or no judge kind; unknown rater, dimension or answer
            format; nothing to judge; missing key; another process or another call in this
            one judges into ``out`` (RunDirBusyError).
    """
    check_arguments("run_personalize", config=(config, PersonalizeConfig),
                    out=(out, (str, Path)), options=(options, (RunOptions, type(None))))
    with _personalize_run(config, Path(out), options, hooks) as (engine, job):
        return engine.run(job)


async def arun_personalize(config: PersonalizeConfig, out: str | Path, *,
                           options: RunOptions | None = None,
                           hooks: RunHooks | None = None) -> PersonalizeResult:
    """:func:`run_personalize` on the running event loop: ``await arun_personalize(config,
    out)``.

    The judging (every model call, every hook) runs on the caller's loop without blocking
    it; loading the files, starting the endpoint and the evaluation and report run in the
    loop's default executor. Raises as :func:`run_personalize`, and asyncio.CancelledError
    when cancelled (run.json then says "interrupted"; a rerun resumes).
    """
    async with entered_off_loop(
            _checked(config, out, options, hooks)) as (engine, job):
        return await engine.arun(job)


def _checked(config: Any, out: Any, options: Any, hooks: Any) -> Any:
    check_arguments("arun_personalize", config=(config, PersonalizeConfig),
                    out=(out, (str, Path)), options=(options, (RunOptions, type(None))))
    return _personalize_run(config, Path(out), options, hooks)


@contextmanager
def _personalize_run(config: PersonalizeConfig, out: Path, options: RunOptions | None,
                     hooks: RunHooks | None
                     ) -> Iterator[tuple[Engine, RunJob[Unit, PersonalizeSummary]]]:
    """Check the experiment (:func:`prepare_personalize`) and open its endpoint."""
    options = options or RunOptions()
    prepared = prepare_personalize(config)
    rubric, table, items, dims = (prepared.rubric, prepared.table, prepared.items,
                                  prepared.dimensions)
    conds, units, judges = prepared.conditions, prepared.units, prepared.judges
    sha = {name: file_sha256(resolve_bundled(p, bundled)) for name, p, bundled in
           (("ratings", config.ratings, BUNDLED_RATINGS), ("items", config.items, BUNDLED_ITEMS),
            ("rubric", config.rubric, BUNDLED_RUBRICS))}

    def summarize(records: Iterable[dict[str, Any]], info: RunInfo) -> PersonalizeSummary:
        names = {c.name for c in conds}
        kept = [r for r in records if r["protocol"] in names]
        return _evaluate(kept, config, dims, rubric, [c.name for c in conds], info)

    job: RunJob[Unit, PersonalizeSummary] = RunJob(
        out=out, model=config.model, config={**config.as_dict(), "sha256": sha},
        manifest={"kind": "personalize", "seed": config.seed},
        units=lambda: iter(units), n_units=len(units), unit_key=lambda u: u.key,
        protocols=judges, summarize=summarize)
    knowledge = RubricKnowledge(table, {i: it.text for i, it in items.items()})
    with open_endpoint(config.model, base_url=config.base_url, options=options,
                       sim=lambda: SimJudge((), config.sim, rubric=knowledge,
                                            fault_epoch=previous_sessions(out))) as provider:
        yield Engine(provider, options, hooks=hooks), job


def _evaluate(records: list[dict[str, Any]], config: PersonalizeConfig, dims: tuple[str, ...],
              rubric: Rubric, order: list[str], info: RunInfo) -> PersonalizeSummary:
    largest = max((c.k for c in conditions(config.judges, config.shots)), default=0)
    similarity = []
    if largest > 0:
        for judge in ("personalized", "aggregate"):
            if judge in config.judges:
                for dim in dims:
                    scale = rubric.dimension(dim).scale
                    similarity.append(reasoning_similarity(
                        records, condition=f"{judge}@{largest}", dimension=dim,
                        span=scale.max - scale.min, seed=config.seed))
    return PersonalizeSummary(
        alignment=alignment(records, dimensions=dims, level=config.level, seed=config.seed,
                            conditions=order),
        personalized_vs_aggregate=paired_personalized_vs_aggregate(
            records, dimensions=dims, seed=config.seed),
        reasoning_similarity=similarity,
        shortfall_units=sum(1 for r in records for d in r["dimensions"].values()
                            if d.get("shortfall")),
        simulated=info.simulated, model=config.model, totals=info.totals.as_dict(),
        n_units=info.n_units, conditions=order, dimensions=list(dims))
