"""One replica of an endpoint pool (:mod:`.pool`): its provider, weight, capacity, load and
health (:class:`Replica`), and its share of the session's work (:class:`ReplicaStats`).

A replica whose calls fail :data:`FAIL_THRESHOLD` times in a row with a retryable error cools
down for :data:`COOLDOWN_S` seconds (or the server's Retry-After, if longer), doubling at each
new cooldown up to :data:`MAX_COOLDOWN_S`; then one call at a time probes it
(:meth:`Replica.failed`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..errors import ProviderError
from .base import Provider

__all__ = ["COOLDOWN_S", "FAIL_THRESHOLD", "MAX_COOLDOWN_S", "Replica", "ReplicaStats",
           "name_replica", "shown_url"]

#: Retryable failures in a row after which a replica cools down.
FAIL_THRESHOLD = 3
#: First cooldown, seconds; doubled at each new cooldown of the same replica.
COOLDOWN_S = 5.0
#: Longest cooldown, seconds.
MAX_COOLDOWN_S = 60.0


@dataclass
class ReplicaStats:
    """One replica's share of a session's work.

    Attributes:
        url: the replica's base URL as shown (no secrets).
        calls: calls sent to it; failures: of those, the ones that raised.
        latency_s: summed latency of its answered calls, seconds.
        cooldowns: times it was cooled down.
        gone: its server exited during the run (it took no call after that).
    """

    url: str
    calls: int = 0
    failures: int = 0
    latency_s: float = 0.0
    cooldowns: int = 0
    gone: bool = False

    def as_dict(self, total_calls: int) -> dict[str, Any]:
        """For run.json: calls, failures, mean latency (s) and share of the pool's calls."""
        answered = self.calls - self.failures
        return {"url": self.url, "calls": self.calls, "failures": self.failures,
                "mean_latency_s": round(self.latency_s / answered, 4) if answered else None,
                "share": round(self.calls / total_calls, 4) if total_calls else 0.0,
                "cooldowns": self.cooldowns, "gone": self.gone}


class Replica:
    """A replica's provider, weight, load and health."""

    def __init__(self, provider: Provider, weight: float, limit: int | None) -> None:
        self.provider, self.weight, self.limit = provider, weight, limit
        self.in_flight = self.failed_in_a_row = self.cooldowns = 0
        self.until = 0.0  # cooling down until this clock reading (inf: gone)
        self.probing = False  # out of a cooldown, not yet answered: one call at a time
        self.stats = ReplicaStats(shown_url(provider))
        self._slots: asyncio.Semaphore | None = None

    def slots(self) -> asyncio.Semaphore | None:
        """Its capacity, made on first use (on the loop that judges)."""
        if self.limit is not None and self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        return self._slots

    def load(self) -> float:
        return self.in_flight / self.weight

    def open(self, now: float) -> bool:
        """It takes a new call: not cooling down, and not probing with a call in flight."""
        return self.until <= now and not (self.probing and self.in_flight)

    def failed(self, now: float, retry_after: float | None) -> None:
        """Count a retryable failure at clock reading ``now``; the third in a row starts a
        cooldown.

        A failure while it already cools down (a call sent before the cooldown began, as the
        calls in flight when its server died, which fail together; or one sent because every
        replica cools down) belongs to the same outage: it starts no new cooldown (each would
        double the wait, up to :data:`MAX_COOLDOWN_S`, for one outage); only a longer
        Retry-After extends the current one. A failed probe (the first call after a cooldown)
        starts the next cooldown at once."""
        if self.until > now:
            if retry_after is not None:
                self.until = max(self.until, now + retry_after)
            return
        self.failed_in_a_row += 1
        if self.failed_in_a_row < FAIL_THRESHOLD and not self.probing:
            return
        wait = min(MAX_COOLDOWN_S, COOLDOWN_S * 2 ** self.cooldowns)
        self.until = now + max(wait, retry_after or 0.0)
        self.cooldowns += 1
        self.stats.cooldowns += 1
        self.failed_in_a_row = 0
        self.probing = True


def name_replica(exc: ProviderError, url: str) -> None:
    """Prefix ``exc``'s message with the replica that raised it (``http://gpu1:8000/v1: HTTP
    503: ...``): calls.jsonl and the run's last error then say which replica failed."""
    if exc.args and isinstance(exc.args[0], str) and not exc.args[0].startswith(f"{url}: "):
        exc.args = (f"{url}: {exc.args[0]}", *exc.args[1:])


def shown_url(provider: Provider) -> str:
    """The provider's base URL with secrets hidden (its name when it has none)."""
    from .urls import redact_url

    return str(redact_url(getattr(provider, "base_url", None)) or provider.name)
