"""Open the endpoint a run judges with: real, or the simulated judge on a loopback port."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import ConfigError
from ..providers import LocalServer, ModelSpec, Provider, make_provider, parse_spec
from ..providers.urls import base_url_problem
from ..sim import SimJudge, SimServer
from .options import RunOptions

__all__ = ["LOCAL_TIMEOUT_S", "check_endpoint", "open_endpoint"]

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


@contextmanager
def open_endpoint(model: str, *, base_url: str | None, options: RunOptions,
                  sim: Callable[[], SimJudge]) -> Iterator[Provider]:
    """Yield the provider for a model spec; for ``sim``, ``sim()`` is served on a loopback
    port for the duration; for ``local`` (``local/<alias>``, ``local/<path.gguf>``), the
    local llama.cpp judge is started and stopped at the end.

    Raises:
        ConfigError: a bad spec, a missing API key, or a local judge that cannot start.
    """
    if options.executor == "ray":  # the calls are made by Ray actors (jurybox.ray)
        yield from _on_ray(model, base_url=base_url, options=options, sim=sim)
        return
    spec = check_endpoint(model, base_url)
    if spec.provider == "sim":
        with SimServer(sim()) as server:
            yield server.provider(timeout_s=options.timeout_s, transport=options.transport)
    elif spec.provider == "local":
        if options.batch is not None and not options.batch.files:
            from ..batch.select import no_batch_api

            raise no_batch_api("local")  # before llama.cpp loads a model
        gguf = Path(spec.model) if spec.model.endswith(".gguf") else None
        with LocalServer(gguf, alias=None if gguf or not spec.model else spec.model) as server:
            # a CPU judge takes seconds a call (a 7B GGUF, minutes): --timeout is a floor
            yield server.provider(timeout_s=max(options.timeout_s, LOCAL_TIMEOUT_S),
                                  transport=options.transport)
    else:
        yield make_provider(spec, base_url=base_url, timeout_s=options.timeout_s,
                            transport=options.transport)


def _on_ray(model: str, *, base_url: str | None, options: RunOptions,
            sim: Callable[[], SimJudge]) -> Iterator[Provider]:
    """:func:`open_endpoint` with ``executor="ray"``: :func:`jurybox.ray.ray_endpoint`."""
    from ..ray.endpoint import ray_endpoint

    with ray_endpoint(model, base_url=base_url, options=options, sim=sim) as provider:
        yield provider
