"""What the runner reports: one record per model call, one outcome per job, running totals."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import (BaseModel, SerializerFunctionWrapHandler, ValidationError, field_validator,
                      model_serializer)

from ..providers import TokenLogprob, Usage
from ..providers.read import repair_text
from ..providers.urls import redact_text

__all__ = ["CallRecord", "Failure", "FailureKind", "Outcome", "Totals"]

T = TypeVar("T")
FailureKind = Literal["api", "parse", "refusal"]


class CallRecord(BaseModel):
    """One model call as written to calls.jsonl.

    Attributes:
        key: the cache key of the request.
        meta: the job's metadata (item, protocol, permutation ...), plus ``reask`` = 0/1.
        text: raw text the endpoint returned ('' on API failure).
        cached: True when served from the cache (no model call made).
        usage, latency_s: from the endpoint (latency of the successful attempt); a usage the
            endpoint reported wrongly says so (``usage.invalid``) and is not counted.
        finish_reason: the endpoint's finish reason (``"length"``: cut off at max_tokens).
        attempts: HTTP attempts made (0 when cached).
        error: the final API error message, or None.
        parse_error: why the text could not be used, or None.
        messages: the rendered conversation sent, ``[role, content]`` pairs: exactly what the
            judge was shown (a re-ask includes the first answer and the follow-up).
        answer_format: the structured-output mode asked for (``json-schema``,
            ``json-object``), or None for free text.
        format_refused: the server refused that structured-output field (the call is sent
            again with a lower mode when the run's ``--structured`` is ``auto``).
        repaired: what was changed in the endpoint's text so it could be stored (lone
            surrogates replaced by U+FFFD), or None.
        outcome: how this call ended its job: ``ok``, or the failure kind (``api``,
            ``parse``, ``refusal``); None when the job goes on (a re-ask or a lower
            structured-output mode follows). Totals are derived from these records
            (:meth:`Totals.add`), so a run's totals always equal what calls.jsonl logged.
        batch: the call was answered through the provider's batch API, billed at the batch
            rate (False for a cache hit: no call was made). Written to calls.jsonl only when
            True, so an online run's lines are as before (a line without it is online).
        asked_again: the cache held an answer to this request that could not be used (it
            failed to parse, or was cut off at the token limit), so the endpoint was asked
            again and this answer replaced it (a failure is never served from the cache).
            Written to calls.jsonl only when True.
        logprobs: the answer's tokens with their log-probabilities, when the request asked
            for them and the endpoint returned them; written to calls.jsonl only then.
    """

    key: str
    meta: dict[str, Any]
    text: str = ""
    cached: bool = False
    usage: Usage = Usage()
    latency_s: float = 0.0
    finish_reason: str | None = None
    attempts: int = 0
    error: str | None = None
    parse_error: str | None = None
    messages: list[tuple[str, str]] = []
    answer_format: str | None = None
    format_refused: bool = False
    repaired: str | None = None
    outcome: Literal["ok", "api", "parse", "refusal"] | None = None
    batch: bool = False
    asked_again: bool = False
    logprobs: tuple[TokenLogprob, ...] | None = None

    @model_serializer(mode="wrap")
    def _online_unmarked(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave ``batch``, ``asked_again`` and ``logprobs`` out when unset (see the class
        docstring)."""
        data: dict[str, Any] = handler(self)
        for name in ("batch", "asked_again", "logprobs"):
            if not data.get(name):
                data.pop(name, None)
        return data

    @field_validator("error", "parse_error")
    @classmethod
    def _encodable(cls, value: str | None) -> str | None:
        """Messages quote what an endpoint sent: lone surrogates in them become U+FFFD so
        calls.jsonl can always be written."""
        return None if value is None else repair_text(value)[0]

    @field_validator("error")
    @classmethod
    def _no_secrets(cls, value: str | None) -> str | None:
        """An API error may quote the request's URL: shown without its secrets."""
        return None if value is None else redact_text(value)


