"""``jurybox bench``: judge a dataset with several protocols and compare them."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import ConfigError, did_you_mean
from ..batch.options import DEFAULT_POLL_S
from ..run.options import (DEFAULT_ATTEMPTS, DEFAULT_CONCURRENCY, DEFAULT_STRUCTURED,
                           DEFAULT_TIMEOUT_S, DEFAULT_TRANSPORT)
from ..run.options import DEFAULT_EXECUTOR, DEFAULT_RAY_ACTORS
from ._common import default_out, exit_for_status, fail_cleanly, print_warnings
from ._progress import BenchProgress
from ._jury import JuryOpt
from ._plan import cost_line, plan_for, print_plan
from ._protocol_options import (AdaptiveOpt, ConfidenceOpt, CriteriaOpt, K, MinK, PairwiseRuleOpt,
                               TemplateOpt, Tolerance, VerdictFormatOpt, WeightsOpt)
from ..limits import DEFAULT_MAX_ANSWER_CHARS
from ._options import MaxAnswerChars
from ._options import ExecutorOpt, RayActorsOpt, RayAddressOpt
from ._options import (BatchFallbackOpt, BatchFilesOpt, BatchMaxTokensOpt, BatchOpt, BatchPollOpt,
                       batch_options,
                       PANEL_DATA, PANEL_PROTOCOL, PANEL_START, Attempts, BaseUrl, Cache,
                       EndpointsOpt, ReplicasOpt, Concurrency,
                       DryRun, MaxTokens, Model, NoCache, Out, PriceIn, PriceBatch, PriceOut, Seed,
                       SimBias, SimFaults, SimLatency, SimSeed, Structured, Temperature,
                       Timeout, TransportOpt, model_for, no_pool_with_jury, run_options)

if TYPE_CHECKING:
    from pathlib import Path

    from ..compare import BenchConfig
    from ..jury import Jury
    from ..protocols import Weights
    from ..sim import Faults, SimConfig

#: Protocol names for --help (the registry itself is imported only when a command runs).
LISTWISE_PROTOCOLS = "direct,pcf"
PAIRWISE_PROTOCOLS = "apoc,both-orders,keyed,pairwise"


def parse_faults(text: str, option: str = "--sim-faults") -> Faults:
    """``rate_429=0.05,rate_malformed=0.02`` -> Faults (ConfigError on a bad entry)."""
    import pydantic

    from ..sim import Faults

    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in Faults.model_fields:
            raise ConfigError(f"{option} entry {part!r} must be NAME=VALUE with NAME in "
                              f"{', '.join(sorted(Faults.model_fields))}")
        if name in values:
            raise ConfigError(f"{option} sets {name} more than once ({text!r}); give each "
                              f"fault once")
        try:
            values[name] = float(value)
        except ValueError:
            raise ConfigError(f"{option} entry {part!r}: {value!r} is not a number") from None
    try:
        return Faults(**values)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" if e["loc"] else e["msg"]
                             for e in exc.errors())
        raise ConfigError(f"{option}: {problems}") from None


def check_bias(bias: str, option: str) -> str:
    """The bias preset, or ConfigError naming the option."""
    from ..sim import BIAS_PRESETS

    if bias not in BIAS_PRESETS:
        raise ConfigError(f"{option} must be one of {', '.join(sorted(BIAS_PRESETS))}, got "
                          f"{bias!r}")
    return bias


def sim_options(bias: str, latency_ms: float, faults: str, seed: int) -> SimConfig:
    """The simulated judge's settings from the ``--sim-*`` options (ConfigError naming the
    option on a bad bias or fault entry)."""
    from ..sim import SimConfig

    return SimConfig(bias=check_bias(bias, "--sim-bias"), latency_ms=latency_ms,
                     faults=parse_faults(faults), seed=seed)


def parse_weights(text: str) -> Weights:
    """``0.5,0.25,0.2,0.05`` -> Weights (mean, borda, vote, uncertainty)."""
    from ..protocols import Weights

    parts = text.split(",")
    try:
        if len(parts) != 4 or not all(p.strip() for p in parts):
            raise ValueError
        return Weights(*map(float, parts))
    except ValueError:
        raise ConfigError(f"--weights needs 4 finite numbers >= 0 with a positive sum "
                          f"(mean,borda,vote,uncertainty), got {text!r}") from None


@fail_cleanly
def bench(
    dataset: Annotated[str, typer.Argument(
        help="Bundled name (truthfulqa, rewardbench2-sample, judgebench, judgebench-gpt, "
             "judgebench-claude) or a file: TruthfulQA CSV, RewardBench 2 .jsonl/.parquet, "
             "JudgeBench .jsonl, or listwise .jsonl (id, prompt, candidates, gold).")],
    model: Model = None,
    jury: JuryOpt = None,
    protocols: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_PROTOCOLS", metavar="NAMES", rich_help_panel=PANEL_START,
        help="The protocols to compare, a comma list: for listwise datasets "
        f"{', '.join(LISTWISE_PROTOCOLS.split(','))} (default direct,pcf); for pairwise "
        f"(JudgeBench) {', '.join(PAIRWISE_PROTOCOLS.split(','))} (default "
        "pairwise,both-orders,apoc).")] = None,
    baseline: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_BASELINE", metavar="NAME", rich_help_panel=PANEL_PROTOCOL,
        help="Protocol every other one is compared with (paired "
        "sign test, bootstrap CI) (default: the first in --protocols).")] = None,
    k: K = 7,
    limit: Annotated[Optional[int], typer.Option(
        envvar="JURYBOX_LIMIT", min=1, metavar="N", rich_help_panel=PANEL_DATA,
        help="Judge a seeded sample of N items (per split for "
        "JudgeBench's gpt and claude splits) (default: all).")] = None,
    seed: Seed = 0,
    out: Out = None,
    cache: Cache = None,
    no_cache: NoCache = False,
    base_url: BaseUrl = None,
    endpoints: EndpointsOpt = None,
    replicas: ReplicasOpt = 1,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    attempts: Attempts = DEFAULT_ATTEMPTS,
    timeout: Timeout = DEFAULT_TIMEOUT_S,
    transport: TransportOpt = DEFAULT_TRANSPORT,
    structured: Structured = DEFAULT_STRUCTURED,
    max_answer_chars: MaxAnswerChars = DEFAULT_MAX_ANSWER_CHARS,
    subset: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_SUBSET", metavar="NAME", rich_help_panel=PANEL_DATA,
        help="RewardBench 2 subset ('all' for every row; default "
        "Factuality). Only for RewardBench 2 data.")] = None,
    n_candidates: Annotated[int, typer.Option(
        envvar="JURYBOX_N_CANDIDATES", min=2, max=26, metavar="N", rich_help_panel=PANEL_DATA,
        help="Candidates per TruthfulQA item.")] = 4,
    tolerance: Tolerance = 0.5,
    weights: WeightsOpt = "0.5,0.25,0.2,0.05",
    verdict_format: VerdictFormatOpt = None,
    pairwise_rule: PairwiseRuleOpt = None,
    adaptive: AdaptiveOpt = None,
    confidence: ConfidenceOpt = None,
    min_k: MinK = None,
    criteria: CriteriaOpt = None,
    template: TemplateOpt = None,
    temperature: Temperature = 0.0,
    max_tokens: MaxTokens = None,
    sim_bias: SimBias = "primacy",
    sim_latency_ms: SimLatency = 0.0,
    sim_faults: SimFaults = "",
    sim_seed: SimSeed = 0,
    dry_run: DryRun = False,
    price_in: PriceIn = None,
    price_out: PriceOut = None,
    price_batch: PriceBatch = None,
    batch: BatchOpt = False,
    batch_fallback: BatchFallbackOpt = "batch",
    batch_poll: BatchPollOpt = DEFAULT_POLL_S,
    batch_max_tokens: BatchMaxTokensOpt = None,
    batch_files: BatchFilesOpt = False,
    executor: ExecutorOpt = DEFAULT_EXECUTOR,
    ray_address: RayAddressOpt = None,
    ray_actors: RayActorsOpt = DEFAULT_RAY_ACTORS,
) -> None:
    """Judge a dataset with several protocols and compare them with paired statistics:
    listwise (best-of-N: direct vs permutation consensus) or pairwise (JudgeBench: one call,
    both orders, keyed judge, APOC)."""
    from ..compare import BenchConfig, prepare_bench, run_bench
    from ..cost import resolve_price
    from ..protocols import PROTOCOLS
    from ..protocols.templates import load_template
    from ._tables import print_bench_result

    from ..datasets import BUNDLED
    from ..datasets.registry import dataset_format

    from ..run.endpoint import split_endpoints

    url, pool = split_endpoints(base_url, endpoints)  # one URL, or a pool
    sim = sim_options(sim_bias, sim_latency_ms, sim_faults, sim_seed)
    names = (None if protocols is None else
             tuple(p.strip() for p in protocols.split(",") if p.strip()))
    if names == ():
        raise ConfigError(f"--protocols names no protocol; choose from "
                          f"{', '.join(sorted(PROTOCOLS))}")
    for name in names or ():
        if name not in PROTOCOLS:
            raise ConfigError(f"unknown protocol {name!r}{did_you_mean(name, PROTOCOLS)} "
                              f"(choose from {', '.join(sorted(PROTOCOLS))})")
    if subset is not None and dataset_format(dataset) not in (None, "rewardbench2"):
        raise ConfigError(f"--subset filters RewardBench 2 rows, and {dataset} is "
                          f"{dataset_format(dataset)} data: leave --subset (and "
                          f"JURYBOX_SUBSET) unset")
    subset = subset or "Factuality"
    from ._jury import jury_for

    panel = jury_for(jury, model)
    config = BenchConfig(
        dataset=dataset, model="sim" if model is None or panel else model, protocols=names,
        baseline=baseline, k=k, limit=limit,
        seed=seed, subset=None if subset == "all" else subset, n_candidates=n_candidates,
        tolerance=tolerance, weights=parse_weights(weights), temperature=temperature,
        max_tokens=max_tokens, base_url=url, verdict_format=verdict_format,
        pairwise_rule=pairwise_rule, adaptive=adaptive, confidence=confidence, min_k=min_k,
        criteria=criteria,
        template=None if template is None else load_template(template, criteria=criteria),
        sim=sim)
    if panel is not None:
        no_pool_with_jury(pool, replicas)
        _bench_jury(config, panel, out, dry_run=dry_run, price_in=price_in,
                    price_out=price_out, price_batch=price_batch, options=dict(
                        concurrency=concurrency, attempts=attempts, timeout=timeout,
                        transport=transport, cache=cache, no_cache=no_cache,
                        structured=structured, max_answer_chars=max_answer_chars,
                        batch=batch_options(
                            batch, batch_fallback, batch_poll, batch_max_tokens, batch_files),
                        executor=executor, ray_address=ray_address, ray_actors=ray_actors))
        return
    model = model_for(model, dataset, bundled=dataset in BUNDLED,
                      check=lambda: prepare_bench(config))
    config = replace(config, model=model)
    price = resolve_price(model, price_in, price_out, price_batch)
    options = run_options(concurrency=concurrency, attempts=attempts, timeout=timeout,
                          transport=transport, cache=cache, no_cache=no_cache,
                          structured=structured, max_answer_chars=max_answer_chars,
                          price=price,
                          batch=batch_options(batch, batch_fallback, batch_poll,
                                              batch_max_tokens, batch_files),
                          endpoints=pool, replicas=replicas, executor=executor,
                          ray_address=ray_address, ray_actors=ray_actors, model=model)
    if dry_run:
        bench = prepare_bench(config)  # every check a run makes before its first call
        print_plan(plan_for(bench.selection, bench.protocols, model=model, price=price),
                   model=model, what=f"{bench.dataset.name}, {bench.selection.n_items} items, "
                   f"protocols {', '.join(config.protocols or bench.config.protocols or ())}",
                   batch=options.batch is not None)
        return
    out = out or default_out("bench", config.as_dict())
    with BenchProgress() as progress:
        result = run_bench(config, out, options=options, hooks=progress.hooks())
    judge = f"SIMULATED ({model})" if result.simulated else result.judge
    print_bench_result(result, f"{result.summary.dataset}: {result.n_units} items, "
                               f"judge: {judge}")
    cost_line(result)
    print_warnings(result)
    exit_for_status(result)


def _bench_jury(config: BenchConfig, panel: Jury, out: Path | None, *, dry_run: bool,
                price_in: float | None, price_out: float | None, price_batch: float | None,
                options: dict[str, Any]) -> None:
    """``bench --jury``: every judge benches the protocols, then the jury decides."""
    from ..jury.run import default_jury_out
    from ._jury import command_price, dry_run_jury, run_jury_command

    run = run_options(**options, price=command_price(price_in, price_out, price_batch))
    folder = out or default_jury_out("bench", config.as_dict(), panel)
    if dry_run:
        from ..jury import plan_jury

        first = plan_jury(config, panel, folder, options=run)[0].prepared
        dry_run_jury(config, panel, folder, run, f"{first.dataset.name}, "
                     f"{first.selection.n_items} items, protocols "
                     f"{', '.join(first.config.protocols or ())}")
        return
    run_jury_command(config, panel, folder, run)
