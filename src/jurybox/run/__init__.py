"""The run engine under every judging command: endpoint, cache, run directory, progress."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["DEFAULT_ABORT_AFTER", "DEFAULT_ATTEMPTS", "DEFAULT_CONCURRENCY", "DEFAULT_STRUCTURED",
           "DEFAULT_TIMEOUT_S", "DEFAULT_TRANSPORT", "STRUCTURED_MODES", "AnswerFormats",
           "Engine", "Interrupted", "ItemCalls", "ProtocolCalls", "RunHooks", "RunInfo",
           "RunJob", "RunOptions", "RunReport", "StructuredMode", "Summary", "check_endpoint",
           "open_endpoint"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .calls import ItemCalls, ProtocolCalls
    from .endpoint import check_endpoint, open_endpoint
    from .engine import Engine
    from .job import Interrupted, RunHooks, RunInfo, RunJob, RunReport, Summary
    from .options import (DEFAULT_ABORT_AFTER, DEFAULT_ATTEMPTS, DEFAULT_CONCURRENCY,
                          DEFAULT_STRUCTURED, DEFAULT_TIMEOUT_S, DEFAULT_TRANSPORT, RunOptions)
    from .structured import STRUCTURED_MODES, AnswerFormats, StructuredMode
