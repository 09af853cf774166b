"""Where a run's calls are made: an :class:`Executor` opens the run's endpoint as a provider
the engine calls. ``local`` (this process) is :func:`~jurybox.run.endpoint.open_endpoint`'s
own; any other is a plugin found by its name among the ``jurybox.executors`` entry points of
the installed packages (jurybox declares ``ray``: :mod:`jurybox.ray.endpoint`), so the engine
never imports an executor's package: it takes the executor as a value.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..providers import Provider
    from ..sim import SimJudge
    from .options import RunOptions

__all__ = ["ENTRY_POINT_GROUP", "Executor", "executor_named"]

#: The entry-point group executors are declared in (``pyproject.toml``:
#: ``[project.entry-points."jurybox.executors"]``).
ENTRY_POINT_GROUP = "jurybox.executors"


class Executor(Protocol):
    """Makes a run's calls somewhere other than this process.

    Attributes:
        name: what ``RunOptions.executor`` (``--executor``) calls it.
    """

    name: str

    def open(self, model: str, *, base_url: str | None, options: RunOptions,
             sim: Callable[[], SimJudge]) -> AbstractContextManager[Provider]:
        """The run's endpoint as a provider whose calls this executor makes (a context
        manager: the endpoint and the executor's workers end with it). Raises ConfigError
        for what cannot be used, before any call."""
        ...


def executor_named(name: str) -> Executor:
    """The executor plugin called ``name`` (an entry point of :data:`ENTRY_POINT_GROUP`).

    Raises:
        ConfigError: no installed package declares an executor of that name (the message
            lists those that do).
    """
    from importlib.metadata import entry_points

    found = {e.name: e for e in entry_points(group=ENTRY_POINT_GROUP)}
    if name not in found:
        known = ", ".join(sorted({"local", *found}))
        raise ConfigError(f"no executor named {name!r} is installed (executors: {known}); "
                          f"reinstall jurybox (pip install -e .) if it should be there")
    executor: Executor = found[name].load()
    return executor
