"""Open the endpoint a run judges with: real, or the simulated judge on a loopback port."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..providers import Provider, make_provider, parse_spec
from ..sim import SimJudge, SimServer
from .options import RunOptions

__all__ = ["open_endpoint"]


@contextmanager
def open_endpoint(model: str, *, base_url: str | None, options: RunOptions,
                  sim: Callable[[], SimJudge]) -> Iterator[Provider]:
    """Yield the provider for a model spec; for ``sim``, ``sim()`` is served on a loopback
    port for the duration.

    Raises:
        ConfigError: a bad spec, or a missing API key.
    """
    spec = parse_spec(model)
    if spec.provider == "sim":
        with SimServer(sim()) as server:
            yield server.provider(timeout_s=options.timeout_s, transport=options.transport)
    else:
        yield make_provider(spec, base_url=base_url, timeout_s=options.timeout_s,
                            transport=options.transport)
