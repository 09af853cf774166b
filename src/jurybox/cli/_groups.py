"""The option groups of the judging commands (bench, judge, personalize and the next ones),
each option declared once: a command composes the groups it takes
(:func:`~jurybox.cli._compose.option_groups`) and builds the library's settings from them.

=================  ==========================================================================
group              options
=================  ==========================================================================
RunFlags           --seed, --cache, --no-cache, --concurrency, --attempts, --timeout,
                   --max-answer-chars
OutputOptions      --out
EndpointOptions    --base-url, --endpoints, --replicas, --transport, --structured
ProtocolOptions    --tolerance, --weights, --verdict-format, --pairwise-rule, --adaptive,
                   --confidence, --min-k
PromptOptions      --criteria, --template
SamplingOptions    --temperature, --max-tokens
SimOptions         --sim-bias, --sim-latency-ms, --sim-faults, --sim-seed
SimSeedOption      --sim-seed
CostOptions        --dry-run, --price-in, --price-out, --price-batch
BatchFlags         --batch, --batch-fallback, --batch-poll, --batch-max-tokens, --batch-files
ExecutorOptions    --executor, --ray-address, --ray-actors
=================  ==========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..batch.options import DEFAULT_POLL_S
from ..limits import DEFAULT_MAX_ANSWER_CHARS
from ..run.options import (DEFAULT_ATTEMPTS, DEFAULT_CONCURRENCY, DEFAULT_EXECUTOR,
                           DEFAULT_RAY_ACTORS, DEFAULT_STRUCTURED, DEFAULT_TIMEOUT_S,
                           DEFAULT_TRANSPORT)
from ._compose import OptionGroup
from ._options import (Attempts, BaseUrl, BatchFallbackOpt, BatchFilesOpt, BatchMaxTokensOpt,
                       BatchOpt, BatchPollOpt, Cache, Concurrency, DryRun, EndpointsOpt,
                       ExecutorOpt, JuryOpt, MaxAnswerChars, MaxTokens, Model, NoCache, Out,
                       PriceBatch, PriceIn, PriceOut, RayActorsOpt, RayAddressOpt, ReplicasOpt,
                       Seed, SimBias, SimFaults, SimLatency, SimSeed, Structured, Temperature,
                       Timeout, TransportOpt, batch_options, run_options)
from ._protocol_options import (AdaptiveOpt, ConfidenceOpt, CriteriaOpt, LogprobsOpt, MinK,
                                PairwiseRuleOpt, TemplateOpt, Tolerance, VerdictFormatOpt,
                                WeightsOpt)
from ._values import parse_weights, sim_options

if TYPE_CHECKING:
    from pathlib import Path

    from ..batch.options import BatchOptions
    from ..jury import Jury
    from ..cost.prices import Price
    from ..providers.endpoints import Replica
    from ..run import RunOptions
    from ..sim import SimConfig
    from ._selective import SelectiveOptions

__all__ = ["BatchFlags", "CostOptions", "EndpointOptions", "ExecutorOptions", "JudgeChoice",
           "OutputOptions",
           "PromptOptions", "ProtocolOptions", "RunFlags", "RunGroups", "SamplingOptions",
           "SimOptions", "SimSeedOption", "finish_run", "judging_run_options",
           "protocol_settings", "resolved_run"]

#: A judging command's configuration (BenchConfig, JudgeConfig, PersonalizeConfig).
C = TypeVar("C")
#: What a command's ``prepare`` makes of its configuration (a prepared run).
P = TypeVar("P")
#: What a command's run gives (BenchResult, JudgeResult, PersonalizeResult).
R = TypeVar("R")


@dataclass(frozen=True)
class RunFlags(OptionGroup):
    """The run's seed, its response cache and how each call is made."""

    seed: Seed = 0
    cache: Cache = None
    no_cache: NoCache = False
    concurrency: Concurrency = DEFAULT_CONCURRENCY
    attempts: Attempts = DEFAULT_ATTEMPTS
    timeout: Timeout = DEFAULT_TIMEOUT_S
    max_answer_chars: MaxAnswerChars = DEFAULT_MAX_ANSWER_CHARS


