"""Retry policy: exponential backoff with full jitter, honouring Retry-After."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..errors import ConfigError
from ..limits import MAX_ATTEMPTS

__all__ = ["MAX_ATTEMPTS", "RetryPolicy"]



@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait between attempts.

    Attributes:
        attempts: total attempts per call, 1 to :data:`MAX_ATTEMPTS` (default 6).
        base_s: backoff scale in seconds; attempt i (0-based) waits uniform(0, base * 2**i),
            capped at ``max_s`` ("full jitter"). 0 disables waiting (tests).
        max_s: cap on one wait, seconds (finite, >= 0).
        honour_retry_after: wait at least the server's Retry-After.

    Raises:
        ConfigError: attempts outside 1 to MAX_ATTEMPTS; base_s or max_s negative, NaN or
            infinite.
    """

    attempts: int = 6
    base_s: float = 0.5
    max_s: float = 30.0
    honour_retry_after: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.attempts <= MAX_ATTEMPTS:
            raise ConfigError(f"attempts must be between 1 and {MAX_ATTEMPTS}, got "
                             f"{self.attempts:,}")
        for name in ("base_s", "max_s"):
            value = getattr(self, name)
            if not 0 <= value < math.inf:  # NaN fails too
                raise ConfigError(f"{name} must be a finite number of seconds >= 0, got "
                                 f"{value!r}")

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based)."""
        wait = rng.uniform(0, min(self.max_s, self.base_s * 2 ** attempt)) if self.base_s else 0.0
        if self.honour_retry_after and retry_after is not None:
            wait = max(wait, min(retry_after, self.max_s))
        return wait
