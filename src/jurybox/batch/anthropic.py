"""Anthropic's Message Batches, through the ``anthropic`` SDK's ``messages.batches``.

Wire format (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing):
``POST /v1/messages/batches`` ``{requests: [{custom_id, params}]}`` where ``params`` is a
Messages API body; poll until ``processing_status`` is ``ended``; stream the results, one per
request: ``succeeded`` (with the message), ``errored``, ``canceled`` or ``expired``.
Message batches keep no metadata, so a batch whose id was never journalled (a kill between
creating it and writing its id) is found again by its request count among the batches
created since the journal entry (:meth:`AnthropicBatchAPI.find`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from ..errors import BatchRejectedError, ConfigError, ProviderError, RetryableProviderError
from ..providers import ChatRequest
from ..providers.anthropic import AnthropicProvider
from .api import BatchLimits, BatchResult, BatchStatus, Submitted

__all__ = ["ANTHROPIC_LIMITS", "AnthropicBatchAPI"]

#: Anthropic's limits on one batch: 100,000 requests, 256 MB.
ANTHROPIC_LIMITS = BatchLimits(max_requests=100_000, max_bytes=256 * 1024 * 1024)


class AnthropicBatchAPI:
    """Message Batches of an :class:`~jurybox.providers.anthropic.AnthropicProvider`'s
    client (same key, base URL and timeout)."""

    provider = "anthropic"

    def __init__(self, provider: AnthropicProvider,
                 limits: BatchLimits = ANTHROPIC_LIMITS) -> None:
        self._p, self.limits = provider, limits
        self._batches = provider._client.messages.batches
        self._sdk = provider._anthropic

    def line(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        args = self._p._arguments(request)
        extra = args.pop("extra_body", None) or {}
        return {"custom_id": custom_id, "params": {**args, **extra}}

    async def _call(self, what: str, coro: Any) -> Any:
        """Await an SDK call, its errors mapped as the online provider maps them."""
        sdk = self._sdk
        try:
            return await coro
        except sdk.APIConnectionError as exc:  # a timeout is one
            raise RetryableProviderError(f"{what}: connection failed: {exc}") from None
        except sdk.APIStatusError as exc:
            status, text = exc.status_code, str(exc.message)[:300]
            if status == 429 or status >= 500:
                raise RetryableProviderError(f"{what}: HTTP {status}: {text}",
                                             status=status) from None
            raise ProviderError(f"{what}: HTTP {status}: {text}", status=status) from None

    async def check(self) -> None:
        try:
            await self._call("GET /v1/messages/batches",
                             self._batches.with_raw_response.list(limit=1))
        except RetryableProviderError:
            return
        except ProviderError as exc:
            if exc.status in (404, 405):
                raise ConfigError(f"--batch: {self._p.base_url} has no Message Batches API "
                                  f"(HTTP {exc.status}); drop --batch to judge online") from None
            raise ConfigError(f"--batch: {self._p.base_url} refused the Message Batches "
                              f"API ({exc})") from None

    async def submit(self, lines: list[dict[str, Any]], tag: str,
                     on_file: Callable[[str], None]) -> Submitted:
        try:
            batch = await self._call("POST /v1/messages/batches",
                                     self._batches.create(requests=lines))
        except RetryableProviderError:
            raise
        except ProviderError as exc:
            if exc.status in (400, 413, 422):
                raise BatchRejectedError(f"the batch was refused: {exc}",
                                         status=exc.status) from None
            raise
        return Submitted(str(batch.id))

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._call(f"GET /v1/messages/batches/{batch_id}",
                                 self._batches.retrieve(batch_id))
        return _status(batch)

    async def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        decoder = await self._call(f"GET /v1/messages/batches/{batch_id}/results",
                                   self._batches.results(batch_id))
        async for line in decoder:
            result = _result(line)
            if result is not None:
                yield result

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        page = await self._call("GET /v1/messages/batches", self._batches.list(limit=100))
        for batch in getattr(page, "data", None) or []:
            created = getattr(batch, "created_at", None)
            stamp = getattr(created, "timestamp", None)
            if stamp is None or stamp() < created_after - 5:
                continue
            if _status(batch).total == n_requests:
                return str(batch.id)
        return None

    async def cancel(self, batch_id: str) -> BatchStatus:
        batch = await self._call(f"POST /v1/messages/batches/{batch_id}/cancel",
                                 self._batches.cancel(batch_id))
        return _status(batch)

    async def aclose(self) -> None:
        await self._p.aclose()


def _n(counts: Any, name: str) -> int:
    value = getattr(counts, name, 0)
    return value if isinstance(value, int) and value >= 0 else 0


def _status(batch: Any) -> BatchStatus:
    """A MessageBatch read into a BatchStatus."""
    counts = getattr(batch, "request_counts", None)
    ok, errored, canceled, expired = (_n(counts, k) for k in
                                      ("succeeded", "errored", "canceled", "expired"))
    done = ok + errored + canceled + expired
    state = str(getattr(batch, "processing_status", None) or "unknown")
    return BatchStatus(state=state, ended=state == "ended", done=done,
                       failed=errored + canceled + expired,
                       total=done + _n(counts, "processing"))


def _result(line: Any) -> BatchResult | None:
    """One result line (the SDK's MessageBatchIndividualResponse) as a BatchResult."""
    custom_id, result = getattr(line, "custom_id", None), getattr(line, "result", None)
    if not isinstance(custom_id, str) or result is None:
        return None
    kind = getattr(result, "type", None)
    if kind == "succeeded":
        try:
            answer = AnthropicProvider._response(getattr(result, "message", None), 0.0)
        except ProviderError as exc:
            return BatchResult(custom_id, "errored", error=str(exc), retryable=False)
        return BatchResult(custom_id, "succeeded", answer.model_copy(update={"batch": True}))
    if kind in ("expired", "canceled"):
        return BatchResult(custom_id, kind, error=f"the request was {kind} before it ran")
    error = getattr(getattr(result, "error", None), "error", None)
    error_type = str(getattr(error, "type", "error"))
    message = f"{error_type}: {getattr(error, 'message', '')}".strip()
    return BatchResult(custom_id, "errored", error=message,
                       retryable=error_type in ("api_error", "overloaded_error",
                                                "rate_limit_error"))
