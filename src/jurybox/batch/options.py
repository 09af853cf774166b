"""How batch mode runs: polling, batch size, what to do with requests a batch did not answer.
Module constants are the defaults, declared once."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

from ..errors import ConfigError

__all__ = ["BATCH_WINDOW", "BatchOptions", "DEFAULT_POLL_MAX_S", "DEFAULT_POLL_S",
           "DEFAULT_QUIET_S", "Fallback"]

#: First wait before polling a batch, seconds (then x1.5 a poll, up to DEFAULT_POLL_MAX_S).
DEFAULT_POLL_S = 10.0
#: Longest wait between two polls of a batch, seconds.
DEFAULT_POLL_MAX_S = 300.0
#: A stage's requests are sent when none has been added for this long, seconds.
DEFAULT_QUIET_S = 1.0
#: Items judged at once in batch mode (a stage of every item in the window is one batch
#: round); memory holds their items, not their answers' texts.
BATCH_WINDOW = 10_000

#: What happens to a request a batch did not answer (expired, canceled, errored): sent in
#: the next batch, or online.
Fallback = Literal["batch", "online"]


@dataclass(frozen=True)
class BatchOptions:
    """Batch mode's settings.

    Attributes:
        poll_s: first wait before polling a batch, seconds (> 0); each poll waits 1.5x the
            last, up to ``poll_max_s``.
        poll_max_s: longest wait between polls, seconds (>= poll_s).
        quiet_s: requests are sent once none has been added for this long (> 0): the
            stage's requests of every item in the window go in one batch round.
        max_requests: most requests in one batch (None: the provider's limit, OpenAI
            50,000, Anthropic 100,000); a larger round is split into several batches.
        max_enqueued_tokens: most prompt tokens (estimated, 4 characters a token) in the
            batches in flight at once (a provider's per-model enqueued-token limit); None:
            no limit.
        fallback: ``batch`` (default): a request a batch did not answer is sent in the next
            batch; ``online``: it is sent online (at the online price).
        files: write each round to batch files in the run directory instead of sending it
            (``--batch-files``: for ``vllm run-batch``; see :mod:`jurybox.batch.files`).

    Raises:
        ConfigError: a value out of range (naming it).
    """

    poll_s: float = DEFAULT_POLL_S
    poll_max_s: float = DEFAULT_POLL_MAX_S
    quiet_s: float = DEFAULT_QUIET_S
    max_requests: int | None = None
    max_enqueued_tokens: int | None = None
    fallback: Fallback = "batch"
    files: bool = False

    def __post_init__(self) -> None:
        for name in ("poll_s", "quiet_s"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ConfigError(f"batch {name} must be a number of seconds > 0, got {value!r}")
        if not (math.isfinite(self.poll_max_s) and self.poll_max_s >= self.poll_s):
            raise ConfigError(f"batch poll_max_s must be >= poll_s ({self.poll_s:g}), got "
                              f"{self.poll_max_s!r}")
        for name in ("max_requests", "max_enqueued_tokens"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int) and value >= 1):
                raise ConfigError(f"batch {name} must be a whole number >= 1, got {value!r}")
        if self.fallback not in get_args(Fallback):
            raise ConfigError(f"--batch-fallback must be one of {', '.join(get_args(Fallback))}"
                              f", got {self.fallback!r}")
