"""CLI options shared by the judging commands, declared once as ``Annotated`` aliases.

A command lists the ones it takes, with the library's default constant::

    def bench(..., concurrency: Concurrency = DEFAULT_CONCURRENCY, ...):
        options = run_options(concurrency=concurrency, ...)

and :func:`run_options` turns them into the one typed :class:`~jurybox.run.RunOptions` the
engine receives. Every option has a ``JURYBOX_`` environment variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..batch.options import DEFAULT_POLL_MAX_S, DEFAULT_POLL_S, BatchOptions
from ..cost.prices import Price
from ..errors import ConfigError
from ..providers.endpoints import Replica
from ..limits import (DEFAULT_MAX_ANSWER_CHARS, MAX_ANSWER_CHARS, MAX_ATTEMPTS, MAX_CONCURRENCY,
                      MAX_MAX_TOKENS, MAX_SEED, MAX_TEMPERATURE, MAX_TIMEOUT_S)
from ..run.options import DEFAULT_EXECUTOR, DEFAULT_RAY_ACTORS, MAX_REPLICAS, RunOptions
from ..runner.retry import RetryPolicy
from ._panels import (API_KEY_VARIABLES, ENV_EPILOG, PANEL_BATCH, PANEL_COST, PANEL_DATA,
                      PANEL_JUDGE, PANEL_ORDER, PANEL_OUTPUT, PANEL_PROTOCOL, PANEL_RUN,
                      PANEL_SIM, PANEL_SIM_BATCH, PANEL_START, PANEL_STATS, envvar_by_rule)

__all__ = ["ENV_EPILOG", "FAULTS_HELP", "PANEL_COST", "PANEL_DATA", "PANEL_JUDGE",
           "PANEL_ORDER", "PANEL_OUTPUT", "PANEL_PROTOCOL", "PANEL_RUN", "PANEL_SIM",
           "PANEL_START", "PANEL_STATS", "PANEL_BATCH", "PANEL_SIM_BATCH", "BatchFallbackOpt",
           "BatchFilesOpt",
           "BatchMaxTokensOpt", "BatchOpt", "BatchPollOpt", "EndpointsOpt", "ReplicasOpt",
           "API_KEY_VARIABLES", "Attempts", "BaseUrl", "Cache", "Concurrency", "DryRun",
           "MaxAnswerChars", "MaxTokens", "Model", "model_for", "NoCache", "Out",
           "PriceBatch", "PriceIn", "PriceOut", "Seed",
           "SimBias", "SimFaults", "SimLatency", "SimSeed", "Temperature", "Structured",
           "Timeout", "TransportOpt", "run_options",
           "ExecutorOpt", "RayActorsOpt", "RayAddressOpt", "rule_option", "DetailOpt",
           "DecimalsOpt", "UnparsedOpt"]


def rule_option(name: str, panel: str, *, help: str, **settings: Any) -> Any:
    """The typer option ``name`` (``--sim-seed``) with the environment variable the rule names
    (:func:`envvar_by_rule`: ``JURYBOX_SIM_SEED``, so ``--help`` leaves it unsaid), drawn in
    ``--help``'s panel ``panel``; ``settings``: typer's own (``metavar``, ``min``, ...)."""
    return typer.Option(name, envvar=envvar_by_rule(name), rich_help_panel=panel, help=help,
                        **settings)


Model = Annotated[Optional[str], rule_option("--model", PANEL_START, metavar="MODEL",
    help="The judge: `provider/model`, e.g. openai/gpt-4o-mini or `vllm/<model>` (providers: "
    "openai, anthropic, openrouter, vllm, ollama, llamacpp, sglang, lmstudio); local or "
    "`local/<file.gguf>` (llama.cpp on this machine); sim (the simulated judge, told the gold "
    "answers). Required for your own files; bundled datasets default to sim.")]


def model_for(model: str | None, data: str, *, bundled: bool,
              check: Callable[[], object] | None = None) -> str:
    """The judge of a command: ``model`` when given; ``sim`` for bundled data (the tool's own
    demonstration data); for the user's own data, the one-line error listing the choices
    (never a silent simulated judge). ``check`` (the command's data checks) runs before that
    error, so a file's own problems are named first.

    Raises:
        ConfigError: no model for the user's own data (or whatever ``check`` raises).
    """
    from ..providers.spec import require_model

    if model is None and bundled:
        return "sim"
    if model is None and check is not None:
        check()
    return require_model(model, data)


def _env_base_urls(ctx: typer.Context, param: typer.CallbackParam,
                   value: Optional[list[str]]) -> Optional[list[str]]:
    """``--base-url`` from ``JURYBOX_BASE_URL``: its URLs separated by commas or blanks, blanks
    around a comma allowed (``"http://a/v1, http://b/v1"``, which click's own splitting at
    blanks would cut into ``"http://a/v1,"`` and ``"http://b/v1"``, an empty entry); a value
    of blanks only is kept, for the "--base-url is empty" error. From the command line:
    ``value`` as given."""
    source = ctx.get_parameter_source(param.name or "")
    if getattr(source, "name", None) != "ENVIRONMENT":  # typer may carry its own click
        return value
    raw = next((os.environ[v] for v in _names(param.envvar) if os.environ.get(v)), "")
    return re.sub(r"\s*,\s*", ",", raw.strip()).split() or [raw]


def _names(envvar: str | Sequence[str] | None) -> list[str]:
    return [] if envvar is None else [envvar] if isinstance(envvar, str) else list(envvar)


BaseUrl = Annotated[Optional[list[str]], rule_option("--base-url", PANEL_START, metavar="URL",
    callback=_env_base_urls,
    help="Endpoint base URL, e.g. http://localhost:8000/v1 (default per provider). Given "
    "several times (or comma-separated; in JURYBOX_BASE_URL, separated by commas or blanks), "
    "the replicas of one model, judged through as one "
    "endpoint pool: an item's calls stay on one replica, new items go to the less loaded of "
    "two, a failing replica cools down; they share one cache.")]
EndpointsOpt = Annotated[Optional[Path], rule_option("--endpoints", PANEL_JUDGE, metavar="FILE",
    help="An endpoint pool from a YAML file: a list of replicas with `url` and optional "
    "`weight`, `max_concurrency` and `key_env` (the variable holding its API key); instead "
    "of --base-url.")]
ReplicasOpt = Annotated[int, rule_option("--replicas", PANEL_JUDGE, min=1, max=MAX_REPLICAS,
    metavar="N",
    help="With --model local: start N llama.cpp servers (each with its share of the CPU "
    "cores) and judge through them as one endpoint pool.")]
Seed = Annotated[int, rule_option("--seed", PANEL_RUN, min=0, max=MAX_SEED, metavar="N",
    help="Run seed: everything random in jurybox's own work (item sample, shown orders, "
    "example draws, decoding seed sent to the endpoint, bootstrap).")]


def _out_path(value: str) -> Path:
    """``--out``: a path; an empty one (an unset ``$OUT`` in a script) would write the run
    into the current directory, so it is refused."""
    if not value.strip():
        raise typer.BadParameter("is empty; give a folder for the run directory")
    return Path(value)


Out = Annotated[Optional[Path], rule_option("--out", PANEL_OUTPUT, parser=_out_path, metavar="DIR",
    help="Run directory (default `runs/<command>-<dataset>-<model>-<config hash>`). "
    "Rerunning into it resumes.")]
DetailOpt = Annotated[bool, rule_option("--detail", PANEL_OUTPUT,
    help="Print every table: for recorded judgments every strategy of each set with every "
    "rule (strict, agree-only, sign tests) and the juries, not only each set's default "
    "strategy's position-bias figures.")]
DecimalsOpt = Annotated[int, rule_option("--decimals", PANEL_OUTPUT, min=0, max=4, metavar="D",
    help="Decimals of the percentages in the tables (default 1; summary.json keeps every "
    "figure unrounded).")]
UnparsedOpt = Annotated[str, rule_option("--unparsed", PANEL_OUTPUT, metavar="RULE",
    help="Recorded judgments: how an item with an unparsed order counts for position "
    "consistency (cons): excluded (left out of the share; default) or inconsistent (counted "
    "as inconsistent, as Shi et al. 2024 count it). Both are in summary.json.")]
Cache = Annotated[Optional[Path], rule_option("--cache", PANEL_RUN, metavar="FILE",
    help="SQLite response cache (default: ~/.cache/jurybox/cache.sqlite when "
    "$XDG_CACHE_HOME is unset).")]
NoCache = Annotated[bool, rule_option("--no-cache", PANEL_RUN,
    help="Do not read or write the response cache.")]
Concurrency = Annotated[int, rule_option("--concurrency", PANEL_RUN, min=1, max=MAX_CONCURRENCY,
    metavar="N", help="Model calls in flight at once.")]
Attempts = Annotated[int, rule_option("--attempts", PANEL_RUN, min=1, max=MAX_ATTEMPTS, metavar="N",
    help="Attempts per call, first try included: 429, 5xx and timeouts are retried with "
    "exponential backoff and jitter, honouring Retry-After.")]
Timeout = Annotated[float, rule_option("--timeout", PANEL_RUN, min=0.001, max=int(MAX_TIMEOUT_S),
    metavar="SECONDS", help="Per-request timeout, seconds.")]
def _answer_budget(value: str | int) -> int:
    """``--max-answer-chars``: a whole number 1 to MAX_ANSWER_CHARS (checked here, not by a
    typer range, whose ``[1<=x<=33554432]`` would crowd the help's 80 columns)."""
    text = str(value).strip()
    # ASCII digits only: int() would also take "1_000" and full-width digits
    if not (text.isascii() and text.isdigit()):
        raise typer.BadParameter(f"{value!r:.40} is not a whole number (digits 0-9 only)")
    budget = int(text)
    if not 1 <= budget <= MAX_ANSWER_CHARS:
        raise typer.BadParameter(f"{budget} is not in the range 1<=x<={MAX_ANSWER_CHARS}")
    return budget


MaxAnswerChars = Annotated[int, rule_option("--max-answer-chars", PANEL_PROTOCOL,
    parser=_answer_budget, metavar="CHARS",
    help=f"Answer budget, characters, 1 to {MAX_ANSWER_CHARS:,}: a judge's answer longer "
    "than this is a recorded parse failure naming its length and the budget, unread; within "
    "it the verdict is found after any prefix (prose, think blocks, other JSON). Default "
    f"{DEFAULT_MAX_ANSWER_CHARS:,}.")]
Structured = Annotated[str, rule_option("--structured", PANEL_JUDGE, metavar="MODE",
    help="Structured outputs: auto, json-schema, json-object or off. auto: the answer's JSON "
    "schema for real endpoints, falling back once to json-object, then off, when a server "
    "refuses it; off for the simulated judge. Answers are validated either way.")]
TransportOpt = Annotated[str, rule_option("--transport", PANEL_JUDGE, metavar="CLIENT",
    help="HTTP client: aiohttp (lean) or sdk (the openai SDK).")]
Temperature = Annotated[float, rule_option("--temperature", PANEL_JUDGE, min=0.0,
    max=MAX_TEMPERATURE, metavar="T", help="Judge sampling temperature.")]
MaxTokens = Annotated[Optional[int], rule_option("--max-tokens", PANEL_JUDGE, min=1,
    max=MAX_MAX_TOKENS, metavar="TOKENS", help="Judge completion budget, tokens (default: 1024 "
    "listwise, 2048 pairwise, 512 rubric).")]
SimSeed = Annotated[int, rule_option("--sim-seed", PANEL_SIM, min=0, max=MAX_SEED, metavar="N",
    help="Seeds the simulated judge's fixed per-candidate offsets and its noise.")]
SimBias = Annotated[str, rule_option("--sim-bias", PANEL_SIM, metavar="BIAS",
    help="The simulated judge's position bias: none, primacy or recency.")]
SimLatency = Annotated[float, rule_option("--sim-latency-ms", PANEL_SIM, min=0.0, metavar="MS",
    help="The simulated judge's latency, ms.")]
#: The simulated judge's fault rates, as ``--sim-faults`` and serve-sim's ``--faults`` say.
FAULTS_HELP = (
    "Faults the simulated judge injects: NAME=RATE pairs, comma-separated, each rate a "
    "probability per attempt, from rate_429, rate_500, rate_slow, rate_malformed, "
    "rate_truncated, rate_refusal; e.g. 'rate_429=0.05, rate_500=0.02' (default: none).")
SimFaults = Annotated[str, rule_option("--sim-faults", PANEL_SIM, metavar="FAULTS",
    help=FAULTS_HELP)]


DryRun = Annotated[bool, rule_option("--dry-run", PANEL_START,
    help="Make no model call: check the inputs, then print the calls the run would make, "
    "input and output tokens (estimated when no tokenizer is known for the model), the "
    "prompt share a provider's prefix cache could serve, and USD when prices are known.")]
PriceIn = Annotated[Optional[float], rule_option("--price-in", PANEL_COST, metavar="USD",
    help="USD per million input tokens (with --price-out; default: the bundled list price "
    "of well-known models, dated).")]
PriceOut = Annotated[Optional[float], rule_option("--price-out", PANEL_COST, metavar="USD",
    help="USD per million output tokens (with --price-in).")]
PriceBatch = Annotated[Optional[float], rule_option("--price-batch", PANEL_COST, metavar="SHARE",
    help="What a call answered through the provider's batch API costs, as a share of the "
    "online price (0 to 1; default: the bundled rate of the provider: 0.5 for openai and "
    "anthropic, none for providers without a batch API).")]


BatchOpt = Annotated[bool, rule_option("--batch", PANEL_BATCH,
    help="Send the calls as provider batches (OpenAI Batch API, Anthropic Message Batches, "
    "an OpenAI-compatible server serving /v1/batches): half the price, answers within 24 h. "
    "Each protocol stage is one batch round. Journalled in the run directory: rerun the "
    "command after a kill to collect the batches in flight; no request is sent twice.")]
BatchFilesOpt = Annotated[bool, rule_option("--batch-files", PANEL_BATCH,
    help="For a self-hosted server without a batch API: write each batch round to files in "
    "the run directory (OpenAI batch lines, for `vllm run-batch`) and stop; `jurybox batch "
    "export` and `jurybox batch import` carry them there and back, and the rerun goes on.")]
BatchFallbackOpt = Annotated[str, rule_option("--batch-fallback", PANEL_BATCH, metavar="WHERE",
    help="Where a request a batch did not answer (expired, cancelled, failed) goes next: "
    "batch (the next batch) or online (at the online price).")]
BatchPollOpt = Annotated[float, rule_option("--batch-poll", PANEL_BATCH, min=0.01, max=3600,
    metavar="SECONDS",
    help="First wait before polling a batch; each poll waits 1.5x longer, up to 5 minutes.")]
BatchMaxTokensOpt = Annotated[Optional[int], rule_option("--batch-max-tokens", PANEL_BATCH, min=1,
    metavar="TOKENS",
    help="Most prompt tokens enqueued in batches at once (your provider's per-model "
    "enqueued-token limit; estimated at 4 characters a token) (default: no limit).")]


def batch_options(batch: bool, fallback: str = "batch", poll: float = DEFAULT_POLL_S,
                  max_tokens: int | None = None, files: bool = False) -> BatchOptions | None:
    """The batch settings of ``--batch`` and its options (None: judging online);
    ``--batch-files`` implies ``--batch``.

    Raises:
        ConfigError: a batch option given without ``--batch``, or a bad value.
    """
    if files:
        return BatchOptions(poll_s=min(poll, 1.0), poll_max_s=max(poll, DEFAULT_POLL_MAX_S),
                            fallback=fallback, files=True)  # type: ignore[arg-type]
    if not batch:
        if fallback != "batch" or max_tokens is not None:
            raise ConfigError("--batch-fallback and --batch-max-tokens are for --batch: add "
                              "--batch (or JURYBOX_BATCH=1), or leave them unset")
        return None
    return BatchOptions(poll_s=poll, poll_max_s=max(poll, DEFAULT_POLL_MAX_S),
                        max_enqueued_tokens=max_tokens,
                        fallback=fallback)  # type: ignore[arg-type]


def run_options(*, concurrency: int, attempts: int, timeout: float, transport: str,
                cache: Path | None, no_cache: bool, structured: str,
                price: Price | None = None, batch: BatchOptions | None = None,
                endpoints: tuple[Replica, ...] = (), replicas: int = 1,
                executor: str = DEFAULT_EXECUTOR, ray_address: str | None = None,
                ray_actors: int = DEFAULT_RAY_ACTORS,
                max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS,
                model: str | None = None) -> RunOptions:
    """The typed options of a judging command's flags (cache: the default file unless
    ``--no-cache``); with ``model``, the endpoint pool is checked against it (a dry run
    refuses what a run refuses).

    Raises:
        ConfigError: an option out of range; an unknown executor, fewer than 1 actor, a Ray
            option without ``--executor ray``, or ``--executor ray`` without Ray installed
            (the pip line); a pool the judge cannot take
            (:func:`~jurybox.run.endpoint.check_pool`).
    """
    from ..providers import parse_spec
    from ..run.endpoint import check_pool
    from ._common import default_cache, warn

    if no_cache and cache is not None:  # --no-cache wins, saying so
        warn(f"--no-cache: the response cache {str(cache)!r} (--cache or JURYBOX_CACHE) is "
             f"neither read nor written")
    options = RunOptions(concurrency=concurrency, retry=RetryPolicy(attempts=attempts),
                         timeout_s=timeout, transport=transport,  # type: ignore[arg-type]
                         cache_path=None if no_cache else (cache or default_cache()),
                         structured=structured, price=price,  # type: ignore[arg-type]
                         batch=batch, endpoints=endpoints, replicas=replicas,
                         executor=executor,  # type: ignore[arg-type]
                         ray_address=ray_address, ray_actors=ray_actors,
                         max_answer_chars=max_answer_chars)
    if model is not None:
        check_pool(parse_spec(model), options)
    return options


def no_pool_with_jury(endpoints: tuple[Replica, ...], replicas: int) -> None:
    """A jury names each judge's endpoint in its file: no pool options with ``--jury``.

    Raises:
        ConfigError: several --base-url values, --endpoints or --replicas with --jury.
    """
    if endpoints or replicas > 1:
        raise ConfigError("--jury judges each judge at its own endpoint (the jury file's "
                          "base_url); several --base-url values, --endpoints and --replicas "
                          "are for one judge")


# -- where the calls are made (the Ray backend: jurybox.ray) ----------------------------------

ExecutorOpt = Annotated[str, rule_option("--executor", PANEL_RUN, metavar="WHERE",
    help="Where the judge's calls are made: local (this process) or ray (Ray actors, an "
    "item's calls on one actor; this process still keeps the cache, the run directory and "
    "every decision, so they are those of a local run; pip install 'jurybox[ray]').")]
RayAddressOpt = Annotated[Optional[str], rule_option("--ray-address", PANEL_RUN, metavar="ADDRESS",
    help="With --executor ray: the Ray cluster to join (the head node, host:6379; "
    "ray://host:10001; auto) (default: RAY_ADDRESS if set, else start a local Ray on this "
    "machine).")]
RayActorsOpt = Annotated[int, rule_option("--ray-actors", PANEL_RUN, metavar="N",
    help="With --executor ray: Ray actors making the calls (at least 1; a local Ray takes "
    "at most 4 a core).")]
