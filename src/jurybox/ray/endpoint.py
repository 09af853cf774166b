"""``--executor ray``: the endpoint of a run, its calls made by Ray actors.

:func:`jurybox.run.open_endpoint` hands a run with ``options.executor == "ray"`` here: Ray is
joined (or started) first, so a missing extra or an unreachable ``--ray-address`` is one line
before the endpoint opens; then the endpoint opens as for a local run (the simulated judge's
server, the local judge, a served endpoint or a pool) and its provider is wrapped in a
:class:`~jurybox.ray.RayProvider` whose actors rebuild it from its recipe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace

from ..providers import Provider, redact_text
from ..run.options import RunOptions
from ..sim import SimJudge
from .cluster import cluster_address, connect
from .provider import RayProvider
from .recipe import recipe_of

__all__ = ["RayExecutor", "executor", "ray_endpoint"]


@contextmanager
def ray_endpoint(model: str, *, base_url: str | None, options: RunOptions,
                 sim: Callable[[], SimJudge]) -> Iterator[Provider]:
    """Yield a :class:`RayProvider` over the endpoint :func:`jurybox.run.open_endpoint`
    opens for ``model`` (the actors are ended at the end).

    Raises:
        ConfigError: ``options.ray_address`` (or ``RAY_ADDRESS``) cannot be reached; as
            :func:`~jurybox.run.open_endpoint` (before Ray starts); Ray is not installed, or
            too many actors for a local Ray (:func:`~jurybox.ray.cluster.connect`); the
            judge is one the actors cannot rebuild.
    """
    from ..run.endpoint import open_endpoint

    # the cluster's address checked first (a few seconds at most), before the judge starts
    address = cluster_address(options.ray_address)
    with open_endpoint(model, base_url=base_url,
                       options=replace(options, executor="local", ray_address=None),
                       sim=sim) as inner:  # the judge's own bad input (an API key) before Ray
        recipe = recipe_of(inner)
        connect(options.ray_address, actors=options.ray_actors)
        provider = RayProvider(inner, recipe, actors=options.ray_actors,
                               concurrency=options.concurrency)
        provider.executor["address"] = None if address is None else redact_text(address)
        try:
            yield provider
        finally:
            provider.close()


class RayExecutor:
    """The ``ray`` executor (:class:`~jurybox.run.executor.Executor`): the run's calls made
    by Ray actors; declared as the ``ray`` entry point of ``jurybox.executors``."""

    name = "ray"

    @staticmethod
    def open(model: str, *, base_url: str | None, options: RunOptions,
             sim: Callable[[], SimJudge]) -> AbstractContextManager[Provider]:
        """:func:`ray_endpoint`."""
        return ray_endpoint(model, base_url=base_url, options=options, sim=sim)


#: The entry point's object.
executor = RayExecutor()
