"""Batch mode: requests sent as provider batches (OpenAI's Batch API, Anthropic's Message
Batches) at the batch price, journalled in the run directory so a run killed at any point
resumes without paying twice.

:class:`BatchProvider` is a provider like any other to the runner; :func:`batch_api` picks
the batch API of a run's endpoint.
"""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["BATCH_WINDOW", "BatchAPI", "BatchEvent", "BatchLimits", "BatchOptions",
           "BatchProvider", "BatchResult", "BatchStats", "BatchStatus", "batch_api"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .api import BatchAPI, BatchLimits, BatchResult, BatchStatus
    from .dispatcher import BatchProvider
    from .options import BATCH_WINDOW, BatchOptions
    from .select import batch_api
    from .state import BatchEvent, BatchStats
