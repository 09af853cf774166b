"""The judge's calls sent to Ray actors: :class:`RayProvider`.

The driver runs the ordinary engine (cache, run directory, lock, resume, parsing, decisions,
reports); only ``complete()`` leaves the process. Each call goes to one of N async actors
(:class:`~jurybox.ray.actor.JudgeActor`), each holding its own copy of the driver's judge
(built from a :class:`~jurybox.ray.recipe.ProviderRecipe`).

- **Item affinity.** The engine names each call's item (:data:`jurybox.providers.pool.AFFINITY`);
  the item goes to the live actor with the highest rendezvous hash of (item, actor) (Thaler
  and Ravishankar, "Using name-based mappings to increase hit rates", IEEE/ACM ToN 6(1),
  1998): every call of an item goes to one actor, and when an actor is lost only its own
  items move. The actor sets AFFINITY again before calling its provider, so an endpoint pool
  inside it keeps the item on one replica too. Calls without an item go to the actor with
  the fewest calls in flight.
- **A lost actor.** Its calls in flight raise Ray's actor errors; each becomes a
  :class:`~jurybox.errors.RetryableProviderError`, so the runner's next attempt (the same
  attempts budget) goes to a live actor. The actor leaves the routing at once and is pinged
  until Ray has restarted it (``max_restarts``), then takes its items back. Answers the driver
  received are in its cache, so none is paid twice. When no actor is left and none is coming
  back, :class:`~jurybox.errors.EndpointGoneError` stops the run (a rerun resumes).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, EndpointGoneError, ProviderError, RetryableProviderError
from ..providers.base import ChatRequest, ChatResponse, Provider
from ..providers.pool import AFFINITY, ReplicaStats
from .actor import JudgeActor, RemoteError
from .cluster import require_ray
from .recipe import ProviderRecipe

__all__ = ["DEFAULT_MAX_RESTARTS", "REVIVE_S", "RayProvider", "actor_for", "merge_pool_stats"]

#: Times Ray restarts a lost actor before it is dropped for good.
DEFAULT_MAX_RESTARTS = 3
#: How long a lost actor is waited for (pinged) before it is dropped, seconds.
REVIVE_S = 60.0
#: Seconds between pings of a lost actor.
PING_EVERY_S = 0.25
#: How long a lost actor answering from its old process must keep answering to be back, s.
STEADY_S = 2.0
#: How long the actors' endpoint pool counts are waited for at the end of a session, s.
STATS_WAIT_S = 10.0

log = logging.getLogger(__name__)


@dataclass
class _Slot:
    """One actor as the driver sees it."""

    index: int
    handle: Any
    live: bool = True
    gone: bool = False  # dropped for good
    calls: int = 0
    lost_calls: int = 0  # calls that raised because the actor was lost
    losses: int = 0  # times the actor was lost
    in_flight: int = 0
    probe: asyncio.Task[None] | None = None
    pid: int | None = None  # the actor's process when last seen working
    generation: int = 0  # times it came back: a late error of an earlier life is ignored


def _score(item: str, index: int) -> int:
    """The rendezvous weight of (item, actor): a stable 64-bit hash."""
    digest = hashlib.blake2b(f"{index}\x00{item}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def actor_for(item: str, live: Sequence[int]) -> int:
    """The actor (of the ``live`` actor numbers, not empty) that judges ``item``: the highest
    rendezvous weight. Stable across runs and processes; when an actor leaves ``live``, only
    its own items move (each to its next choice), and they come back when it returns."""
    return max(live, key=lambda index: _score(item, index))


class RayProvider:
    """A :class:`~jurybox.providers.Provider` whose calls run in Ray actors.

    Args:
        inner: the provider the driver opened (checked and asked for the simulated judge's
            counters here; its cache identity is this provider's, so the cache is shared
            with local runs of the same judge).
        recipe: how each actor builds its own copy of ``inner``.
        actors: number of actors, >= 1.
        concurrency: calls one actor runs at once (its ``max_concurrency``); the runner
            bounds the calls in flight over all actors.
        max_restarts: times Ray restarts a lost actor.
        actor_options: more ``ray.remote`` options for the actors (``num_cpus``,
            ``resources``, ``runtime_env``...).

    Ray must be initialized (:func:`jurybox.ray.cluster.connect`).

    Raises:
        ConfigError: Ray is not installed, or ``actors`` < 1.
    """

    #: the simulated judge's counters (when ``inner`` has them)
    sim_stats: Callable[[], Awaitable[dict[str, Any] | None]]
    #: an endpoint pool's counts for run.json, summed over the actors (when ``inner`` is one)
    pool_stats: Callable[[], Awaitable[dict[str, Any]]]

    def __init__(self, inner: Provider, recipe: ProviderRecipe, *, actors: int = 2,
                 concurrency: int = 16, max_restarts: int = DEFAULT_MAX_RESTARTS,
                 actor_options: dict[str, Any] | None = None) -> None:
        ray = require_ray()
        if actors < 1:
            raise ConfigError(f"--ray-actors must be at least 1, got {actors}")
        self._ray = ray
        self.inner = inner
        self.name, self.model, self.simulated = inner.name, inner.model, inner.simulated
        self.label: str | None = getattr(inner, "label", None)
        self.max_concurrency: int | None = getattr(inner, "max_concurrency", None)
        if hasattr(inner, "sim_stats"):
            self.sim_stats = inner.sim_stats
        if hasattr(inner, "pool_stats"):
            self.pool_stats = self._pool_stats
        #: a lost actor (died, restarting, unreachable: ActorDiedError,
        #: ActorUnavailableError are its kinds)
        self._lost_errors = ray.exceptions.RayActorError
        options: dict[str, Any] = {"max_concurrency": max(1, concurrency),
                                   "max_restarts": max_restarts, "max_task_retries": 0,
                                   "num_cpus": 0, "scheduling_strategy": "SPREAD",
                                   **(actor_options or {})}
        remote = ray.remote(JudgeActor).options(**options)
        self._slots = [_Slot(i, remote.remote(recipe, i)) for i in range(actors)]
        self._closed = False
        #: for run.json's session: where the calls are made (``address``: the cluster joined
        #: by ``--ray-address`` or ``RAY_ADDRESS``; None: a local Ray, or the Ray this
        #: process had already joined)
        self.executor: dict[str, Any] = {"name": "ray", "actors": actors, "address": None}

    # -- the Provider protocol ---------------------------------------------------------------

    def cache_identity(self) -> dict[str, Any]:
        """The driver's judge's identity: a Ray run and a local run share the cache."""
        return self.inner.cache_identity()

    async def check(self) -> None:
        """Check the endpoint from the driver, then from every actor (each builds its judge
        and reaches the endpoint from its own node).

        Raises:
            ProviderError, ConfigError: the endpoint's error, the first actor's that fails
                (its message starts with the actor's number), or an actor that could not
                start (Ray's reason, one line).
        """
        await self.inner.check()
        self.simulated = self.inner.simulated
        answers = await asyncio.gather(*(s.handle.check.remote() for s in self._slots),
                                       return_exceptions=True)
        for slot, answer in zip(self._slots, answers):
            if isinstance(answer, RemoteError):
                error = answer.error()
                error.args = (f"Ray actor {slot.index}: {error}",)
                raise error
            if isinstance(answer, BaseException):
                raise ConfigError(f"Ray actor {slot.index} could not start: "
                                  f"{_reason(answer)}") from None
        pings = await asyncio.gather(*(s.handle.ping.remote() for s in self._slots))
        for slot, ping in zip(self._slots, pings):
            slot.pid = ping["pid"]

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request`` to its item's actor.

        Raises:
            RetryableProviderError: the actor was lost with the call in flight (the next
                attempt goes to a live actor), or the endpoint's own retryable error.
            EndpointGoneError: every actor is lost for good.
            ProviderError: the endpoint's error, or an unexpected one in the actor.
        """
        item = AFFINITY.get()
        slot = await self._route(item)
        slot.calls += 1
        slot.in_flight += 1
        generation = slot.generation
        try:
            answer = await slot.handle.complete.remote(request, item)
        except self._lost_errors as exc:
            slot.lost_calls += 1
            if generation == slot.generation:  # not a late error of the actor's earlier life
                self._lost(slot, exc)
            raise RetryableProviderError(
                f"Ray actor {slot.index} was lost with the call in flight "
                f"({type(exc).__name__}); the call goes to another actor") from None
        except self._ray.exceptions.RayError as exc:
            raise ProviderError(f"Ray failed the call in actor {slot.index}: "
                                f"{_reason(exc)}") from None
        finally:
            slot.in_flight -= 1
        if isinstance(answer, RemoteError):
            raise answer.error()
        return answer

    async def aclose(self) -> None:
        """Close the driver's judge and the actors' connections, then end the actors."""
        try:
            await self.inner.aclose()
            if not self._closed:
                live = [s.handle.aclose.remote() for s in self._slots if s.live]
                await asyncio.wait_for(asyncio.gather(*live, return_exceptions=True), 10)
        except asyncio.TimeoutError:
            pass
        finally:
            self.close()

    def close(self) -> None:
        """End the actors (idempotent; pings of lost actors are cancelled)."""
        if self._closed:
            return
        self._closed = True
        for slot in self._slots:
            if slot.probe is not None:
                slot.probe.cancel()
            try:
                self._ray.kill(slot.handle, no_restart=True)
            except Exception:  # noqa: BLE001 - an actor already gone
                pass

    # -- routing and lost actors -------------------------------------------------------------

    @property
    def handles(self) -> list[Any]:
        """The actors' handles, in order (for tests and benchmarks that stop one)."""
        return [s.handle for s in self._slots]

    def actor_stats(self) -> list[dict[str, Any]]:
        """Per actor: calls sent, calls lost with it, times lost, live or not."""
        return [{"actor": s.index, "calls": s.calls, "lost_calls": s.lost_calls,
                 "losses": s.losses, "live": s.live} for s in self._slots]

    async def _route(self, item: str | None) -> _Slot:
        """The item's live actor (waiting while every actor is lost but one may come back).

        Raises:
            EndpointGoneError: every actor is lost for good.
        """
        while True:
            live = [s for s in self._slots if s.live]
            if live:
                if item is None:
                    return min(live, key=lambda s: s.in_flight)
                chosen = actor_for(item, [s.index for s in live])
                return self._slots[chosen]
            if all(s.gone for s in self._slots):
                raise EndpointGoneError(
                    f"every Ray actor was lost ({len(self._slots)} actors, each restarted up "
                    f"to its limit): the calls not answered are recorded as API failures; "
                    f"rerun the same command to resume")
            await asyncio.sleep(PING_EVERY_S)

    def _lost(self, slot: _Slot, exc: BaseException) -> None:
        """Take ``slot`` out of the routing and ping it until Ray has restarted it."""
        if not slot.live or slot.gone:
            return
        slot.live = False
        slot.losses += 1
        log.warning("Ray actor %d was lost (%s); its items go to the other actors until it "
                    "is back", slot.index, type(exc).__name__)
        slot.probe = asyncio.ensure_future(self._revive(slot))

    async def _revive(self, slot: _Slot) -> None:
        """Ping ``slot`` until it is back (live again) or :data:`REVIVE_S` passes (gone).

        Back means answering from a new process (Ray restarted it), or from its old process
        for :data:`STEADY_S` in a row (it was unreachable for a while, not dead): a process
        that Ray is still ending may answer a ping or two before it dies."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REVIVE_S
        steady_since: float | None = None
        while loop.time() < deadline:
            try:
                ping = await asyncio.wait_for(_awaited(slot.handle.ping.remote()),
                                              max(0.1, deadline - loop.time()))
            except (asyncio.TimeoutError, self._ray.exceptions.RayError):
                steady_since = None
                await asyncio.sleep(PING_EVERY_S)
                continue
            if ping["pid"] == slot.pid:
                steady_since = loop.time() if steady_since is None else steady_since
                if loop.time() - steady_since < STEADY_S:
                    await asyncio.sleep(PING_EVERY_S)
                    continue
            slot.pid, slot.live = ping["pid"], True
            slot.generation += 1
            log.warning("Ray actor %d is back", slot.index)
            return
        slot.gone = True
        log.warning("Ray actor %d did not come back within %g s; it is dropped", slot.index,
                    REVIVE_S)

    async def _pool_stats(self) -> dict[str, Any]:
        """The endpoint pool's counts for run.json (``replicas``, ``items``,
        ``items_on_one_replica``), summed over the live actors (:func:`merge_pool_stats`);
        an actor that does not answer within :data:`STATS_WAIT_S` is left out, and one that
        Ray restarted counts from its restart."""
        live = [s for s in self._slots if s.live and not self._closed]

        async def asked(slot: _Slot) -> dict[str, Any] | None:
            try:
                answer: dict[str, Any] | None = await asyncio.wait_for(
                    _awaited(slot.handle.pool_stats.remote()), STATS_WAIT_S)
            except (asyncio.TimeoutError, self._ray.exceptions.RayError):
                return None
            return answer

        parts = await asyncio.gather(*(asked(s) for s in live))
        return merge_pool_stats([p for p in parts if p is not None])


def merge_pool_stats(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One run.json record of an endpoint pool from the records of the actors' pools
    (:meth:`jurybox.providers.pool.PoolProvider.pool_stats`): per replica (by URL, in the
    order first seen) the sums of ``calls``, ``failures`` and ``cooldowns``, the mean
    latency over every answered call (seconds, 4 decimals; None when none was answered),
    ``share`` of all calls (0-1), ``gone`` if any actor saw its server exit; ``items`` and
    ``items_on_one_replica`` summed (an item is counted by each actor it went to: once, as
    long as its actor was not lost)."""
    merged: dict[str, ReplicaStats] = {}
    items = on_one = 0
    for part in parts:
        items += int(part.get("items") or 0)
        on_one += int(part.get("items_on_one_replica") or 0)
        for row in part.get("replicas") or ():
            m = merged.setdefault(row["url"], ReplicaStats(row["url"]))
            m.calls += row["calls"]
            m.failures += row["failures"]
            m.cooldowns += row.get("cooldowns") or 0
            m.gone = m.gone or bool(row.get("gone"))
            m.latency_s += (row.get("mean_latency_s") or 0.0) * (row["calls"] - row["failures"])
    total = sum(m.calls for m in merged.values())
    replicas = [m.as_dict(total) for m in merged.values()]
    return {"replicas": replicas, "items": items, "items_on_one_replica": on_one}


async def _awaited(ref: Any) -> Any:
    """Await a Ray ObjectRef (a coroutine, for asyncio.wait_for)."""
    return await ref


def _reason(exc: BaseException) -> str:
    """A Ray error's reason on one line: the last line that says something."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[-1] if lines else type(exc).__name__)[:300]
