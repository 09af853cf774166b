"""``jurybox bench``: judge a dataset with several protocols and compare them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import pydantic
import typer

from ..bench import BenchConfig, run_bench
from ..errors import ConfigError
from ..protocols import PROTOCOLS, Weights, protocol_names
from ..providers import PROVIDERS
from ..runner import RetryPolicy
from ..sim import BIAS_PRESETS, Faults, SimConfig
from ._common import (BenchProgress, default_cache, default_out, exit_if_nothing_judged,
                      fail_cleanly)
from ._tables import print_bench_result


def parse_faults(text: str, option: str = "--sim-faults") -> Faults:
    """``rate_429=0.05,rate_malformed=0.02`` -> Faults (ConfigError on a bad entry)."""
    values = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        if not sep or name not in Faults.model_fields:
            raise ConfigError(f"{option} entry {part!r} must be NAME=VALUE with NAME in "
                              f"{sorted(Faults.model_fields)}")
        try:
            values[name] = float(value)
        except ValueError:
            raise ConfigError(f"{option} entry {part!r}: {value!r} is not a number") from None
    try:
        return Faults(**values)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"{option}: {problems}") from None


def check_bias(bias: str, option: str) -> str:
    """The bias preset, or ConfigError naming the option."""
    if bias not in BIAS_PRESETS:
        raise ConfigError(f"{option} must be one of {sorted(BIAS_PRESETS)}, got {bias!r}")
    return bias


def parse_weights(text: str) -> Weights:
    """``0.5,0.25,0.2,0.05`` -> Weights (mean, borda, vote, uncertainty)."""
    parts = [p for p in text.split(",") if p.strip()]
    try:
        if len(parts) != 4:
            raise ValueError
        return Weights(*map(float, parts))
    except ValueError as exc:
        raise ConfigError(f"--weights needs 4 numbers >= 0 with a positive sum "
                          f"(mean,borda,vote,uncertainty), got {text!r} {exc or ''}") from None


@fail_cleanly
def bench(
    dataset: Annotated[str, typer.Argument(
        help="Bundled name (truthfulqa, rewardbench2-sample, judgebench, judgebench-gpt, "
             "judgebench-claude) or a file: TruthfulQA CSV, RewardBench 2 .jsonl/.parquet, "
             "JudgeBench .jsonl, or listwise .jsonl (id, prompt, candidates, gold).")],
    model: Annotated[str, typer.Option(
        envvar="JURYBOX_MODEL", help="provider/model, e.g. openai/gpt-4o-mini or vllm/<model>; "
        f"providers: {', '.join(p for p in PROVIDERS if p != 'sim')}; or sim (the simulated "
        "judge, started on 127.0.0.1).")] = "sim",
    protocols: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_PROTOCOLS", help="Comma list; listwise datasets: "
        f"{','.join(protocol_names('listwise'))} (default direct,pcf); pairwise (JudgeBench): "
        f"{','.join(protocol_names('pairwise'))} (default pairwise,both-orders,apoc).")] = None,
    baseline: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_BASELINE", help="Protocol every other one is compared with (paired "
        "sign test, bootstrap CI) (default: the first in --protocols).")] = None,
    k: Annotated[int, typer.Option(envvar="JURYBOX_K", min=1,
                                   help="Listwise: PCF permutations per item.")] = 7,
    limit: Annotated[Optional[int], typer.Option(
        envvar="JURYBOX_LIMIT", min=1, help="Judge a seeded sample of N items (per split for "
        "JudgeBench's gpt and claude splits) (default: all).")] = None,
    seed: Annotated[int, typer.Option(envvar="JURYBOX_SEED",
                                      help="Run seed: item sample, orders, decoding seed sent "
                                      "to the endpoint, and the simulated judge's noise.")] = 0,
    out: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_OUT", help="Run directory (default runs/bench-<dataset>-<model>-<hash>)."
        " Rerunning into it resumes.")] = None,
    cache: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_CACHE", help="SQLite response cache (default "
        "~/.cache/jurybox/cache.sqlite).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", envvar="JURYBOX_NO_CACHE",
                                           help="Do not read or write the cache.")] = False,
    base_url: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_BASE_URL", help="Endpoint base URL, e.g. http://localhost:8000/v1 "
        "(default per provider).")] = None,
    concurrency: Annotated[int, typer.Option(envvar="JURYBOX_CONCURRENCY", min=1,
                                             help="Model calls in flight at once.")] = 16,
    attempts: Annotated[int, typer.Option(
        envvar="JURYBOX_ATTEMPTS", min=1, help="Attempts per call, first try included: 429, "
        "5xx and timeouts are retried with exponential backoff and jitter, honouring "
        "Retry-After.")] = 6,
    timeout: Annotated[float, typer.Option(envvar="JURYBOX_TIMEOUT", min=0.001,
                                           help="Per-request timeout, seconds.")] = 60.0,
    transport: Annotated[str, typer.Option(
        envvar="JURYBOX_TRANSPORT", help="HTTP client: aiohttp (lean) or sdk (openai SDK).")
    ] = "aiohttp",
    subset: Annotated[str, typer.Option(envvar="JURYBOX_SUBSET",
                                        help="RewardBench 2 subset ('all' for every "
                                        "row).")
                      ] = "Factuality",
    n_candidates: Annotated[int, typer.Option(envvar="JURYBOX_N_CANDIDATES", min=2,
                                              help="Candidates per TruthfulQA item.")] = 4,
    tolerance: Annotated[float, typer.Option(envvar="JURYBOX_TOLERANCE",
                                             help="Listwise: winners within this many C_i "
                                             "points.")] = 0.5,
    weights: Annotated[str, typer.Option(envvar="JURYBOX_WEIGHTS",
                                         help="Listwise: C_i weights: mean,borda,vote,"
                                         "uncertainty.")] = "0.5,0.25,0.2,0.05",
    verdict_format: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_VERDICT_FORMAT", help="Pairwise: ask for a verdict token ([[A>B]]) "
        "or JSON ({\"verdict\": ...}): token or json (default: token).")] = None,
    temperature: Annotated[float, typer.Option(envvar="JURYBOX_TEMPERATURE", min=0.0,
                                               help="Judge sampling temperature.")] = 0.0,
    max_tokens: Annotated[Optional[int], typer.Option(
        envvar="JURYBOX_MAX_TOKENS", min=1, help="Judge completion budget, tokens (default: "
        "1024 listwise, 2048 pairwise).")] = None,
    sim_bias: Annotated[str, typer.Option(envvar="JURYBOX_SIM_BIAS",
                                          help="Simulated judge: none, primacy or recency.")
                        ] = "primacy",
    sim_latency_ms: Annotated[float, typer.Option(envvar="JURYBOX_SIM_LATENCY_MS",
                                                  help="Simulated judge latency, ms.")] = 0.0,
    sim_faults: Annotated[str, typer.Option(
        envvar="JURYBOX_SIM_FAULTS", help="Simulated faults (default none), e.g. "
        "rate_429=0.05,rate_500=0.02,rate_slow=0.01,rate_malformed=0.02,rate_truncated=0.01,"
        "rate_refusal=0.01 (probabilities per attempt).")] = "",
) -> None:
    """Judge a dataset with several protocols and compare them with paired statistics:
    listwise (best-of-N: direct vs permutation consensus) or pairwise (JudgeBench: one call,
    both orders, keyed judge, APOC)."""
    check_bias(sim_bias, "--sim-bias")
    names = (None if protocols is None else
             tuple(p.strip() for p in protocols.split(",") if p.strip()))
    if names == ():
        raise ConfigError(f"--protocols names no protocol; choose from {sorted(PROTOCOLS)}")
    for name in names or ():
        if name not in PROTOCOLS:
            raise ConfigError(f"unknown protocol {name!r}; choose from {sorted(PROTOCOLS)}")
    config = BenchConfig(
        dataset=dataset, model=model, protocols=names, baseline=baseline, k=k, limit=limit,
        seed=seed,
        subset=None if subset == "all" else subset, n_candidates=n_candidates,
        tolerance=tolerance, weights=parse_weights(weights), temperature=temperature,
        max_tokens=max_tokens, base_url=base_url, verdict_format=verdict_format,
        sim=SimConfig(bias=sim_bias, latency_ms=sim_latency_ms, faults=parse_faults(sim_faults),
                      seed=seed))
    out = out or default_out("bench", config.as_dict())
    with BenchProgress() as progress:
        result = run_bench(config, out, cache_path=None if no_cache else (cache or default_cache()),
                           concurrency=concurrency, retry=RetryPolicy(attempts=attempts),
                           timeout_s=timeout, transport=transport, on_call=progress.on_call,
                           on_item=progress.on_item, on_start=progress.on_start)
    judge = f"SIMULATED ({model})" if result.simulated else model
    print_bench_result(result, f"{result.summary['dataset']}: {result.n_items} items, "
                               f"judge: {judge}")
    exit_if_nothing_judged(result)
