"""Claude through Anthropic's Messages API (the official ``anthropic`` SDK, an optional extra
imported lazily: ``pip install 'jurybox[anthropic]'``).

- System messages become the ``system`` field; the rest go as ``messages``.
- Structured output (json-schema mode) is a forced tool call: one tool ``answer`` whose
  ``input_schema`` is the answer's schema, ``tool_choice`` naming it; the tool input is the
  answer, written back as JSON text so parsing validates it like any other. json-object mode
  relies on the prompt's JSON instructions (the Messages API has no JSON mode).
- Errors: 429 -> RateLimitError and 529 overloaded / 5xx -> ServerError, both with
  Retry-After; timeouts and dropped connections are retried; 401/403 and other 4xx are not.
- The SDK's own retries are off (``max_retries=0``): the runner retries, with its backoff.
- Sampling: ``temperature`` is sent (the Messages API has no seed).
- Usage: ``input_tokens`` and ``output_tokens``; ``stop_reason`` ``max_tokens`` is reported as
  ``length`` (an answer cut off at the token limit, never used).
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..errors import (ConfigError, ProviderError, RateLimitError, RetryableProviderError,
                      ServerError, TimeoutError_, missing_extra)
from .base import ChatRequest, ChatResponse, Usage
from .read import count_problem, describe, finish_reason
from .unreachable import why_unreachable
from .urls import redact_text, split_credentials

__all__ = ["AnthropicProvider", "ANTHROPIC_BASE_URL"]

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
_TOOL = "answer"


def _sdk() -> Any:
    try:
        import anthropic  # imported lazily: it costs about a second
    except ImportError:
        raise missing_extra("anthropic", "anthropic") from None
    return anthropic


def _retry_after(exc: Any) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None
    except (AttributeError, ValueError):
        return None


def _usage(usage: Any) -> Usage:
    """Token usage of a Messages API answer: ``input_tokens`` plus the prompt tokens served
    from the cache (``cache_read_input_tokens``, also ``cached_tokens``), ``output_tokens``."""
    if usage is None:
        return Usage()
    if isinstance(usage, (str, int, float, list, tuple)):  # bool is an int
        return Usage(invalid=f"usage is {describe(usage)}, not an object")
    counts = {name: usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
              for name in ("input_tokens", "cache_read_input_tokens", "output_tokens")}
    for name, value in counts.items():
        if value is not None and (problem := count_problem(f"usage.{name}", value)):
            return Usage(invalid=problem)
    read = int(counts["cache_read_input_tokens"] or 0)
    return Usage(prompt_tokens=int(counts["input_tokens"] or 0) + read,
                 completion_tokens=int(counts["output_tokens"] or 0), cached_tokens=read)


class AnthropicProvider:
    """Anthropic's Messages API.

    Args:
        model: e.g. ``claude-sonnet-4-6``.
        api_key: the key (``ANTHROPIC_API_KEY``).
        base_url: the API root (default https://api.anthropic.com; the tests point it at the
            simulated judge's loopback ``/v1/messages``).
        timeout_s: per-request timeout, seconds.

    Raises:
        ConfigError: the ``anthropic`` extra is not installed, or timeout_s <= 0.
    """

    name = "anthropic"

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None,
                 timeout_s: float = 60.0) -> None:
        if not timeout_s > 0:
            raise ConfigError(f"timeout must be > 0 seconds, got {timeout_s!r}")
        self._anthropic = _sdk()
        self.model, self.timeout_s = model, timeout_s
        endpoint = split_credentials(base_url or ANTHROPIC_BASE_URL)
        if endpoint.username is not None:
            raise ConfigError(f"the base URL {endpoint.shown!r} carries credentials; the "
                              f"Anthropic API takes the API key only: drop user:password@")
        #: how the endpoint is shown and recorded (query values hidden: :mod:`.urls`)
        self.base_url = endpoint.shown
        self.simulated = False
        self.max_concurrency: int | None = None
        self.label: str | None = None
        self._client = self._anthropic.AsyncAnthropic(
            api_key=api_key, base_url=endpoint.url, timeout=timeout_s, max_retries=0,
            default_query=endpoint.query_params() or None)

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": self.name, "base_url": self.base_url, "model": self.model}

    def _arguments(self, request: ChatRequest) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        args: dict[str, Any] = {
            "model": self.model, "max_tokens": request.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages
                         if m.role != "system"]}
        # the judge's temperature (0: greedy) matters for reproducibility; SDK 2.x no longer
        # names the parameter, so it goes in the body (the Messages API takes it)
        args["extra_body"] = {"temperature": request.temperature}
        if system:
            args["system"] = system
        fmt = request.answer_format
        if fmt is not None and fmt.mode == "json-schema":
            args["tools"] = [{"name": _TOOL, "description": "Give your answer in this shape.",
                              "input_schema": fmt.answer_schema}]
            args["tool_choice"] = {"type": "tool", "name": _TOOL}
        return args

    async def complete(self, request: ChatRequest) -> ChatResponse:
        sdk = self._anthropic
        start = time.perf_counter()
        try:
            message = await self._client.messages.create(**self._arguments(request))
        except sdk.APITimeoutError:
            raise TimeoutError_(f"no answer within {self.timeout_s:g} s") from None
        except sdk.APIConnectionError as exc:
            raise RetryableProviderError(f"connection failed: {redact_text(str(exc))}") from None
        except sdk.APIStatusError as exc:
            status, text = exc.status_code, str(exc.message)[:200]
            if status == 429:
                raise RateLimitError(f"HTTP 429 rate limited: {text}", status=status,
                                     retry_after=_retry_after(exc)) from None
            if status >= 500:  # 529: overloaded
                raise ServerError(f"HTTP {status}: {text}", status=status,
                                  retry_after=_retry_after(exc)) from None
            if status in (401, 403):
                raise ProviderError(f"HTTP {status} authentication failed: {text}",
                                    status=status) from None
            raise ProviderError(f"HTTP {status}: {text}", status=status) from None
        except ValueError as exc:  # the SDK's JSON decoding of a body that is not JSON
            raise ProviderError(f"{self.base_url}/v1/messages answered with a body that is not "
                                f"JSON ({type(exc).__name__}: {str(exc)[:80]}); is the base URL "
                                f"right?") from None
        return self._response(message, time.perf_counter() - start)

    @staticmethod
    def _response(message: Any, latency: float) -> ChatResponse:
        """A Messages API answer read into a ChatResponse. The SDK builds its objects without
        validating the body, so every field is checked here (:mod:`jurybox.providers.read`).

        Raises:
            ProviderError: ``content``, a block's text or ``stop_reason`` of the wrong type;
                a bad usage is recorded as invalid instead (``Usage.invalid``)."""
        if message is None or isinstance(message, (str, int, float, list, tuple)):
            raise ProviderError(f"the endpoint's answer is not a Messages API message: it is "
                                f"{describe(message)}")
        content = getattr(message, "content", None)
        if content is not None and not isinstance(content, list):
            raise ProviderError(f"the endpoint's answer is not text: content is "
                                f"{describe(content)}, not a list of content blocks")
        parts: list[str] = []
        for i, block in enumerate(content or []):
            if block is None or isinstance(block, (str, int, float, list, tuple)):
                raise ProviderError(f"the endpoint's answer is not text: content[{i}] is "
                                    f"{describe(block)}, not a content block")
            kind = getattr(block, "type", None)
            if kind == "tool_use":
                try:
                    parts.append(json.dumps(getattr(block, "input", None), ensure_ascii=False))
                except (TypeError, ValueError) as exc:
                    raise ProviderError(f"the endpoint's content[{i}].input cannot be read "
                                        f"as JSON: {exc}") from None
            elif kind == "text":
                text = getattr(block, "text", None)
                if not isinstance(text, str):
                    raise ProviderError(f"the endpoint's answer is not text: content[{i}].text "
                                        f"is {describe(text)}, not a string")
                parts.append(text)
        stop = finish_reason(getattr(message, "stop_reason", None), "stop_reason")
        return ChatResponse(
            text="\n".join(parts), latency_s=latency,
            finish_reason="length" if stop == "max_tokens" else "stop" if stop else None,
            usage=_usage(getattr(message, "usage", None)))

    async def check(self) -> None:
        """List the models once: an unreachable endpoint or a refused key fails here."""
        sdk = self._anthropic
        try:
            await self._client.models.list(limit=1)
        except (sdk.AuthenticationError, sdk.PermissionDeniedError) as exc:
            raise ProviderError(f"{self.base_url} refused the API key (HTTP "
                                f"{exc.status_code})", status=exc.status_code) from None
        except sdk.APIConnectionError as exc:
            raise ProviderError(f"cannot reach {self.base_url} ({why_unreachable(exc)}); is "
                                f"--base-url right?") from None
        except (sdk.APIError, ValueError, TypeError, AttributeError, KeyError):
            pass  # the endpoint answers; a listing it will not give (or one the SDK cannot
            # read, such as a body that is not an object) is no reason to stop

    async def aclose(self) -> None:
        await self._client.close()
