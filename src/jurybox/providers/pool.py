"""Several replicas of one model as one provider: :class:`PoolProvider`.

- **One judge.** The pool's cache identity is its first replica's without the base URL
  (provider and model, or the local judge's file and sha256): replicas share one cache, and a
  rerun through another pool of the same model is free.
- **Routing.** An item's first call goes to the less loaded (fewer calls in flight, per unit
  of weight) of two replicas drawn at random in proportion to their weights ("the power of
  two choices": Mitzenmacher, "The Power of Two Choices in Randomized Load Balancing", IEEE
  TPDS 12(10), 2001); every later call of the same item (its other orders, a re-ask) goes to
  the same replica while it is healthy, so the replica's prefix cache serves the prompt the
  orders share. The item comes from :data:`AFFINITY`, which the engine sets for each item;
  calls without one are routed one by one.
- **Health.** A replica whose calls fail :data:`FAIL_THRESHOLD` times in a row with a
  retryable error (refused connection, 5xx, 429, timeout) cools down for
  :data:`COOLDOWN_S` seconds (or the server's Retry-After, if longer), doubling at each new
  cooldown up to :data:`MAX_COOLDOWN_S`; then it is tried again (one call probes it back
  in). The failed call is raised to the runner, whose next attempt goes to a healthy replica
  (the same attempts budget). When every replica cools down, calls go to the one that is back
  soonest.
"""

from __future__ import annotations

import contextvars
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, RetryableProviderError
from .base import ChatRequest, ChatResponse, Provider

__all__ = ["AFFINITY", "COOLDOWN_S", "FAIL_THRESHOLD", "MAX_COOLDOWN_S", "PoolProvider",
           "ReplicaStats"]

#: The item the current call belongs to (set by the engine for each item; None: no affinity).
AFFINITY: contextvars.ContextVar[str | None] = contextvars.ContextVar("jurybox_affinity",
                                                                       default=None)
#: Retryable failures in a row after which a replica cools down.
FAIL_THRESHOLD = 3
#: First cooldown, seconds; doubled at each new cooldown of the same replica.
COOLDOWN_S = 5.0
#: Longest cooldown, seconds.
MAX_COOLDOWN_S = 60.0
#: Items whose replica is remembered (oldest forgotten first).
AFFINITY_SIZE = 100_000


@dataclass
class ReplicaStats:
    """One replica's share of a session's work.

    Attributes:
        url: the replica's base URL as shown (no secrets).
        calls: calls sent to it; failures: of those, the ones that raised.
        latency_s: summed latency of its answered calls, seconds.
        cooldowns: times it was cooled down.
    """

    url: str
    calls: int = 0
    failures: int = 0
    latency_s: float = 0.0
    cooldowns: int = 0

    def as_dict(self, total_calls: int) -> dict[str, Any]:
        """For run.json: calls, failures, mean latency (s) and share of the pool's calls."""
        answered = self.calls - self.failures
        return {"url": self.url, "calls": self.calls, "failures": self.failures,
                "mean_latency_s": round(self.latency_s / answered, 4) if answered else None,
                "share": round(self.calls / total_calls, 4) if total_calls else 0.0,
                "cooldowns": self.cooldowns}


class _Replica:
    """A replica's provider, weight, load and health."""

    def __init__(self, provider: Provider, weight: float) -> None:
        self.provider, self.weight = provider, weight
        self.in_flight = self.failed_in_a_row = self.cooldowns = 0
        self.until = 0.0  # cooling down until this clock reading
        self.stats = ReplicaStats(str(getattr(provider, "base_url", provider.name)))

    def load(self) -> float:
        return self.in_flight / self.weight