@dataclass(frozen=True)
class JudgeChoice(OptionGroup):
    """Who judges: one model (``--model``) or a jury (``--jury FILE``, or ``--model a,b,c``)."""

    model: Model = None
    jury: JuryOpt = None

    def panel(self) -> Jury | None:
        """The jury, or None for one judge (:func:`._jury.jury_for`).

        Raises:
            ConfigError, DataError: both given, or a bad jury.
        """
        from ._jury import jury_for

        return jury_for(self.jury, self.model)

    def config_model(self, panel: Jury | None) -> str:
        """The model a run's configuration names: ``--model``, or ``sim`` when none is given
        or a jury judges (each juror names its own)."""
        return "sim" if self.model is None or panel is not None else self.model


@dataclass(frozen=True)
class OutputOptions(OptionGroup):
    """Where the run directory goes (None: the command's default folder)."""

    out: Out = None


@dataclass(frozen=True)
class EndpointOptions(OptionGroup):
    """The judge's endpoint (one URL or a pool of replicas) and how it is spoken to."""

    base_url: BaseUrl = None
    endpoints: EndpointsOpt = None
    replicas: ReplicasOpt = 1
    transport: TransportOpt = DEFAULT_TRANSPORT
    structured: Structured = DEFAULT_STRUCTURED

    def split(self) -> tuple[str | None, tuple[Replica, ...]]:
        """One base URL (None: the provider's default) or an endpoint pool (the other empty).

        Raises:
            ConfigError: as :func:`~jurybox.run.endpoint.split_endpoints`.
        """
        from ..run.endpoint import split_endpoints

        return split_endpoints(self.base_url, self.endpoints)


@dataclass(frozen=True)
class ProtocolOptions(OptionGroup):
    """The listwise and pairwise protocols' settings."""

    tolerance: Tolerance = 0.5
    weights: WeightsOpt = "0.5,0.25,0.2,0.05"
    verdict_format: VerdictFormatOpt = None
    pairwise_rule: PairwiseRuleOpt = None
    adaptive: AdaptiveOpt = None
    confidence: ConfidenceOpt = None
    min_k: MinK = None
    logprobs: LogprobsOpt = None


@dataclass(frozen=True)
class PromptOptions(OptionGroup):
    """What the judge is asked: its criteria and prompt template."""

    criteria: CriteriaOpt = None
    template: TemplateOpt = None


@dataclass(frozen=True)
class SamplingOptions(OptionGroup):
    """The judge's sampling temperature and completion budget (tokens)."""

    temperature: Temperature = 0.0
    max_tokens: MaxTokens = None


@dataclass(frozen=True)
class SimOptions(OptionGroup):
    """The simulated judge's position bias, latency (ms), faults and seed."""

    sim_bias: SimBias = "primacy"
    sim_latency_ms: SimLatency = 0.0
    sim_faults: SimFaults = ""
    sim_seed: SimSeed = 0

    def config(self) -> SimConfig:
        """The simulated judge's settings (ConfigError naming the option on a bad value)."""
        return sim_options(self.sim_bias, self.sim_latency_ms, self.sim_faults, self.sim_seed)


@dataclass(frozen=True)
class SimSeedOption(OptionGroup):
    """The simulated judge's seed alone (a command whose simulated judge has no bias)."""

    sim_seed: SimSeed = 0


@dataclass(frozen=True)
class CostOptions(OptionGroup):
    """The dry run (the calls and their price, no call made) and the prices (USD per million
    tokens; the batch price a share of the online one)."""

    dry_run: DryRun = False
    price_in: PriceIn = None
    price_out: PriceOut = None
    price_batch: PriceBatch = None

    def price(self, model: str) -> Price | None:
        """The judge's price (ConfigError as :func:`~jurybox.cost.resolve_price`)."""
        from ..cost import resolve_price

        return resolve_price(model, self.price_in, self.price_out, self.price_batch)

    def jury_price(self) -> Price | None:
        """The price for every judge of a jury that gives none
        (:func:`~jurybox.cli._jury.command_price`)."""
        from ._jury import command_price

        return command_price(self.price_in, self.price_out, self.price_batch)


