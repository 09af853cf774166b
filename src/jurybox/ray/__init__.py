"""The Ray backend (``pip install 'jurybox[ray]'``): a run's calls made by Ray actors, and
judging a Ray Data dataset.

- ``--executor ray`` (``RunOptions(executor="ray")``): the driver runs the ordinary engine
  (cache, run directory, resume, decisions); :class:`RayProvider` sends each call to one of
  ``--ray-actors`` async actors, an item's calls to one actor (:mod:`jurybox.ray.provider`).
- :func:`judge_dataset`: a ``ray.data.Dataset`` of items in, one of judgments out (one row
  per item and protocol; a failed judgment is a row, never an aborted dataset).

Ray is imported only when one of these runs (``import jurybox.ray`` does not import it).
See docs/ray.md and DESIGN.md ("Ray backend").
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["INSTALL_LINE", "JudgeActor", "ProviderRecipe", "RayProvider", "RemoteError",
           "connect", "judge_dataset", "ray_endpoint", "recipe_of", "require_ray",
           "JUDGMENT_COLUMNS"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .actor import JudgeActor, RemoteError
    from .cluster import INSTALL_LINE, connect, require_ray
    from .dataset import JUDGMENT_COLUMNS, judge_dataset
    from .endpoint import ray_endpoint
    from .provider import RayProvider
    from .recipe import ProviderRecipe, recipe_of
