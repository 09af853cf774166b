"""The run engine under every judging command: endpoint, cache, run directory, progress."""

from .calls import ItemCalls, ProtocolCalls
from .endpoint import check_endpoint, open_endpoint
from .engine import Engine, Interrupted, RunHooks, RunInfo, RunJob, RunReport, Summary
from .options import (DEFAULT_ABORT_AFTER, DEFAULT_ATTEMPTS, DEFAULT_CONCURRENCY,
                      DEFAULT_STRUCTURED, DEFAULT_TIMEOUT_S, DEFAULT_TRANSPORT, RunOptions)
from .structured import STRUCTURED_MODES, AnswerFormats, StructuredMode

__all__ = ["DEFAULT_ABORT_AFTER", "DEFAULT_ATTEMPTS", "DEFAULT_CONCURRENCY", "DEFAULT_STRUCTURED",
           "DEFAULT_TIMEOUT_S", "DEFAULT_TRANSPORT", "STRUCTURED_MODES", "AnswerFormats",
           "Engine", "Interrupted", "ItemCalls", "ProtocolCalls", "RunHooks", "RunInfo",
           "RunJob", "RunOptions", "RunReport", "StructuredMode", "Summary", "check_endpoint",
           "open_endpoint"]
