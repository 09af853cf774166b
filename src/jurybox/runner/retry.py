"""Retry policy: exponential backoff with full jitter, honouring Retry-After."""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait between attempts.

    Attributes:
        attempts: total attempts per call, >= 1 (default 6).
        base_s: backoff scale in seconds; attempt i (0-based) waits uniform(0, base * 2**i),
            capped at ``max_s`` ("full jitter"). 0 disables waiting (tests).
        max_s: cap on one wait, seconds.
        honour_retry_after: wait at least the server's Retry-After.
    """

    attempts: int = 6
    base_s: float = 0.5
    max_s: float = 30.0
    honour_retry_after: bool = True

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {self.attempts}")

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based)."""
        wait = rng.uniform(0, min(self.max_s, self.base_s * 2 ** attempt)) if self.base_s else 0.0
        if self.honour_retry_after and retry_after is not None:
            wait = max(wait, min(retry_after, self.max_s))
        return wait
