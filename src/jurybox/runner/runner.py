"""Run judge jobs against a provider: bounded concurrency, retries, cache, one re-ask.

The runner never knows what a candidate is: a :class:`Job` is a request, a parse function and
metadata. A failure after the last retry or the re-ask becomes a recorded :class:`Failure`,
never an exception that kills the run.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from ..cache import cache_key
from ..errors import (EndpointGoneError, FormatRefusedError, ParseError, ProviderError,
                      RetryableProviderError)
from ..parsing.budget import MAX_REPLY_CHARS, answer_budget
from ..providers import ChatRequest, ChatResponse, Message, Provider
from .records import CallRecord, Failure, FailureKind, Outcome, Totals
from .retry import RetryPolicy

__all__ = ["AnswerStore", "INLINE_PARSE_CHARS", "Job", "ParserFailed", "REASK_ECHO_CHARS",
           "REASK_JSON", "Runner", "parse_answer", "reask_request"]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: What a re-ask asks for unless the job says otherwise (a JSON answer).
REASK_JSON = "only the JSON object in the format asked for above"
#: Answers longer than this (characters) are parsed in a worker thread (:func:`parse_answer`).
INLINE_PARSE_CHARS = 16_384
#: The most of an unusable answer a re-ask sends back (characters): a longer one is sent as
#: its first and last halves of this with the length left out between them, so a 5 MB answer
#: does not make a 5 MB request (HTTP 413) and the judge still sees how it began and ended.
REASK_ECHO_CHARS = 20_000


class AnswerStore(Protocol):
    """Where answers are looked up before a call: the SQLite ResponseCache, or recorded
    answers being replayed."""

    def get(self, key: str) -> ChatResponse | None: ...

    def put(self, key: str, response: ChatResponse, *, replace: bool = False) -> None: ...


@dataclass(frozen=True)
class Job(Generic[T]):
    """One judgment to obtain.

    Attributes:
        request: what to send.
        parse: turns raw text into a value; raises ParseError when it cannot.
        meta: JSON-able metadata copied into every CallRecord (item id, protocol, ...).
        reask: what a re-ask asks for (see :func:`reask_request`).
    """

    request: ChatRequest
    parse: Callable[[str], T]
    meta: dict[str, Any] = field(default_factory=dict)
    reask: str = REASK_JSON


def reask_request(request: ChatRequest, raw: str, error: str, *,
                  asked: str = REASK_JSON) -> ChatRequest:
    """The follow-up request after unusable output: the conversation, the judge's reply, and
    the validation error with a request to answer again with ``asked`` (the answer format:
    a JSON object unless the job asked for verdict tokens or a result marker). A reply
    longer than :data:`REASK_ECHO_CHARS` is sent back shortened (its start and end)."""
    follow_up = f"Your reply could not be used: {error}. Reply again with {asked}."
    if len(raw) > REASK_ECHO_CHARS:
        half = REASK_ECHO_CHARS // 2
        raw = (f"{raw[:half]}\n[... {len(raw) - 2 * half:,} characters of this reply left "
               f"out ...]\n{raw[-half:]}")
    return request.model_copy(update={"messages": request.messages + (
        Message(role="assistant", content=raw), Message(role="user", content=follow_up))})


class ParserFailed(Exception):
    """A parse function raised something other than ParseError (a bug in it): the answer is
    recorded as a parse failure naming the exception, and not re-asked (the judge cannot fix
    it)."""


async def parse_answer(parse: Callable[[str], T], text: str) -> T:
    """``parse(text)``, off the event loop when ``text`` is long.

    Why both bounds and a thread: jurybox's parsers are linear in the text and refuse texts
    over the answer budget (:data:`jurybox.parsing.extract.MAX_REPLY_CHARS` by default), so
    no parse is unbounded; but at that cap the most hostile shapes still take up to about a
    second of pure Python (a few seconds at 5 MB)
    (``benchmarks/hostile_answers.py``), and on the loop every call in flight would wait
    for it. In a worker thread the loop keeps running: CPython hands the interpreter over
    every ``sys.getswitchinterval()`` (5 ms), so the loop stalls only for the longest single
    C call of the parse (a regex or json pass over the text, tens of milliseconds at the
    cap). A short answer (at most :data:`INLINE_PARSE_CHARS` characters, nearly every
    answer) parses in well under a millisecond, less than a thread hand-off costs, so it is
    parsed in place.

    Raises:
        ParseError: from ``parse``.
        ParserFailed: ``parse`` raised anything else (RecursionError, ValueError, ...).
    """
    try:
        if len(text) <= INLINE_PARSE_CHARS:
            return parse(text)
        return await asyncio.to_thread(parse, text)
    except ParseError:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug in a parser must not end the run
        log.error("the parser failed on an answer of %d characters: %s: %s", len(text),
                  type(exc).__name__, exc)
        log.debug("the parser's traceback", exc_info=True)
        raise ParserFailed(f"the answer could not be read (the parser failed: "
                           f"{type(exc).__name__}: {str(exc)[:200]})") from exc


class _Fetched(NamedTuple):
    """What :meth:`Runner._fetch` found: the record, and whether the cache answered it (not
    an identical call in flight: only a cached answer is asked again when unusable)."""

    record: CallRecord
    stored: bool = False


class Runner:
    """Executes jobs.

    Args:
        provider: the endpoint.
        cache: response cache, or None for none.
        concurrency: most model calls in flight at once (default 16).
        retry: retry policy.
        reask: re-ask once with the validation error when output cannot be parsed.
        on_call: called with every CallRecord (calls.jsonl, progress bar).
        rng: random generator for jitter (seeded in tests).
        abort_after: raise ProviderError when this many calls in a row end in an API failure
            (after their retries) with no success between them: a wrong URL, key or model
            fails every call, and a run should stop rather than record thousands of failures.
            None never aborts. A provider raising
            :class:`~jurybox.errors.EndpointGoneError` (its server process has exited) stops
            the run at once, after recording the call as an API failure.
        offline: never call the provider; a request the cache cannot answer is a recorded
            failure ("no recorded answer"). Replays recorded answers (``jurybox score``).
        on_format_refused: when the server refuses a request's structured-output field, called
            with the request; returns the request to send instead (a lower mode, or none), or
            None to record the refusal as an API failure. The refused call is logged; it is
            neither a failure nor counted against ``abort_after``.
        max_answer_chars: the answer budget: an answer longer than this (characters) is a
            parse failure saying so, unread (:func:`~jurybox.parsing.extract.check_length`).
    """

    def __init__(self, provider: Provider, *, cache: AnswerStore | None = None,
                 concurrency: int = 16, retry: RetryPolicy | None = None, reask: bool = True,
                 on_call: Callable[[CallRecord], None] | None = None,
                 rng: random.Random | None = None, abort_after: int | None = 25,
                 offline: bool = False,
                 on_format_refused: Callable[[ChatRequest], ChatRequest | None] | None = None,
                 max_answer_chars: int = MAX_REPLY_CHARS) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if max_answer_chars < 1:
            raise ValueError(f"max_answer_chars must be >= 1, got {max_answer_chars}")
        self.max_answer_chars = max_answer_chars
        self.provider, self.cache, self.reask = provider, cache, reask
        self.retry = retry or RetryPolicy()
        self.on_call = on_call
        self.totals = Totals()
        self._identity = provider.cache_identity()
        self._slots = asyncio.Semaphore(concurrency)
        self._inflight: dict[str, asyncio.Future] = {}
        self._rng = rng or random.Random()
        self.abort_after, self.offline = abort_after, offline
        self.on_format_refused = on_format_refused
        self._failed_in_a_row = 0
        self._gone: EndpointGoneError | None = None

    async def run(self, job: Job[T]) -> Outcome[T]:
        """Obtain one judgment: cache or endpoint, parse, re-ask once on a parse failure.

        An answer cut off at the token limit (finish_reason ``"length"``) counts as unusable
        whatever it contains: a truncated judgment may end before the judge changed its mind.
        Parsing never raises out of here: a parse function that raises anything but
        ParseError gives a recorded parse failure (:func:`parse_answer`).

        A failure is never served from the cache: a cached answer that cannot be used is a
        miss (not logged, not a cache hit): the endpoint is asked again and its answer
        replaces the cached one (the record says ``asked_again``). Offline (replaying
        recorded answers) a recorded failure stays a recorded failure.
        """
        request, key = job.request, cache_key(self._identity, job.request)
        first_key, reask, fresh = key, 0, False
        while True:
            record, stored = await self._fetch(key, request, {**job.meta, "reask": reask},
                                               fresh=fresh)
            if record.format_refused and self.on_format_refused is not None and (
                    instead := self.on_format_refused(request)) is not None:
                self._emit(record)  # logged: the refusal is part of what happened (no outcome)
                request, key = instead, cache_key(self._identity, instead)
                first_key = key if reask == 0 else first_key
                fresh = False
                continue
            if record.error is not None:
                return self._api_failure(record, first_key)
            self._failed_in_a_row = 0
            try:
                value = await _usable(job, record, self.max_answer_chars)
            except (ParserFailed, ParseError) as exc:
                if stored and not self.offline:
                    log.debug("cached answer %s cannot be used (%s): asking again", key[:12],
                              exc)
                    fresh = True  # a failure is never served from the cache
                    continue
                if isinstance(exc, ParserFailed):
                    record.parse_error, record.outcome = str(exc), "parse"
                    self._emit(record)
                    return Outcome(None, Failure("parse", str(exc), record.text), first_key)
                record.parse_error = str(exc)
                kind: FailureKind = "refusal" if exc.kind == "refusal" else "parse"
                if reask == 0 and self.reask:
                    self._emit(record)  # no outcome: the re-ask follows
                    request = reask_request(request, record.text, str(exc), asked=job.reask)
                    key, reask, fresh = cache_key(self._identity, request), 1, False
                    continue
                record.outcome = kind
                self._emit(record)
                return Outcome(None, Failure(kind, str(exc), record.text), first_key)
            record.outcome = "ok"
            self._emit(record)
            return Outcome(value, None, first_key, record.logprobs, record.text)

    def _api_failure(self, record: CallRecord, first_key: str) -> Outcome[Any]:
        """Record an API failure; stop the run when the endpoint is gone or too many calls
        in a row failed (``abort_after``)."""
        record.outcome = "api"
        self._emit(record)
        self._failed_in_a_row += 1
        if self._gone is not None:  # the server has exited: no call can succeed
            raise self._gone
        if self.abort_after is not None and self._failed_in_a_row >= self.abort_after:
            raise ProviderError(f"stopping: {self._failed_in_a_row} calls in a row failed; "
                                f"last error: {record.error}")
        assert record.error is not None
        return Outcome(None, Failure("api", record.error), first_key)

    def _emit(self, record: CallRecord) -> None:
        self.totals.add(record)
        if self.on_call is not None:
            self.on_call(record)

    async def _fetch(self, key: str, request: ChatRequest, meta: dict, *,
                     fresh: bool = False) -> _Fetched:
        """A CallRecord for ``request``: from the cache, a call already in flight, or the
        endpoint. ``fresh``: the cached answer could not be used: skip the cache, and let
        the endpoint's answer replace it."""
        if not fresh and self.cache is not None and (hit := self.cache.get(key)) is not None:
            return _Fetched(self._record(key, meta, request, hit, cached=True, attempts=0),
                            stored=True)
        if self.offline:
            return _Fetched(_failed(key, meta, request, 0, "no recorded answer for this "
                                                           "request"))
        if key in self._inflight:
            record = await asyncio.shield(self._inflight[key])
            return _Fetched(record.model_copy(update={
                "meta": meta, "cached": True, "attempts": 0, "parse_error": None,
                "outcome": None, "batch": False, "asked_again": False}))
        future = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            record = await self._call(key, request, meta, fresh=fresh)
            future.set_result(record)
            return _Fetched(record)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters see it, nobody else must
            raise
        finally:
            del self._inflight[key]

    async def _call(self, key: str, request: ChatRequest, meta: dict, *,
                    fresh: bool = False) -> CallRecord:
        error = "no attempt made"
        for attempt in range(self.retry.attempts):
            async with self._slots:
                if self._gone is not None:  # the server has exited: stop, nothing to record
                    raise self._gone
                try:
                    response = await self.provider.complete(request)
                except RetryableProviderError as exc:
                    error, retry_after = str(exc), exc.retry_after
                except FormatRefusedError as exc:
                    return _failed(key, meta, request, attempt + 1, str(exc),
                                   format_refused=True)
                except EndpointGoneError as exc:  # recorded, then the run stops (run())
                    self._gone = exc
                    return _failed(key, meta, request, attempt + 1, str(exc))
                except ProviderError as exc:
                    return _failed(key, meta, request, attempt + 1, str(exc))
                except Exception as exc:  # noqa: BLE001 - a bug in a client is a failure too
                    # one line (the traceback only at DEBUG): recorded below as a failure
                    log.error("unexpected %s from %s: %.200s", type(exc).__name__,
                              self.provider.name, exc,
                              exc_info=log.isEnabledFor(logging.DEBUG))
                    return _failed(key, meta, request, attempt + 1,
                                   f"unexpected {type(exc).__name__}: {exc}")
                else:
                    if self.cache is not None:
                        self.cache.put(key, response, replace=fresh)
                    record = self._record(key, meta, request, response, cached=False,
                                          attempts=attempt + 1)
                    record.asked_again = fresh
                    return record
            if attempt + 1 < self.retry.attempts:
                delay = self.retry.delay(attempt, retry_after, self._rng)
                log.debug("retrying %s in %.2fs after: %s", key[:12], delay, error)
                await asyncio.sleep(delay)
        return _failed(key, meta, request, self.retry.attempts,
                       f"gave up after {self.retry.attempts} attempts: {error}")

    def _record(self, key: str, meta: dict, request: ChatRequest, response: ChatResponse, *,
                cached: bool, attempts: int) -> CallRecord:
        return CallRecord(key=key, meta=meta, text=response.text, cached=cached,
                          usage=response.usage, latency_s=response.latency_s,
                          finish_reason=response.finish_reason, attempts=attempts,
                          repaired=response.repaired, batch=response.batch and not cached,
                          logprobs=response.logprobs if request.top_logprobs else None,
                          **_shown(request))


async def _usable(job: Job[T], record: CallRecord, max_chars: int) -> T:
    """The judgment in ``record``'s answer, read within the answer budget ``max_chars``.

    Raises:
        ParseError: the answer cannot be used (cut off at the token limit, or ``job.parse``
            refused it).
        ParserFailed: ``job.parse`` failed (see :func:`parse_answer`).
    """
    if record.finish_reason == "length":
        raise ParseError("the answer was cut off at the token limit (finish_reason "
                         "'length'); answer more briefly", raw=record.text)
    with answer_budget(max_chars):  # the worker thread of a long parse inherits it
        return await parse_answer(job.parse, record.text)


def _shown(request: ChatRequest) -> dict[str, Any]:
    """What a call record keeps of its request: the messages and the structured-output mode."""
    fmt = request.answer_format
    return {"messages": [(m.role, m.content) for m in request.messages],
            "answer_format": None if fmt is None else fmt.mode}


def _failed(key: str, meta: dict, request: ChatRequest, attempts: int, error: str, *,
            format_refused: bool = False) -> CallRecord:
    return CallRecord(key=key, meta=meta, attempts=attempts, error=error,
                      format_refused=format_refused, **_shown(request))