@dataclass(frozen=True)
class BatchFlags(OptionGroup):
    """Judging through provider batches (or batch files) instead of online."""

    batch: BatchOpt = False
    batch_fallback: BatchFallbackOpt = "batch"
    batch_poll: BatchPollOpt = DEFAULT_POLL_S
    batch_max_tokens: BatchMaxTokensOpt = None
    batch_files: BatchFilesOpt = False

    def options(self) -> BatchOptions | None:
        """The batch settings (None: online); ConfigError as :func:`._options.batch_options`."""
        return batch_options(self.batch, self.batch_fallback, self.batch_poll,
                             self.batch_max_tokens, self.batch_files)


@dataclass(frozen=True)
class ExecutorOptions(OptionGroup):
    """Where the judge's calls are made: this process or Ray actors."""

    executor: ExecutorOpt = DEFAULT_EXECUTOR
    ray_address: RayAddressOpt = None
    ray_actors: RayActorsOpt = DEFAULT_RAY_ACTORS


def judging_run_options(run: RunFlags, endpoint: EndpointOptions, executor: ExecutorOptions,
                        *, batch: BatchOptions | None, price: Price | None,
                        pool: tuple[Replica, ...] | None = None,
                        model: str | None = None) -> RunOptions:
    """The one typed :class:`~jurybox.run.RunOptions` of a judging command's groups, with its
    batch settings (:meth:`BatchFlags.options`) and price (:meth:`CostOptions.price`).

    ``pool`` None: a jury's run (each judge at its own endpoint: no pool, one replica);
    ``model``: the pool is checked against that judge.

    Raises:
        ConfigError: as :func:`._options.run_options`.
    """
    return run_options(concurrency=run.concurrency, attempts=run.attempts,
                       timeout=run.timeout, transport=endpoint.transport, cache=run.cache,
                       no_cache=run.no_cache, structured=endpoint.structured,
                       max_answer_chars=run.max_answer_chars, price=price,
                       batch=batch, endpoints=pool or (),
                       replicas=1 if pool is None else endpoint.replicas,
                       executor=executor.executor, ray_address=executor.ray_address,
                       ray_actors=executor.ray_actors, model=model)


def protocol_settings(protocol: ProtocolOptions, prompt: PromptOptions,
                      sampling: SamplingOptions, *, sim: SimConfig,
                      base_url: str | None) -> dict[str, Any]:
    """The protocol, prompt, sampling, endpoint and simulated-judge fields a bench or judge
    configuration shares (``BenchConfig(..., **protocol_settings(...))``).

    Raises:
        ConfigError: bad ``--weights``; a bad ``--template`` file (as
            :func:`~jurybox.protocols.templates.load_template`).
    """
    from ..protocols.templates import load_template

    weights = parse_weights(protocol.weights)
    template = (None if prompt.template is None else
                load_template(prompt.template, criteria=prompt.criteria))
    return dict(tolerance=protocol.tolerance, weights=weights,
                temperature=sampling.temperature, max_tokens=sampling.max_tokens,
                base_url=base_url, verdict_format=protocol.verdict_format,
                pairwise_rule=protocol.pairwise_rule, adaptive=protocol.adaptive,
                confidence=protocol.confidence, min_k=protocol.min_k,
                logprobs=protocol.logprobs, criteria=prompt.criteria, template=template, sim=sim)


