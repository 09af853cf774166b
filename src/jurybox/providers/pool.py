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
  retryable error (refused connection, 5xx, 429, timeout) cools down for :data:`COOLDOWN_S`
  seconds (or the server's Retry-After, if longer), doubling at each new cooldown up to
  :data:`MAX_COOLDOWN_S` (failures of calls already in flight when it began are the same
  outage: they start none); then one call at a time probes it: a success brings it back, a
  failure starts the next cooldown at once. A failed call is raised to the runner, whose
  next attempt (the same attempts budget) goes to another healthy replica: the item moves
  there, and the replica's Retry-After is not waited for while another replica is healthy.
  When every replica cools down, calls go to the one that is back soonest. A replica whose
  server has exited (the local judge: :class:`~jurybox.errors.EndpointGoneError`) is out for
  the rest of the run; the run stops only when every replica is gone (or, as for one
  endpoint, after the runner's ``abort_after`` calls in a row failed).
- **One model.** :meth:`PoolProvider.check` checks every replica and compares what their
  ``GET /models`` list (where a server lists them): a replica that does not list the model
  the others list, or lists other models, is named in one ConfigError before any call.
- **Capacity.** A replica may take at most ``max_concurrency`` calls at once (its own
  limit, or the provider's, as the local judge's 1); calls beyond wait for it, and count
  toward its load, so the two choices send new items elsewhere.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ConfigError, EndpointGoneError, ProviderError, RetryableProviderError
from .base import ChatRequest, ChatResponse, Provider
from .listing import odd_replica
from .replicas import (COOLDOWN_S, FAIL_THRESHOLD, MAX_COOLDOWN_S, Replica, ReplicaStats,
                       name_replica, shown_url)

__all__ = ["AFFINITY", "COOLDOWN_S", "FAIL_THRESHOLD", "MAX_COOLDOWN_S", "PoolProvider",
           "ReplicaStats", "odd_replica"]

#: The item the current call belongs to (set by the engine for each item; None: no affinity).
AFFINITY: contextvars.ContextVar[str | None] = contextvars.ContextVar("jurybox_affinity",
                                                                       default=None)
#: Items whose replica is remembered (oldest forgotten first).
AFFINITY_SIZE = 100_000


class PoolProvider:
    """A :class:`~jurybox.providers.Provider` over replicas of one model.

    Args:
        replicas: the replicas' providers (at least one; the same provider kind and model).
        weights: relative capacity per replica (default 1 each), finite and > 0.
        limits: most calls in flight per replica (None for a replica: its provider's own
            ``max_concurrency``, else no limit).
        rng: random generator for the two choices (seeded in tests).
        clock: monotonic seconds (tests pass their own).

    Raises:
        ConfigError: no replica, replicas of different models or providers, a bad weight or
            limit.
    """

    def __init__(self, replicas: Sequence[Provider], *, weights: Sequence[float] | None = None,
                 limits: Sequence[int | None] | None = None, rng: random.Random | None = None,
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
                                  f"{shown_url(r)} is {r.name}/{r.model}, {shown_url(first)} is "
                                  f"{first.name}/{first.model}")
        limits = list(limits) if limits is not None else [None] * len(replicas)
        if len(limits) != len(replicas) or not all(
                x is None or (isinstance(x, int) and x >= 1) for x in limits):
            raise ConfigError(f"replica limits must be integers >= 1 (or None), one per "
                              f"replica; got {limits!r}")
        limits = [x if x is not None else getattr(p, "max_concurrency", None)
                  for x, p in zip(limits, replicas)]
        self._replicas = [Replica(p, float(w), x) for p, w, x in zip(replicas, weights, limits)]
        self.name, self.model, self.simulated = first.name, first.model, first.simulated
        self.label: str | None = getattr(first, "label", None)
        self.max_concurrency: int | None = (None if any(x is None for x in limits)
                                            else sum(x for x in limits if x is not None))
        self._rng, self._clock = rng or random.Random(), clock
        self._affinity: OrderedDict[str, Replica] = OrderedDict()
        self._items = 0  # items the pool has seen
        self._moved = 0  # of those, items whose calls went to several replicas
        # an item's first replica, and whether a call of it went elsewhere
        self._first: OrderedDict[str, tuple[Replica, bool]] = OrderedDict()

    def cache_identity(self) -> dict[str, Any]:
        """The first replica's identity without its base URL: the model, not the address."""
        identity = self._replicas[0].provider.cache_identity()
        return {k: v for k, v in identity.items() if k != "base_url"}

    async def check(self) -> None:
        """Check every replica (at once), then that they serve one model.

        Raises:
            ProviderError: a replica cannot be reached or refuses (the first such, its
                message naming it, its place in the pool and how many failed: a pool starts
                with every replica answering).
            ConfigError: a replica lists other models than the rest (:func:`odd_replica`),
                or is another judge than the first (simulated among real servers, or another
                cache identity beyond the URL).
        """
        results = await asyncio.gather(*(r.provider.check() for r in self._replicas),
                                       return_exceptions=True)
        failed = [(n, e) for n, e in enumerate(results, 1) if isinstance(e, BaseException)]
        for _, exc in failed:
            if not isinstance(exc, ProviderError):
                raise exc
        if failed:
            (number, first), total = failed[0], len(self._replicas)
            assert isinstance(first, ProviderError)
            more = f" ({len(failed)} of {total} failed)" if len(failed) > 1 else ""
            raise ProviderError(f"replica {number} of {total}{more}: {first}; a pool's "
                                f"replicas must all answer when the run starts: start it, or "
                                f"leave it out of the pool", status=first.status)
        self.simulated = self._replicas[0].provider.simulated
        problem = odd_replica(self.model, [(r.stats.url, getattr(r.provider, "listed", None))
                                           for r in self._replicas]) or self._other_judge()
        if problem:
            raise ConfigError(problem)

    def _other_judge(self) -> str | None:
        """Why a replica is another judge than the first (after :meth:`check`): jurybox's
        simulated judge among real servers (or the reverse), or a cache identity that differs
        beyond the URL (a simulated judge knowing other items, another GGUF file); their
        answers would be cached, and reported, as the first one's. None when all are one."""
        first = self._replicas[0]
        identity = self.cache_identity()
        for r in self._replicas[1:]:
            if r.provider.simulated != first.provider.simulated:
                sim, real = (r, first) if r.provider.simulated else (first, r)
                return (f"replica {sim.stats.url} is jurybox's simulated judge and "
                        f"{real.stats.url} is not; the replicas of a pool are one judge")
            other = {k: v for k, v in r.provider.cache_identity().items() if k != "base_url"}
            if other != identity:
                keys = sorted(k for k in set(other) | set(identity)
                              if other.get(k) != identity.get(k))
                return (f"replica {r.stats.url} is another judge than {first.stats.url} "
                        f"({', '.join(keys)} differ{'s' if len(keys) == 1 else ''}); the "
                        f"replicas of a pool are one judge")
        return None

    async def aclose(self) -> None:
        for r in self._replicas:
            await r.provider.aclose()

    def replicas(self) -> list[tuple[Provider, float, int | None]]:
        """The replicas' providers, weights and limits on calls in flight, in the order given
        (the Ray executor rebuilds the pool from them in each actor)."""
        return [(r.provider, r.weight, r.limit) for r in self._replicas]

    def replica_stats(self) -> list[dict[str, Any]]:
        """Per replica: calls, failures, mean latency, share of calls, cooldowns."""
        total = sum(r.stats.calls for r in self._replicas)
        return [r.stats.as_dict(total) for r in self._replicas]

    def pool_stats(self) -> dict[str, Any]:
        """For run.json's session: ``replicas`` (:meth:`replica_stats`), ``items`` (items
        whose calls went through the pool) and ``items_on_one_replica`` (of those, the ones
        whose every call went to one replica: item affinity held)."""
        return {"replicas": self.replica_stats(), "items": self._items,
                "items_on_one_replica": self._items - self._moved}

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request`` to the item's replica (or the better of two).

        Raises:
            RetryableProviderError, ProviderError: the replica's error, its message starting
                with the replica's URL as shown (a retryable one also counts toward cooling it
                down; the runner's next attempt is routed again).
        """
        item = AFFINITY.get()
        replica = self._route(item)
        if item is not None:
            self._note(item, replica)
        replica.in_flight += 1
        try:
            slots = replica.slots()
            if slots is None:
                replica.stats.calls += 1
                response = await replica.provider.complete(request)
            else:
                async with slots:
                    replica.stats.calls += 1
                    response = await replica.provider.complete(request)
        except EndpointGoneError as exc:
            replica.stats.failures += 1
            self._gone(replica, item)
            if any(r.until < math.inf for r in self._replicas):
                raise RetryableProviderError(f"{replica.stats.url}: {exc}") from None
            raise  # every replica is gone: the run stops
        except RetryableProviderError as exc:
            replica.stats.failures += 1
            self._failed(replica, exc.retry_after)
            if self._move(item, replica):  # another replica takes the next attempt now
                exc.retry_after = None
            name_replica(exc, replica.stats.url)
            raise
        except BaseException as exc:
            replica.stats.failures += 1
            if isinstance(exc, ProviderError):
                name_replica(exc, replica.stats.url)
            raise
        finally:
            replica.in_flight -= 1
        # healthy again: cooldowns restart
        replica.failed_in_a_row = replica.cooldowns = 0
        replica.probing = False
        replica.stats.latency_s += response.latency_s
        return response

    def _route(self, item: str | None) -> Replica:
        now = self._clock()
        healthy = [r for r in self._replicas if r.open(now)]
        if not healthy:  # every replica cools down: the one back soonest (gone: never)
            return min(self._replicas, key=lambda r: r.until)
        if item is not None:
            kept = self._affinity.get(item)
            if kept is not None and kept.open(now):
                self._affinity.move_to_end(item)
                return kept
        chosen = self._two_choices(healthy)
        if item is not None:
            self._affinity[item] = chosen
            self._affinity.move_to_end(item)
            if len(self._affinity) > AFFINITY_SIZE:
                self._affinity.popitem(last=False)
        return chosen

    def _two_choices(self, healthy: list[Replica]) -> Replica:
        """The less loaded of two replicas drawn by weight (ties: the first drawn)."""
        if len(healthy) == 1:
            return healthy[0]
        top = max(r.weight for r in healthy)  # relative: two weights of 1e308 sum to inf
        weights = [r.weight / top for r in healthy]
        a, b = self._rng.choices(healthy, weights=weights, k=2)
        return b if b.load() < a.load() else a

    def _note(self, item: str, replica: Replica) -> None:
        """Count ``item`` (once) and whether its calls stay on its first replica."""
        seen = self._first.get(item)
        if seen is None:
            self._items += 1
            self._first[item] = (replica, False)
            if len(self._first) > AFFINITY_SIZE:  # an old item: its count stays
                self._first.popitem(last=False)
        elif seen[0] is not replica and not seen[1]:
            self._moved += 1
            self._first[item] = (seen[0], True)

    def _move(self, item: str | None, failed: Replica) -> bool:
        """After ``failed`` failed a call of ``item``: give the item another healthy replica
        (True), or keep it (False: no other is healthy)."""
        now = self._clock()
        others = [r for r in self._replicas if r is not failed and r.open(now)]
        if not others:
            return False
        if item is not None:
            self._affinity[item] = self._two_choices(others)
            self._affinity.move_to_end(item)
        return True

    def _gone(self, replica: Replica, item: str | None) -> None:
        """``replica``'s server exited: it takes no more calls."""
        replica.until, replica.stats.gone = math.inf, True
        self._move(item, replica)

    def _failed(self, replica: Replica, retry_after: float | None) -> None:
        """Count a retryable failure of ``replica`` now (:meth:`Replica.failed`)."""
        replica.failed(self._clock(), retry_after)
