"""OpenAI's Batch API (and any OpenAI-compatible server serving ``/v1/files`` and
``/v1/batches``), over the provider's own aiohttp session.

Wire format (https://platform.openai.com/docs/guides/batch): input lines ``{custom_id,
method: "POST", url: "/v1/chat/completions", body}`` uploaded with ``POST /files``
(``purpose=batch``); ``POST /batches`` ``{input_file_id, endpoint, completion_window: "24h",
metadata}``; ``GET /batches/{id}`` until ``completed``, ``expired``, ``failed`` or
``cancelled``; the answers in ``output_file_id`` (``{custom_id, response: {status_code,
body}}``), the failures in ``error_file_id`` (a failed request's ``response``, or ``error:
{code: "batch_expired" | "batch_cancelled", ...}`` for one never run).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp

from ..errors import (BatchRejectedError, ConfigError, ProviderError, RetryableProviderError,
                      TimeoutError_)
from ..providers import ChatRequest, OpenAICompatibleProvider
from ..providers.responses import error_text, raise_for_status, read_limited
from ..providers.urls import redact_text
from .api import BatchLimits, BatchResult, BatchStatus, ResultKind, Submitted

__all__ = ["OPENAI_LIMITS", "OpenAIBatchAPI", "TAG_FIELD"]

#: OpenAI's limits on one batch: 50,000 requests, a 200 MB input file.
OPENAI_LIMITS = BatchLimits(max_requests=50_000, max_bytes=200 * 1024 * 1024)
#: The batch metadata field holding the journal's id for the batch (found again after a kill).
TAG_FIELD = "jurybox_batch"
#: States after which a batch no longer changes.
_ENDED = frozenset({"completed", "expired", "failed", "cancelled"})
#: Largest output or error file read, bytes (a batch's answers: 50,000 answers of ~20 KB).
MAX_FILE_BYTES = 2 * 1024 * 1024 * 1024


class OpenAIBatchAPI:
    """The Batch API of an OpenAI-compatible provider.

    Args:
        provider: the endpoint (its base URL, key and session are used).
        limits: per-batch limits (default OpenAI's).
    """

    def __init__(self, provider: OpenAICompatibleProvider,
                 limits: BatchLimits = OPENAI_LIMITS) -> None:
        self._p, self.provider, self.limits = provider, provider.name, limits

    def line(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
                "body": self._p._payload(request)}

    async def _send(self, method: str, path: str, **kwargs: Any) -> bytes:
        """The body of a 2xx answer to ``method path`` (under the base URL).

        Raises:
            RetryableProviderError: 429, 5xx, timeout, dropped connection.
            ProviderError: other statuses (401/403 name authentication).
        """
        headers = {k: v for k, v in self._p._headers().items() if k != "Content-Type"}
        url = self._p._endpoint.join(path)
        try:
            async with self._p._get_session().request(method, url, headers=headers,
                                                      **kwargs) as resp:
                if resp.status >= 300:
                    raise_for_status(resp.status, await error_text(resp),
                                      resp.headers.get("Retry-After"))
                body = await read_limited(resp, MAX_FILE_BYTES)
        except asyncio.TimeoutError:
            raise TimeoutError_(f"{method} {path}: no answer within {self._p.timeout_s:g} s"
                                ) from None
        except aiohttp.ClientError as exc:
            raise RetryableProviderError(f"connection failed: {redact_text(str(exc))}"
                                         ) from None
        if len(body) > MAX_FILE_BYTES:
            raise ProviderError(f"{method} {path} answered with over {MAX_FILE_BYTES:,} bytes")
        return body

    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        body = await self._send(method, path, **kwargs)
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            raise ProviderError(f"{method} {path} answered with a body that is not JSON "
                                f"({body[:80]!r})") from None
        if not isinstance(value, dict):
            raise ProviderError(f"{method} {path} answered {value!r:.80}, not an object")
        return value

    async def check(self) -> None:
        where = self._p._endpoint.shown_join("/batches")
        try:
            await self._json("GET", "/batches", params={"limit": "1"})
        except RetryableProviderError:
            return  # busy or flaky: the batch calls retry
        except ProviderError as exc:
            if exc.status in (404, 405):
                raise ConfigError(f"--batch: {where} answered HTTP {exc.status}: this server "
                                  f"has no batch API; drop --batch to judge online") from None
            raise ConfigError(f"--batch: {where} refused the batch API ({exc})") from None

    async def submit(self, lines: list[dict[str, Any]], tag: str,
                     on_file: Callable[[str], None]) -> Submitted:
        data = b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n"
                        for line in lines)
        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", data, filename=f"{tag}.jsonl",
                       content_type="application/jsonl")
        uploaded = await self._json("POST", "/files", data=form)
        file_id = uploaded.get("id")
        if not isinstance(file_id, str):
            raise ProviderError(f"POST /files answered without a file id: {uploaded!r:.120}")
        on_file(file_id)
        return Submitted(await self._create(file_id, tag), file_id)

    async def _create(self, file_id: str, tag: str) -> str:
        try:
            batch = await self._json("POST", "/batches", json={
                "input_file_id": file_id, "endpoint": "/v1/chat/completions",
                "completion_window": "24h", "metadata": {TAG_FIELD: tag}})
        except RetryableProviderError:
            raise
        except ProviderError as exc:
            if exc.status == 400:
                raise BatchRejectedError(f"the batch was refused: {exc}",
                                         status=exc.status) from None
            raise
        batch_id = batch.get("id")
        if not isinstance(batch_id, str):
            raise ProviderError(f"POST /batches answered without a batch id: {batch!r:.120}")
        return batch_id

    async def status(self, batch_id: str) -> BatchStatus:
        return _status(await self._json("GET", f"/batches/{batch_id}"))

    async def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        batch = await self._json("GET", f"/batches/{batch_id}")
        for field, is_error in (("output_file_id", False), ("error_file_id", True)):
            file_id = batch.get(field)
            if not isinstance(file_id, str) or not file_id:
                continue
            body = await self._send("GET", f"/files/{file_id}/content")
            for raw in body.splitlines():
                result = _result(raw, is_error)
                if result is not None:
                    yield result

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        after: str | None = None
        for _ in range(20):  # newest first: a batch made since the kill is on the first pages
            params = {"limit": "100", **({"after": after} if after else {})}
            page = await self._json("GET", "/batches", params=params)
            listed = page.get("data")
            data: list[Any] = listed if isinstance(listed, list) else []
            for batch in data:
                if not isinstance(batch, dict) or not isinstance(batch.get("id"), str):
                    continue
                meta = _object(batch.get("metadata"))
                if meta.get(TAG_FIELD) == tag or (file_id and batch.get("input_file_id")
                                                  == file_id):
                    return str(batch["id"])
                created = batch.get("created_at")
                if isinstance(created, (int, float)) and created < created_after - 600:
                    return None  # older than the journal entry: it cannot be there
            if not page.get("has_more") or not data:
                return None
            after = str(data[-1].get("id"))
        return None

    async def cancel(self, batch_id: str) -> BatchStatus:
        return _status(await self._json("POST", f"/batches/{batch_id}/cancel"))

    async def aclose(self) -> None:
        await self._p.aclose()


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else {}."""
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _status(batch: dict[str, Any]) -> BatchStatus:
    """A batch object read into a BatchStatus."""
    state = str(batch.get("status") or "unknown")
    counts = _object(batch.get("request_counts"))
    done, failed = _count(counts.get("completed")), _count(counts.get("failed"))
    rejected = None
    if state == "failed":
        errors = _object(batch.get("errors"))
        first = (errors.get("data") or [{}])[0] if isinstance(errors.get("data"), list) else {}
        rejected = (f"{first.get('code', 'failed')}: {first.get('message', 'no reason given')}"
                    + (f" (line {first['line']})" if first.get("line") else "")
                    if isinstance(first, dict) else "the provider failed the batch")
    return BatchStatus(state=state, ended=state in _ENDED, done=done + failed, failed=failed,
                       total=_count(counts.get("total")), rejected=rejected)


def _result(raw: bytes, is_error: bool) -> BatchResult | None:
    """One output or error file line as a BatchResult (None: not a line with a custom id)."""
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
        return None
    custom_id = line["custom_id"]
    error, response = _object(line.get("error")), _object(line.get("response"))
    if error and not response:
        code = str(error.get("code") or "error")
        kind: ResultKind = ("expired" if code == "batch_expired" else "canceled"
                            if code == "batch_cancelled" else "errored")
        return BatchResult(custom_id, kind, error=f"{code}: {error.get('message', '')}".strip())
    status = _count(response.get("status_code"))
    body = response.get("body")
    if status == 200 and not is_error:
        try:
            answer = OpenAICompatibleProvider._response(body, 0.0)
        except ProviderError as exc:
            return BatchResult(custom_id, "errored", error=str(exc),
                               retryable=isinstance(exc, RetryableProviderError))
        return BatchResult(custom_id, "succeeded", answer.model_copy(update={"batch": True}))
    detail = body.get("error") if isinstance(body, dict) else None
    message = (detail.get("message") if isinstance(detail, dict) else None) or str(body)[:200]
    return BatchResult(custom_id, "errored", error=f"HTTP {status}: {message}",
                       retryable=status == 429 or status >= 500 or status == 0)