@dataclass(frozen=True)
class RunGroups:
    """The groups a judging command's run is made with (not options themselves: a command
    takes the groups and bundles them, ``RunGroups(run, endpoint, execution, batching,
    cost)``): how each call is made, where, batched or not, at what price."""

    run: RunFlags
    endpoint: EndpointOptions
    executor: ExecutorOptions
    batching: BatchFlags
    cost: CostOptions

    def jury_options(self, pool: tuple[Replica, ...]) -> RunOptions:
        """The run options of a jury's run: each judge at its own endpoint, the command's
        price for every judge that gives none (:meth:`CostOptions.jury_price`).

        Args:
            pool: the endpoint pool the options gave (:meth:`EndpointOptions.split`).

        Raises:
            ConfigError: a pool with ``--jury`` (:func:`._options.no_pool_with_jury`); as
                :func:`judging_run_options`.
        """
        from ._options import no_pool_with_jury

        no_pool_with_jury(pool, self.endpoint.replicas)
        return judging_run_options(self.run, self.endpoint, self.executor,
                                   batch=self.batching.options(), price=self.cost.jury_price())

    def judged(self, config: C, *, model: str | None, data: str, bundled: bool,
               prepare: Callable[[C], Any], plan: Callable[[Any], tuple[Any, list[Any], str]],
               pool: tuple[Replica, ...], execute: Callable[..., R],
               out: Callable[[C], Path]) -> tuple[R, str] | None:
        """A judging command's run, judged: ``(the run's result, the judge)``, or None once
        a ``--dry-run``'s plan is printed (:func:`resolved_run`).

        Args:
            config: the command's configuration, its judge not yet chosen.
            model: ``--model`` (None: the simulated judge on bundled data).
            data: the data's name, for the error saying a model is needed.
            bundled: the data is bundled.
            prepare: every check a run makes before its first call (the prepared run).
            plan: the prepared run's units, protocols or judges and the words for them.
            pool: the endpoint pool (:meth:`EndpointOptions.split`).
            execute: the library's run (``run_bench``, ...), called as ``execute(config,
                folder, options=..., hooks=...)`` under a progress line.
            out: the run directory of the configuration with its judge.

        Raises:
            ConfigError: as :func:`resolved_run`, and whatever ``execute`` raises.
        """
        from ._progress import with_progress

        resolved = resolved_run(config, model=model, data=data, bundled=bundled,
                                prepare=prepare, plan=plan, groups=self, pool=pool)
        if resolved is None:  # --dry-run: the plan is printed
            return None
        config, judge, _, options = resolved
        return with_progress(execute, config, out(config), options=options), judge


def resolved_run(config: C, *, model: str | None, data: str, bundled: bool,
                 prepare: Callable[[C], P], plan: Callable[[P], tuple[Any, list[Any], str]],
                 groups: RunGroups, pool: tuple[Replica, ...]
                 ) -> tuple[C, str, Price | None, RunOptions] | None:
    """A judging command's run once its configuration is built: ``(config with the judge,
    the judge, its price, the run options)``. The judge is ``--model``, or the simulated
    judge on bundled data (:func:`._options.model_for`, which checks ``config`` with
    ``prepare`` before saying a model is needed).

    With ``--dry-run``: None, once the run's plan is printed
    (:func:`._plan.print_dry_run`) from the prepared run (``prepare``: every check a run
    makes before its first call) through ``plan``, which gives its units, its protocols or
    judges, and the words saying what it judges.

    Raises:
        ConfigError: no ``--model`` for the user's own data; as :func:`judging_run_options`;
            on a dry run, as ``prepare``.
    """
    from dataclasses import replace

    from ._options import model_for
    from ._plan import print_dry_run

    judge = model_for(model, data, bundled=bundled, check=lambda: prepare(config))
    config = replace(config, model=judge)  # type: ignore[type-var]
    price = groups.cost.price(judge)
    options = judging_run_options(groups.run, groups.endpoint, groups.executor,
                                  batch=groups.batching.options(), price=price, pool=pool,
                                  model=judge)
    if not groups.cost.dry_run:
        return config, judge, price, options
    units, protocols, what = plan(prepare(config))
    print_dry_run(units, protocols, model=judge, price=price, what=what, options=options)
    return None


def finish_run(result: Any, selective: SelectiveOptions | None = None, *,
               nothing_judged: bool | None = None) -> None:
    """A judging command's end once its results are printed (bench, judge, personalize): what
    it spent, its warnings, the selective table of ``--target-agreement`` (``selective``) and
    the exit status (:func:`._common.exit_for_status`, with ``nothing_judged``).

    Raises:
        typer.Exit: nothing judged (1) or a partial run (3).
    """
    from ._common import exit_for_status, print_warnings
    from ._plan import cost_line
    from ._selective import after_run

    cost_line(result)
    print_warnings(result)
    after_run(result.out, selective)
    exit_for_status(result, nothing_judged=nothing_judged)