class PoolProvider:
    """A :class:`~jurybox.providers.Provider` over replicas of one model.

    Args:
        replicas: the replicas' providers (at least one; the same provider kind and model).
        weights: relative capacity per replica (default 1 each), finite and > 0.
        rng: random generator for the two choices (seeded in tests).
        clock: monotonic seconds (tests pass their own).

    Raises:
        ConfigError: no replica, replicas of different models or providers, or a bad weight.
    """

    def __init__(self, replicas: Sequence[Provider], *, weights: Sequence[float] | None = None,
                 rng: random.Random | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not replicas:
            raise ConfigError("an endpoint pool needs at least one replica")
        weights = list(weights) if weights is not None else [1.0] * len(replicas)
        if len(weights) != len(replicas) or not all(
                isinstance(w, (int, float)) and 0 < w < float("inf") for w in weights):
            raise ConfigError(f"replica weights must be finite numbers > 0, one per replica; "
                              f"got {weights!r}")
        first = replicas[0]
        for r in replicas[1:]:
            if (r.name, r.model) != (first.name, first.model):
                raise ConfigError(f"the replicas of a pool serve one model: "
                                  f"{_shown(r)} is {r.name}/{r.model}, {_shown(first)} is "
                                  f"{first.name}/{first.model}")
        self._replicas = [_Replica(p, float(w)) for p, w in zip(replicas, weights)]
        self.name, self.model, self.simulated = first.name, first.model, first.simulated
        self.label: str | None = getattr(first, "label", None)
        limits = [getattr(p, "max_concurrency", None) for p in replicas]
        self.max_concurrency: int | None = (None if any(x is None for x in limits)
                                            else sum(x for x in limits if x is not None))
        self._rng, self._clock = rng or random.Random(), clock
        self._affinity: OrderedDict[str, _Replica] = OrderedDict()

    def cache_identity(self) -> dict[str, Any]:
        """The first replica's identity without its base URL: the model, not the address."""
        identity = self._replicas[0].provider.cache_identity()
        return {k: v for k, v in identity.items() if k != "base_url"}

    async def check(self) -> None:
        for r in self._replicas:
            await r.provider.check()
        self.simulated = self._replicas[0].provider.simulated

    async def aclose(self) -> None:
        for r in self._replicas:
            await r.provider.aclose()

    def replicas(self) -> list[tuple[Provider, float]]:
        """The replicas' providers and weights, in the order given (the Ray executor rebuilds
        the pool from them in each actor)."""
        return [(r.provider, r.weight) for r in self._replicas]

    def replica_stats(self) -> list[dict[str, Any]]:
        """Per replica: calls, failures, mean latency, share of calls, cooldowns."""
        total = sum(r.stats.calls for r in self._replicas)
        return [r.stats.as_dict(total) for r in self._replicas]

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request`` to the item's replica (or the better of two).

        Raises:
            RetryableProviderError, ProviderError: the replica's error (a retryable one also
                counts toward cooling it down; the runner's next attempt is routed again).
        """
        replica = self._route(AFFINITY.get())
        replica.in_flight += 1
        replica.stats.calls += 1
        try:
            response = await replica.provider.complete(request)
        except RetryableProviderError as exc:
            replica.stats.failures += 1
            self._failed(replica, exc.retry_after)
            raise
        except BaseException:
            replica.stats.failures += 1
            raise
        finally:
            replica.in_flight -= 1
        replica.failed_in_a_row = replica.cooldowns = 0  # healthy again: cooldowns restart
        replica.stats.latency_s += response.latency_s
        return response

    def _route(self, item: str | None) -> _Replica:
        now = self._clock()
        healthy = [r for r in self._replicas if r.until <= now]
        if not healthy:  # every replica cools down: the one back soonest
            return min(self._replicas, key=lambda r: r.until)
        if item is not None:
            kept = self._affinity.get(item)
            if kept is not None and kept.until <= now:
                self._affinity.move_to_end(item)
                return kept
        chosen = self._two_choices(healthy)
        if item is not None:
            self._affinity[item] = chosen
            self._affinity.move_to_end(item)
            if len(self._affinity) > AFFINITY_SIZE:
                self._affinity.popitem(last=False)
        return chosen

    def _two_choices(self, healthy: list[_Replica]) -> _Replica:
        """The less loaded of two replicas drawn by weight (ties: the first drawn)."""
        if len(healthy) == 1:
            return healthy[0]
        weights = [r.weight for r in healthy]
        a, b = self._rng.choices(healthy, weights=weights, k=2)
        return b if b.load() < a.load() else a

    def _failed(self, replica: _Replica, retry_after: float | None) -> None:
        replica.failed_in_a_row += 1
        if replica.failed_in_a_row < FAIL_THRESHOLD:
            return
        wait = min(MAX_COOLDOWN_S, COOLDOWN_S * 2 ** replica.cooldowns)
        replica.until = self._clock() + max(wait, retry_after or 0.0)
        replica.cooldowns += 1
        replica.stats.cooldowns += 1
        replica.failed_in_a_row = 0


def _shown(provider: Provider) -> str:
    return str(getattr(provider, "base_url", provider.name))
