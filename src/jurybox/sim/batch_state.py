"""Batches of the simulated judge, shared by its OpenAI and Anthropic batch endpoints.

A batch is a list of requests (custom_id, body). Each request's fate is planned at creation
from :class:`BatchScript` (run, scripted error, expiry) and its place in the output order is a
seeded shuffle. Nothing runs in the background: the state is computed from the clock on each
look (:meth:`Batch.advance`), and a request is answered (by the judge, through the same
:class:`~jurybox.sim.answering.Answerer` as the online endpoints) when a look finds its end
time passed. The store is in memory, so a client killed and restarted sees the same batches.
"""

from __future__ import annotations

import hashlib
import math
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["BatchScript", "BatchStore", "Batch", "Request", "Outcome", "Api",
           "BATCH_STATS_PATH", "SCRIPTED_ERROR", "listing_limit", "after_cursor"]

#: The batch counters (:meth:`BatchStore.stats`), under the base URL's ``/v1``.
BATCH_STATS_PATH = "/v1/sim/batch_stats"
#: The message of a scripted (``error_rate``) failure.
SCRIPTED_ERROR = "internal server error (simulated batch error)"

Api = Literal["openai", "anthropic"]
Outcome = Literal["processing", "succeeded", "errored", "expired", "canceled"]
Fate = Literal["run", "error", "expire"]


class BatchScript(BaseModel):
    """How the simulated judge's batches behave. Not part of the judge's cache identity:
    a batch line gets the answer the online endpoint gives for the same body.

    Attributes:
        delay_s: seconds a batch stays in progress after its creation; its requests end one
            after another, evenly spread over that time (counts rise linearly), then it ends.
        error_rate: share of a batch's requests that end errored (HTTP 500, message
            :data:`SCRIPTED_ERROR`): exactly ``round(error_rate * n)`` of its ``n`` requests,
            chosen by a hash of (seed, custom_id, how many times that custom_id was submitted
            before), so a resubmission rolls again.
        expire_share: share of a batch's requests not run, coming back expired (chosen as
            ``error_rate``'s, first; together at most 1).
        reject: every batch is refused (OpenAI: status ``failed`` at validation; Anthropic:
            HTTP 400 at creation).
        seed: seeds the choices above and the output order.
        cancel_s: seconds a cancelled batch stays ``cancelling`` (Anthropic ``canceling``)
            before it ends.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    delay_s: float = Field(0.5, ge=0, le=86_400)
    error_rate: float = Field(0.0, ge=0, le=1)
    expire_share: float = Field(0.0, ge=0, le=1)
    reject: bool = False
    seed: int = Field(0, ge=0)
    cancel_s: float = Field(0.1, ge=0, le=3600)

    @model_validator(mode="after")
    def _shares_fit(self) -> BatchScript:
        if self.error_rate + self.expire_share > 1 + 1e-12:
            raise ValueError(f"error_rate + expire_share must be at most 1, got "
                             f"{self.error_rate + self.expire_share:g}")
        return self


def _roll(*parts: object) -> int:
    """A 64-bit integer from a hash of ``parts``."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _share(rate: float, n: int) -> int:
    """``rate * n`` rounded half up (exact shares: 0.25 of 10 is 3)."""
    return math.floor(rate * n + 0.5)


@dataclass(eq=False)
class Request:
    """One request of a batch: its custom_id, body (``body`` of an OpenAI input line, or an
    Anthropic ``params``), attempt key, planned fate, end (seconds after the batch's creation),
    and once ended its outcome, HTTP status and response body (None: not run)."""

    custom_id: str
    body: dict[str, Any]
    key: str
    fate: Fate
    end_s: float
    outcome: Outcome = "processing"
    status: int = 0
    reply: dict[str, Any] | None = None


#: Answers one request: (HTTP status, JSON body); 200 is a success.
Runner = Callable[[Request], tuple[int, dict[str, Any]]]


@dataclass(eq=False)
class Batch:
    """A batch: ``requests`` in output order (a seeded shuffle), all times in seconds since
    the epoch. ``errors``: validation errors of a refused OpenAI batch (it has no requests).
    ``extra``: what only one API's endpoints use (OpenAI's input file, endpoint, metadata,
    output files)."""

    id: str
    api: Api
    created: float
    delay_s: float
    cancel_s: float
    requests: list[Request]
    run: Runner
    errors: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    cancel_at: float | None = None
    _runnable: list[Request] = field(default_factory=list)  # by end time
    _next: int = 0
    _settled: bool = False  # the planned expiries are done

    def __post_init__(self) -> None:
        self._runnable = sorted((r for r in self.requests if r.fate != "expire"),
                                key=lambda r: r.end_s)

    @property
    def ends_at(self) -> float:
        """When processing ends: its delay after creation, or ``cancel_s`` after a cancel."""
        if self.cancel_at is not None:
            return self.cancel_at + self.cancel_s
        return self.created + self.delay_s

    def advance(self, now: float) -> None:
        """Answer the requests whose end time is past (before any cancel); at the end,
        the requests planned to expire expire."""
        limit = now if self.cancel_at is None else min(now, self.cancel_at)
        while (self._next < len(self._runnable)
               and self.created + self._runnable[self._next].end_s <= limit):
            request = self._runnable[self._next]
            self._next += 1
            request.status, request.reply = self.run(request)
            request.outcome = "succeeded" if request.status == 200 else "errored"
        if self.cancel_at is None and now >= self.ends_at and not self._settled:
            self._settled = True
            for request in self.requests:
                if request.outcome == "processing":
                    request.outcome = "expired"

    def cancel(self, now: float) -> None:
        """Cancel at ``now``: the requests not ended by then are canceled."""
        self.advance(now)
        if self.cancel_at is not None or now >= self.ends_at:
            return
        self.cancel_at = now
        for request in self.requests:
            if request.outcome == "processing":
                request.outcome = "canceled"

    def ended(self, now: float) -> bool:
        """Whether processing has ended at ``now``; the batch is advanced to ``now`` first,
        so an ended batch never holds a request still processing (a handler that advanced
        it at an earlier clock reading, then asks at a later one past the end, sees every
        request ended)."""
        self.advance(now)
        return not self.errors and now >= self.ends_at

    def counts(self) -> Counter[str]:
        """Requests by outcome (``processing`` included)."""
        return Counter(r.outcome for r in self.requests)