@dataclass(frozen=True)
class Failure:
    """A call that produced no usable judgment (never a score)."""

    kind: FailureKind
    message: str
    raw: str = ""


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """The result of one job: a parsed value or a failure, never both."""

    value: T | None
    failure: Failure | None
    key: str
    #: the answer's token log-probabilities (a usable answer whose request asked for them)
    logprobs: tuple[TokenLogprob, ...] | None = None
    #: the answer's text (a usable answer), where a protocol reads more than ``value``
    text: str = ""

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass
class Totals:
    """Counters over call records (for run.json and the summary), derived only from the
    records: :meth:`add` one record at a time, so totals rebuilt from calls.jsonl after a crash
    (:meth:`of_records`) equal those a live run kept.

    Attributes:
        jobs: judgments asked for (records that ended a job).
        model_calls: HTTP attempts made (sum of ``attempts``; 0 for cache hits).
        cache_hits: answers served from the cache or from an identical call in flight.
        retries: attempts after the first of a call (``attempts - 1`` summed).
        reasks: follow-ups after unusable output.
        failures: jobs that ended without a judgment, by kind.
        prompt_tokens, completion_tokens: reported by the endpoint for calls made (not hits).
        cached_tokens: of those prompt tokens, the ones the provider served from its prefix
            cache (when it reports them).
        invalid_usage: calls made whose reported usage was not counted (``usage.invalid``: a
            count that is not an integer >= 0), so the token totals leave them out.
        batch_calls: calls made through a batch API (``batch``; cache hits never count).
        batch_prompt_tokens, batch_completion_tokens: of ``prompt_tokens`` and
            ``completion_tokens``, those of batch calls (billed at the batch rate); the rest
            are online.
        cached_failures_asked: calls made because the cache's answer to the request could
            not be used (``asked_again``): a failure is never served from the cache.
    """

    jobs: int = 0
    model_calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    reasks: int = 0
    failures: dict[str, int] = field(default_factory=lambda: {"api": 0, "parse": 0, "refusal": 0})
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    invalid_usage: int = 0
    batch_calls: int = 0
    batch_prompt_tokens: int = 0
    batch_completion_tokens: int = 0
    cached_failures_asked: int = 0

    def add(self, record: CallRecord) -> None:
        """Count one call record."""
        if record.outcome is not None:
            self.jobs += 1
            if record.outcome != "ok":
                self.failures[record.outcome] = self.failures.get(record.outcome, 0) + 1
        elif not record.format_refused:
            self.reasks += 1
        self.model_calls += record.attempts
        self.retries += max(record.attempts - 1, 0)
        self.cached_failures_asked += record.asked_again
        if record.cached:
            self.cache_hits += 1
            return
        self.batch_calls += record.batch
        if record.usage.invalid is not None:
            self.invalid_usage += 1
            return
        self.prompt_tokens += record.usage.prompt_tokens
        self.completion_tokens += record.usage.completion_tokens
        self.cached_tokens += record.usage.cached_tokens
        if record.batch:
            self.batch_prompt_tokens += record.usage.prompt_tokens
            self.batch_completion_tokens += record.usage.completion_tokens

    @classmethod
    def of_records(cls, records: Iterable[dict[str, Any]]) -> Totals:
        """Totals of calls.jsonl records (dicts as written; other fields are ignored).

        Records written before ``outcome`` existed count as calls and cache hits only."""
        totals = cls()
        for row in records:
            totals.add_record(row)
        return totals

    def add_record(self, row: dict[str, Any]) -> None:
        """Count one calls.jsonl record (a dict as written; see :meth:`of_records`). A usage
        that is not an object of counts (a hand-edited file) counts as invalid usage."""
        fields = {k: row[k] for k in _COUNTED if k in row} | {"key": "", "meta": {}}
        try:
            record = CallRecord.model_validate(fields)
        except ValidationError:
            record = CallRecord.model_validate(
                fields | {"usage": {"invalid": "not a usage object"}})
        self.add(record)

    def as_dict(self) -> dict[str, Any]:
        return {"jobs": self.jobs, "model_calls": self.model_calls,
                "cache_hits": self.cache_hits, "retries": self.retries, "reasks": self.reasks,
                "failures": dict(self.failures), "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cached_tokens": self.cached_tokens,
                **({"invalid_usage": self.invalid_usage} if self.invalid_usage else {}),
                **({"batch_calls": self.batch_calls,
                    "batch_prompt_tokens": self.batch_prompt_tokens,
                    "batch_completion_tokens": self.batch_completion_tokens}
                   if self.batch_calls else {}),
                **({"cached_failures_asked": self.cached_failures_asked}
                   if self.cached_failures_asked else {})}


_COUNTED = ("cached", "usage", "attempts", "format_refused", "outcome", "batch", "asked_again")
