"""``--executor ray``: the endpoint of a run, its calls made by Ray actors.

:func:`jurybox.run.open_endpoint` hands a run with ``options.executor == "ray"`` here: Ray is
joined (or started) first, so a missing extra or an unreachable ``--ray-address`` is one line
before the endpoint opens; then the endpoint opens as for a local run (the simulated judge's
server, the local judge, a served endpoint or a pool) and its provider is wrapped in a
:class:`~jurybox.ray.RayProvider` whose actors rebuild it from its recipe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from ..providers import Provider
from ..run.options import RunOptions
from ..sim import SimJudge
from .cluster import connect
from .provider import RayProvider
from .recipe import recipe_of

__all__ = ["ray_endpoint"]


@contextmanager
def ray_endpoint(model: str, *, base_url: str | None, options: RunOptions,
                 sim: Callable[[], SimJudge]) -> Iterator[Provider]:
    """Yield a :class:`RayProvider` over the endpoint :func:`jurybox.run.open_endpoint`
    opens for ``model`` (the actors are ended at the end).

    Raises:
        ConfigError: Ray is not installed, ``options.ray_address`` cannot be reached, or the
            judge is one the actors cannot rebuild; as :func:`~jurybox.run.open_endpoint`.
    """
    from ..run.endpoint import open_endpoint

    connect(options.ray_address)
    with open_endpoint(model, base_url=base_url, options=replace(options, executor="local"),
                       sim=sim) as inner:
        provider = RayProvider(inner, recipe_of(inner), actors=options.ray_actors,
                               concurrency=options.concurrency)
        try:
            yield provider
        finally:
            provider.close()
