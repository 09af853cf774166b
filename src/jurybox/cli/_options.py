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
from typing import Annotated, Optional

import typer

from ._declared import declared
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
                      PANEL_SIM, PANEL_SIM_BATCH, PANEL_START, PANEL_STATS)

__all__ = ["ENV_EPILOG", "PANEL_COST", "PANEL_DATA", "PANEL_JUDGE",
           "PANEL_ORDER", "PANEL_OUTPUT", "PANEL_PROTOCOL", "PANEL_RUN", "PANEL_SIM",
           "PANEL_START", "PANEL_STATS", "PANEL_BATCH", "PANEL_SIM_BATCH", "BatchFallbackOpt",
           "BatchFilesOpt",
           "BatchMaxTokensOpt", "BatchOpt", "BatchPollOpt", "EndpointsOpt", "ReplicasOpt",
           "API_KEY_VARIABLES", "Attempts", "BaseUrl", "Cache", "Concurrency", "DryRun",
           "JuryOpt", "MaxAnswerChars", "MaxTokens", "Model", "model_for", "NoCache", "Out",
           "PriceBatch", "PriceIn", "PriceOut", "Seed",
           "SimBias", "SimFaults", "SimLatency", "SimSeed", "Temperature", "Structured",
           "Timeout", "TransportOpt", "run_options",
           "ExecutorOpt", "RayActorsOpt", "RayAddressOpt", "DetailOpt",
           "DecimalsOpt", "UnparsedOpt"]


Model = Annotated[Optional[str], declared("--model")]
JuryOpt = Annotated[Optional[Path], declared("--jury")]


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


BaseUrl = Annotated[Optional[list[str]], declared("--base-url", callback=_env_base_urls)]
EndpointsOpt = Annotated[Optional[Path], declared("--endpoints")]
ReplicasOpt = Annotated[int, declared("--replicas", min=1, max=MAX_REPLICAS)]
Seed = Annotated[int, declared("--seed", min=0, max=MAX_SEED)]


def _out_path(value: str) -> Path:
    """``--out``: a path; an empty one (an unset ``$OUT`` in a script) would write the run
    into the current directory, so it is refused."""
    if not value.strip():
        raise typer.BadParameter("is empty; give a folder for the run directory")
    return Path(value)


Out = Annotated[Optional[Path], declared("--out", parser=_out_path)]
DetailOpt = Annotated[bool, declared("--detail")]
DecimalsOpt = Annotated[int, declared("--decimals", min=0, max=4)]
UnparsedOpt = Annotated[str, declared("--unparsed")]
Cache = Annotated[Optional[Path], declared("--cache")]
NoCache = Annotated[bool, declared("--no-cache")]
Concurrency = Annotated[int, declared("--concurrency", min=1, max=MAX_CONCURRENCY)]
Attempts = Annotated[int, declared("--attempts", min=1, max=MAX_ATTEMPTS)]
Timeout = Annotated[float, declared("--timeout", min=0.001, max=int(MAX_TIMEOUT_S))]
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


MaxAnswerChars = Annotated[int, declared("--max-answer-chars", parser=_answer_budget, fill={
    "MAX_ANSWER_CHARS": MAX_ANSWER_CHARS, "DEFAULT_MAX_ANSWER_CHARS": DEFAULT_MAX_ANSWER_CHARS})]
Structured = Annotated[str, declared("--structured")]
TransportOpt = Annotated[str, declared("--transport")]
Temperature = Annotated[float, declared("--temperature", min=0.0, max=MAX_TEMPERATURE)]
MaxTokens = Annotated[Optional[int], declared("--max-tokens", min=1, max=MAX_MAX_TOKENS)]
SimSeed = Annotated[int, declared("--sim-seed", min=0, max=MAX_SEED)]
SimBias = Annotated[str, declared("--sim-bias")]
SimLatency = Annotated[float, declared("--sim-latency-ms", min=0.0)]
SimFaults = Annotated[str, declared("--sim-faults")]


DryRun = Annotated[bool, declared("--dry-run")]
PriceIn = Annotated[Optional[float], declared("--price-in")]
PriceOut = Annotated[Optional[float], declared("--price-out")]
PriceBatch = Annotated[Optional[float], declared("--price-batch")]


BatchOpt = Annotated[bool, declared("--batch")]
BatchFilesOpt = Annotated[bool, declared("--batch-files")]
BatchFallbackOpt = Annotated[str, declared("--batch-fallback")]
BatchPollOpt = Annotated[float, declared("--batch-poll", min=0.01, max=3600)]
BatchMaxTokensOpt = Annotated[Optional[int], declared("--batch-max-tokens", min=1)]


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

ExecutorOpt = Annotated[str, declared("--executor")]
RayAddressOpt = Annotated[Optional[str], declared("--ray-address")]
RayActorsOpt = Annotated[int, declared("--ray-actors")]
