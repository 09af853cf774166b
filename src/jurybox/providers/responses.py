"""Reading an endpoint's HTTP answers safely: bodies read to a bound, the start of an error
body as text, and an HTTP status mapped to jurybox's errors (429 -> RateLimitError with
Retry-After, 5xx -> ServerError, 401/403 -> an authentication ProviderError, a refused
``response_format`` -> FormatRefusedError). Shared by the chat providers and the batch APIs."""

from __future__ import annotations

import aiohttp

from ..errors import FormatRefusedError, ProviderError, RateLimitError, ServerError

__all__ = ["MAX_BODY_BYTES", "MAX_ERROR_BODY_BYTES", "error_text", "raise_for_status",
           "read_limited", "retry_after_seconds"]


#: Largest response body read, bytes: a longer one is refused unread past this point.
MAX_BODY_BYTES = 32 * 1024 * 1024
#: Most of an error response's body read, bytes: enough for any error message (an endless
#: HTTP 500 body once grew a run to 2.7 GB before its timeout).
MAX_ERROR_BODY_BYTES = 64 * 1024


async def read_limited(resp: aiohttp.ClientResponse, limit: int = MAX_BODY_BYTES) -> bytes:
    """The response body, read until its end or until it passes ``limit`` bytes (then
    longer than the limit: the caller refuses or cuts it)."""
    chunks, size = [], 0
    async for chunk in resp.content.iter_chunked(1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            break
    return b"".join(chunks)


async def error_text(resp: aiohttp.ClientResponse) -> str:
    """The start of an error response's body as text (at most
    :data:`MAX_ERROR_BODY_BYTES`; the rest is never read)."""
    body = await read_limited(resp, MAX_ERROR_BODY_BYTES)
    text = body[:MAX_ERROR_BODY_BYTES].decode("utf-8", errors="replace")
    return text + (" ..." if len(body) > MAX_ERROR_BODY_BYTES else "")


def retry_after_seconds(value: str | None) -> float | None:
    """A Retry-After header in seconds (>= 0), or None when absent or not a number."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _refused_format(status: int, body: str) -> bool:
    """A refusal of ``response_format`` itself (not of the prompt): 400, 422 or 500 whose body
    names the field."""
    text = body.lower()
    return status in (400, 422, 500) and any(
        word in text for word in ("response_format", "json_schema", "json schema"))


def raise_for_status(status: int, body: str, retry_after: str | None,
                     structured: bool = False) -> None:
    """Raise the error an HTTP ``status`` means (a successful status is the caller's: this
    always raises). ``body``: the start of the error body (its first 200 characters are
    quoted); ``retry_after``: the Retry-After header; ``structured``: the request asked for
    structured output, so a 400/422/500 naming ``response_format`` is a FormatRefusedError.

    Raises:
        FormatRefusedError, RateLimitError, ServerError, ProviderError: as the module says.
    """
    snippet = body[:200].replace("\n", " ")
    if structured and _refused_format(status, body):
        raise FormatRefusedError(f"HTTP {status}: the server refused response_format: {snippet}",
                                 status=status)
    if status == 429:
        raise RateLimitError(f"HTTP 429 rate limited: {snippet}", status=status,
                             retry_after=retry_after_seconds(retry_after))
    if status >= 500:
        raise ServerError(f"HTTP {status}: {snippet}", status=status,
                          retry_after=retry_after_seconds(retry_after))
    if status in (401, 403):
        raise ProviderError(f"HTTP {status} authentication failed: {snippet}", status=status)
    raise ProviderError(f"HTTP {status}: {snippet}", status=status)
