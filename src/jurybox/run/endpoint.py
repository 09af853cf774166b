"""Open the endpoint a run judges with: real, or the simulated judge on a loopback port; an
endpoint pool (several replicas of one model: ``--base-url`` given several times,
``--endpoints FILE``, ``--model local --replicas N``) is one
:class:`~jurybox.providers.pool.PoolProvider`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from ..errors import ConfigError
from ..providers import LocalServer, ModelSpec, Provider, make_provider, parse_spec
from ..providers.endpoints import Replica, load_endpoints, parse_base_urls
from ..providers.pool import PoolProvider
from ..providers.urls import base_url_problem
from ..sim import SimJudge, SimServer
from .executor import executor_named
from .options import RunOptions

__all__ = ["LOCAL_TIMEOUT_S", "check_endpoint", "check_pool", "open_endpoint",
           "split_endpoints"]

#: The shortest per-request timeout the local judge gets, seconds.
LOCAL_TIMEOUT_S = 600.0


def check_endpoint(model: str, base_url: str | None) -> ModelSpec:
    """The checks of a judge's spec and base URL that need no endpoint (a dry run makes them
    too): the parsed spec.

    Raises:
        ConfigError: a bad spec (``''``, no provider, an unknown one), an empty or malformed
            base URL (the message shows it with its secrets hidden), or a base URL given for
            the simulated or local judge, which serve themselves.
    """
    if base_url is not None and not base_url.strip():
        raise ConfigError("--base-url is empty (is JURYBOX_BASE_URL set to ''?); give the "
                          "endpoint's URL, e.g. http://localhost:8000/v1, or leave it unset "
                          "for the provider's default")
    if base_url is not None and (problem := base_url_problem(base_url)):
        raise ConfigError(f"--base-url {problem}")
    spec = parse_spec(model)
    if spec.provider == "local" and spec.model and not spec.model.endswith(".gguf") and (
            "/" in spec.model or Path(spec.model).exists()):
        raise ConfigError(f"--model local/{spec.model}: a file for the local judge must be a "
                          f".gguf file (local/<path.gguf>); a name without a path "
                          f"(local/<alias>) only names the default model")
    if base_url is not None and spec.provider in ("sim", "local"):
        judge = "the simulated judge" if spec.provider == "sim" else "the local judge"
        raise ConfigError(f"--base-url (or JURYBOX_BASE_URL) is for a served endpoint, and "
                          f"{judge} serves itself: leave it unset with --model "
                          f"{spec.provider}, or use --model openai/<name> for the server at "
                          f"that URL")
    return spec


def split_endpoints(base_urls: str | Sequence[str] | None, endpoints: str | Path | None
                    ) -> tuple[str | None, tuple[Replica, ...]]:
    """``--base-url`` (given once or several times, or comma-separated) and ``--endpoints
    FILE`` as a run takes them: one base URL for the run's configuration, or an endpoint pool
    (a tuple of replicas, for :attr:`RunOptions.endpoints`) with no base URL.

    Raises:
        ConfigError: both given; an empty or malformed URL; a URL given twice.
        DataError: a bad endpoints file (file, line, endpoint and field named).
    """
    if endpoints is not None:
        if base_urls:
            raise ConfigError("give --base-url or --endpoints, not both (the endpoints file "
                              "lists every replica; either may come from the environment: "
                              "JURYBOX_BASE_URL, JURYBOX_ENDPOINTS)")
        return None, tuple(load_endpoints(endpoints))
    if base_urls is None:
        return None, ()
    values = [base_urls] if isinstance(base_urls, str) else list(base_urls)
    if len(values) == 1 and "," not in values[0]:
        return values[0], ()
    replicas = tuple(parse_base_urls(values))
    return (replicas[0].url, ()) if len(replicas) == 1 else (None, replicas)


def check_pool(spec: ModelSpec, options: RunOptions) -> None:
    """The checks of an endpoint pool that need no endpoint (a dry run makes them too).

    Raises:
        ConfigError: replicas given for the simulated or local judge (``--replicas`` is the
            local judge's), ``--replicas`` for a served judge, or a pool with ``--batch``.
    """
    if options.endpoints and spec.provider in ("sim", "local"):
        judge = "the simulated judge" if spec.provider == "sim" else "the local judge"
        more = " (--replicas N starts N local judges)" if spec.provider == "local" else ""
        raise ConfigError(f"several --base-url values (or --endpoints) are replicas of a "
                          f"served model, and {judge} serves itself{more}; use --model "
                          f"openai/<name> (or vllm/, llamacpp/, ...) for the replicas")
    if options.replicas > 1 and spec.provider == "sim":
        raise ConfigError("--replicas starts local judges (--model local); the simulated "
                          "judge serves itself in this process: leave --replicas out")
    if options.replicas > 1 and spec.provider != "local":
        raise ConfigError(f"--replicas starts local judges (--model local); for replicas of "
                          f"{spec}, give --base-url once per replica or --endpoints FILE")
    if (options.endpoints or options.replicas > 1) and options.batch is not None \
            and not options.batch.files:
        raise ConfigError("--batch sends the calls to one provider's batch API; an endpoint "
                          "pool judges online (leave out --batch, or give one --base-url)")


@contextmanager
def open_endpoint(model: str, *, base_url: str | None, options: RunOptions,
                  sim: Callable[[], SimJudge]) -> Iterator[Provider]:
    """Yield the provider for a model spec; for ``sim``, ``sim()`` is served on a loopback
    port for the duration; for ``local`` (``local/<alias>``, ``local/<path.gguf>``), the
    local llama.cpp judge is started and stopped at the end.

    Raises:
        ConfigError: a bad spec, a missing API key, a local judge that cannot start, or a
            base URL given with an endpoint pool.
    """
    if options.executor != "local":  # a plugin makes the calls (ray: Ray actors)
        with executor_named(options.executor).open(model, base_url=base_url, options=options,
                                                   sim=sim) as provider:
            yield provider
        return
    spec = check_endpoint(model, base_url)
    check_pool(spec, options)
    if base_url is not None and options.endpoints:
        raise ConfigError("give one base URL or an endpoint pool (RunOptions.endpoints), not "
                          "both: the pool lists every replica")
    if spec.provider == "sim":
        with SimServer(sim()) as server:
            yield server.provider(timeout_s=options.timeout_s, transport=options.transport)
    elif spec.provider == "local":
        if options.batch is not None and not options.batch.files:
            from ..batch.select import no_batch_api

            raise no_batch_api("local")  # before llama.cpp loads a model
        gguf = Path(spec.model) if spec.model.endswith(".gguf") else None
        n = options.replicas
        # N servers share the machine's cores (each its own share, at least one thread)
        threads = max(1, (os.cpu_count() or 1) // n) if n > 1 else None
        with ExitStack() as stack:
            servers = [stack.enter_context(LocalServer(
                gguf, alias=None if gguf or not spec.model else spec.model, threads=threads))
                for _ in range(n)]
            # a CPU judge takes seconds a call (a 7B GGUF, minutes): --timeout is a floor
            local = [server.provider(timeout_s=max(options.timeout_s, LOCAL_TIMEOUT_S),
                                     transport=options.transport) for server in servers]
            yield local[0] if n == 1 else PoolProvider(local)
    elif options.endpoints:
        yield served_pool(spec, options.endpoints, options)
    else:
        yield make_provider(spec, base_url=base_url, timeout_s=options.timeout_s,
                            transport=options.transport)


def served_pool(spec: ModelSpec, replicas: Sequence[Replica], options: RunOptions
                ) -> PoolProvider:
    """One provider per replica of a served model (each with its own key, if it names a
    variable), as one pool weighted and limited as the replicas say.

    Raises:
        ConfigError: a missing API key (naming the replica's variable, or the provider's;
            when other replicas name a key_env, the replica that names none).
    """
    some_named = any(r.key_env is not None for r in replicas)
    providers = []
    for r in replicas:
        try:
            providers.append(make_provider(spec, base_url=r.url, api_key=r.api_key(),
                                           timeout_s=options.timeout_s,
                                           transport=options.transport))
        except ConfigError as exc:
            if r.key_env is not None or not some_named:
                raise
            raise ConfigError(f"{r.source or 'replica'}: the replica {r.shown} names no "
                              f"key_env, and {exc}") from None
    return PoolProvider(providers, weights=[r.weight for r in replicas],
                        limits=[r.max_concurrency for r in replicas])