@dataclass
class _Stats:
    batches_created: int = 0
    requests_submitted: int = 0
    resubmitted: int = 0


class BatchStore:
    """Every batch the server was given, both APIs, in memory.

    Args:
        script: how batches behave.
        clock: seconds since the epoch (``time.time``; tests pass their own).
    """

    def __init__(self, script: BatchScript | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.script = script or BatchScript()
        self.clock = clock
        self.batches: dict[str, Batch] = {}
        # custom_id -> every submission of it, oldest first, with its batch
        self._submitted: dict[str, list[tuple[Batch, Request]]] = {}
        self._stats = _Stats()

    def create(self, api: Api, prefix: str, requests: Sequence[tuple[str, dict[str, Any], str]],
               run: Runner, *, errors: Sequence[dict[str, Any]] = (),
               extra: dict[str, Any] | None = None) -> Batch:
        """A new batch of ``requests`` (custom_id, body, attempt key); with ``errors`` a
        refused batch without requests. Its id is ``prefix`` and a random hex string."""
        now, script = self.clock(), self.script
        self._stats.batches_created += 1
        planned = [] if errors else self._plan(requests, now)
        batch = Batch(f"{prefix}{uuid.uuid4().hex[:24]}", api, now, script.delay_s,
                      script.cancel_s, planned, run, list(errors), dict(extra or {}))
        for request in planned:
            self._submitted.setdefault(request.custom_id, []).append((batch, request))
        self.batches[batch.id] = batch
        return batch

    def _plan(self, requests: Sequence[tuple[str, dict[str, Any], str]],
              now: float) -> list[Request]:
        script = self.script
        rolls = []
        for custom_id, _body, _key in requests:
            earlier = self._submitted.get(custom_id, [])
            self._stats.requests_submitted += 1
            self._stats.resubmitted += any(self._paid(b, r, now) for b, r in earlier)
            rolls.append((custom_id, script.seed, len(earlier)))
        n = len(requests)
        by_expiry = sorted(range(n), key=lambda i: _roll("expire", *rolls[i]))
        expire = set(by_expiry[:_share(script.expire_share, n)])
        by_error = sorted((i for i in range(n) if i not in expire),
                          key=lambda i: _roll("error", *rolls[i]))
        error = set(by_error[:_share(script.error_rate, n)])
        order = sorted(range(n), key=lambda i: _roll("order", *rolls[i]))
        runnable = [i for i in order if i not in expire]
        end = {i: script.delay_s * (k + 1) / len(runnable) for k, i in enumerate(runnable)}
        return [Request(requests[i][0], requests[i][1], requests[i][2],
                        "expire" if i in expire else "error" if i in error else "run",
                        end.get(i, script.delay_s)) for i in order]

    def _paid(self, batch: Batch, request: Request, now: float) -> bool:
        """Whether an earlier submission is still in progress or succeeded."""
        batch.advance(now)
        return request.outcome in ("processing", "succeeded")

    def get(self, batch_id: str, api: Api) -> Batch | None:
        """The batch of that API, advanced to now; None if there is none."""
        batch = self.batches.get(batch_id)
        if batch is None or batch.api != api:
            return None
        batch.advance(self.clock())
        return batch

    def newest_first(self, api: Api) -> list[Batch]:
        """That API's batches, newest first (each advanced to now)."""
        now = self.clock()
        found = [b for b in reversed(self.batches.values()) if b.api == api]
        for batch in found:
            batch.advance(now)
        return found

    def stats(self, *, detail: bool = False) -> dict[str, Any]:
        """``{batches_created, requests_submitted, distinct_custom_ids, resubmitted}``;
        ``resubmitted`` counts submissions of a custom_id while an earlier submission of it
        was in progress or had succeeded (paid twice); ``detail`` adds ``submissions``
        (custom_id -> how many times submitted). Both APIs count, in one custom_id space;
        a refused batch counts as created, its requests not as submitted."""
        out: dict[str, Any] = {"batches_created": self._stats.batches_created,
                               "requests_submitted": self._stats.requests_submitted,
                               "distinct_custom_ids": len(self._submitted),
                               "resubmitted": self._stats.resubmitted}
        if detail:
            out["submissions"] = {cid: len(subs) for cid, subs in self._submitted.items()}
        return out


def listing_limit(query: Mapping[str, str], most: int) -> int | None:
    """A batch listing's ``?limit=`` (default 20), a whole number from 1 to ``most``; None when
    it is not one (the endpoint answers 400 in its provider's words)."""
    try:
        limit = int(query.get("limit", "20"))
    except ValueError:
        return None
    return limit if 1 <= limit <= most else None


def after_cursor(batches: list[Batch], after: str | None) -> list[Batch]:
    """The batches listed after the one ``after`` names (all of them when None, none when it
    names no batch of the list)."""
    if after is None:
        return batches
    ids = [b.id for b in batches]
    return batches[ids.index(after) + 1:] if after in ids else []
