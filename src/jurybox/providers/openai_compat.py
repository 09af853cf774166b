"""OpenAI-compatible chat endpoints (OpenAI, vLLM, Ollama, llama.cpp, SGLang, ...).

Two transports behind one class: a lean ``aiohttp`` POST to ``/chat/completions`` (the default:
about 0.2 ms of client CPU per call) and the official ``openai`` SDK (``transport="sdk"``,
1.5-2.5 ms per call; see ``benchmarks/throughput.py`` for the measurement that chose the
default). Both map errors the same way: 429 -> RateLimitError (with Retry-After), 5xx ->
ServerError, timeouts -> TimeoutError_, other 4xx -> ProviderError, and a request with
structured output that the server refuses (400, 422 or 500 naming the field) ->
FormatRefusedError.

Structured output goes out as ``response_format`` in the server's dialect (``Dialect``):

- ``openai`` (OpenAI, vLLM, SGLang, LM Studio, Ollama's OpenAI endpoint, OpenRouter):
  ``{"type": "json_schema", "json_schema": {"name": "answer", "schema": ..., "strict": true}}``
  for json-schema, ``{"type": "json_object"}`` for json-object.
- ``llamacpp`` (llama-cpp-python's server and llama.cpp's own): ``{"type": "json_object",
  "schema": ...}`` for both modes. Measured on llama-cpp-python 0.3.36: it answers OpenAI's
  ``json_schema`` type with HTTP 500 (a validation error naming ``response_format.type``) and
  enforces a schema given with ``json_object``; without a schema it gives JSON of any shape.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from typing import Any

import aiohttp

from ..errors import (ConfigError, ProviderError, RetryableProviderError, ServerError,
                      TimeoutError_)
from .base import AnswerFormat, ChatRequest, ChatResponse, Usage
from .logprobs import chat_logprobs
from .read import answer_text, describe, finish_reason, repair_text
from .transport import Dialect, Transport
from .unreachable import why_unreachable
from .urls import redact_text, split_credentials
from .listing import (ANY_MODEL_NAME, SIM_KNOWS_FIELD, SIM_OWNER, listed_models, owners_of,
                      read_listing, sim_knows_of, unlisted_model)
from .responses import (MAX_BODY_BYTES, error_text, raise_for_status, read_limited)

__all__ = ["Dialect", "OpenAICompatibleProvider", "SIM_KNOWS_FIELD", "SIM_OWNER", "Transport",
           "response_format"]

log = logging.getLogger(__name__)


def _usage(usage: Any) -> Usage:
    """The token usage of a chat completion's ``usage`` (absent or null: not reported)."""
    if usage is None:
        return Usage()
    if not isinstance(usage, dict):
        return Usage(invalid=f"usage is {describe(usage)}, not an object")
    details = usage.get("prompt_tokens_details")
    if details is not None and not isinstance(details, dict):
        return Usage(invalid=f"usage.prompt_tokens_details is {describe(details)}, not an "
                             f"object")
    return Usage.model_validate({
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "cached_tokens": (details or {}).get("cached_tokens")})


def response_format(fmt: AnswerFormat, dialect: Dialect) -> dict[str, Any]:
    """``response_format`` for ``fmt`` in a server's dialect."""
    if dialect == "llamacpp":
        return {"type": "json_object", "schema": fmt.answer_schema}
    if fmt.mode == "json-object":
        return {"type": "json_object"}
    return {"type": "json_schema",
            "json_schema": {"name": "answer", "schema": fmt.answer_schema, "strict": True}}


class OpenAICompatibleProvider:
    """A chat endpoint that speaks the OpenAI ``/v1/chat/completions`` API.

    Args:
        name: provider name (``openai``, ``vllm``, ``ollama``, ``llamacpp``, ``sim``...).
        model: model name sent to the endpoint.
        base_url: e.g. ``http://localhost:8000/v1`` (no trailing ``/chat/completions``).
        api_key: bearer token, or None for servers without auth.
        timeout_s: per-request timeout, seconds.
        transport: ``"aiohttp"`` (lean, default) or ``"sdk"`` (official ``openai`` client).
        identity: overrides ``cache_identity()`` (the simulated and local judges use their
            configuration or file, since their port changes from run to run).
        max_connections: connection pool size (aiohttp transport).
        dialect: how the server spells structured output.
    """

    def __init__(self, name: str, model: str, base_url: str, *, api_key: str | None = None,
                 timeout_s: float = 60.0, transport: Transport = "aiohttp",
                 identity: dict[str, Any] | None = None, max_connections: int = 1024,
                 dialect: Dialect = "openai") -> None:
        if not timeout_s > 0:
            raise ConfigError(f"timeout must be > 0 seconds, got {timeout_s!r}")
        if transport not in ("aiohttp", "sdk"):
            raise ConfigError(f"unknown transport {transport!r}; choose 'aiohttp' or 'sdk'")
        self.name, self.model = name, model
        endpoint = split_credentials(base_url)
        if endpoint.username is not None and api_key:
            raise ConfigError(f"the base URL {endpoint.shown!r} carries credentials and an API "
                              f"key is set too; both would be the Authorization header: use "
                              f"one (unset JURYBOX_API_KEY, or drop user:password@ from the URL)")
        #: requests go to ``_endpoint.join(path)``; ``base_url`` is how the endpoint is shown
        #: and recorded (no credentials, query values or fragment: :mod:`.urls`)
        self._endpoint, self.base_url = endpoint, endpoint.shown
        self._basic = (None if endpoint.username is None else "Basic " + base64.b64encode(
            f"{endpoint.username}:{endpoint.password or ''}".encode()).decode())
        self.api_key, self.timeout_s, self.transport = api_key, timeout_s, transport
        self._identity, self.dialect = identity, dialect
        self.simulated = name == "sim"  # also set by check() when the server says so
        self._sim_knows: str | None = None  # set by check() when the server is serve-sim
        #: calls the server takes at once (None: no limit of its own); the local judge: 1
        self.max_concurrency: int | None = None
        #: the model ids its ``GET /models`` listed (set by :meth:`check`; None: no list)
        self.listed: list[str] | None = None
        #: how reports name the judge (None: the model spec)
        self.label: str | None = None
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None
        self._sdk: Any = None

    def cache_identity(self) -> dict[str, Any]:
        if self._identity is not None:
            return dict(self._identity)
        if self._sim_knows is not None:  # serve-sim reached by URL: what it knows counts
            return {"provider": self.name, "base_url": self.base_url, "model": self.model,
                    "sim_knows": self._sim_knows}
        return {"provider": self.name, "base_url": self.base_url, "model": self.model}

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        elif self._basic is not None:
            headers["Authorization"] = self._basic
        return headers

    def _payload(self, request: ChatRequest) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            payload["seed"] = request.seed
        if request.top_logprobs:
            payload["logprobs"], payload["top_logprobs"] = True, request.top_logprobs
        if request.answer_format is not None:
            payload["response_format"] = response_format(request.answer_format, self.dialect)
        return payload

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._max_connections, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        return self._session

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if self.transport == "sdk":
            return await self._complete_sdk(request)
        start = time.perf_counter()
        try:
            async with self._get_session().post(self._endpoint.join("/chat/completions"),
                                                json=self._payload(request),
                                                headers=self._headers()) as resp:
                if resp.status != 200:
                    raise_for_status(resp.status, await error_text(resp),
                                      resp.headers.get("Retry-After"),
                                      request.answer_format is not None)
                body = await read_limited(resp)
        except asyncio.TimeoutError:
            raise TimeoutError_(f"no answer within {self.timeout_s:g} s") from None
        except aiohttp.ClientError as exc:
            raise RetryableProviderError(f"connection failed: {redact_text(str(exc))}") from None
        where = self._endpoint.shown_join('/chat/completions')
        if len(body) > MAX_BODY_BYTES:
            raise ProviderError(f"{where} answered with a body over {MAX_BODY_BYTES:,} bytes "
                                f"(32 MiB); no chat completion is that long")
        try:
            data = json.loads(body)
        except ValueError:
            raise ProviderError(f"{where} answered 200 with a body that is not JSON "
                                f"({body[:80]!r}); is the base URL right?") from None
        except RecursionError:
            raise ProviderError(f"{where} answered 200 with JSON nested too deeply to read"
                                ) from None
        return self._response(data, time.perf_counter() - start,
                              logprobs=bool(request.top_logprobs))

    @staticmethod
    def _response(data: Any, latency: float, *, logprobs: bool = True) -> ChatResponse:
        """A chat completion body read into a ChatResponse (:mod:`jurybox.providers.read`);
        its token log-probabilities only when ``logprobs`` (the request asked for them) and
        they make up the answer's text (:func:`~.logprobs.chat_logprobs`).

        Raises:
            ServerError: no ``choices[0].message`` (a malformed body; retried).
            ProviderError: a field of the wrong type (content, finish_reason); a bad usage
                is recorded as invalid instead (``Usage.invalid``)."""
        if not isinstance(data, dict):
            raise ProviderError(f"the endpoint's answer is not a chat completion: {data!r:.120}")
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(choice, dict) or not isinstance(message, dict):
            raise ServerError(f"malformed response body (no choices[0].message): "
                              f"{str(data)[:200]!r}")
        text = answer_text(message.get("content"), "choices[0].message.content")
        if not text and message.get("content") is None and isinstance(
                message.get("refusal"), str):  # OpenAI's structured-output refusal
            text = message["refusal"]
        return ChatResponse(text=text, latency_s=latency,
                            finish_reason=finish_reason(choice.get("finish_reason"),
                                                        "choices[0].finish_reason"),
                            usage=_usage(data.get("usage")),
                            logprobs=chat_logprobs(choice, repair_text(text)[0])
                            if logprobs else None)

    async def _complete_sdk(self, request: ChatRequest) -> ChatResponse:
        import openai  # imported lazily: it costs ~0.6 s
        if self._sdk is None:
            basic = {} if self._basic is None else {"Authorization": self._basic}
            self._sdk = openai.AsyncOpenAI(base_url=self._endpoint.url,
                                           api_key=self.api_key or "none",
                                           timeout=self.timeout_s, max_retries=0,
                                           default_headers=basic,
                                           default_query=self._endpoint.query_params() or None)
        start = time.perf_counter()
        try:
            completion = await self._sdk.chat.completions.create(**self._payload(request))
        except openai.APITimeoutError:
            raise TimeoutError_(f"no answer within {self.timeout_s:g} s") from None
        except openai.APIConnectionError as exc:
            raise RetryableProviderError(f"connection failed: {redact_text(str(exc))}") from None
        except openai.APIStatusError as exc:
            raise_for_status(exc.status_code, str(exc.message),
                              exc.response.headers.get("retry-after"),
                              request.answer_format is not None)
        if not hasattr(completion, "model_dump"):  # the SDK hands back raw text it cannot parse
            raise ProviderError(f"{self._endpoint.shown_join('/chat/completions')} answered "
                                f"with a body that is not a chat completion "
                                f"({str(completion)[:80]!r}); is the base URL right?")
        return self._response(completion.model_dump(warnings=False), time.perf_counter() - start,
                              logprobs=bool(request.top_logprobs))

    async def check(self) -> None:
        """GET ``/models`` once; raise ProviderError if the endpoint is unreachable or refuses.

        When the server lists its models and ``model`` is not among them, a warning is logged
        (``jurybox.providers.openai_compat``) before any work; a server without a usable list
        (another status, a body without ``data``) gets none."""
        try:
            async with self._get_session().get(self._endpoint.join("/models"),
                                               headers=self._headers(),
                                               timeout=aiohttp.ClientTimeout(total=10)) as resp:
                if resp.status in (401, 403):
                    raise ProviderError(f"{self.base_url} refused the API key "
                                        f"(HTTP {resp.status})", status=resp.status)
                if resp.status == 404:
                    raise ProviderError(f"GET {self._endpoint.shown_join('/models')} answered "
                                        f"404: is the base URL right? (it usually ends in /v1)",
                                        status=404)
                if resp.status == 200:
                    listing = read_listing(await read_limited(resp))
                    self.simulated = SIM_OWNER in owners_of(listing)
                    self._sim_knows = sim_knows_of(listing) if self.simulated else None
                    self.listed = listed_models(listing)
                    self._warn_if_unlisted(listing)
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
            raise ProviderError(f"cannot reach {self.base_url} ({why_unreachable(exc)}); is "
                                f"the server running? set --base-url or JURYBOX_BASE_URL"
                                ) from None

    async def sim_stats(self) -> dict[str, Any] | None:
        """The simulated judge's counters (``GET <base>/sim/stats``: prompts, unknown_prompts,
        ...) when this endpoint is jurybox's simulated judge (seen by :meth:`check`); None
        otherwise or when it does not answer them (an older serve-sim)."""
        if not self.simulated:
            return None
        try:
            async with self._get_session().get(self._endpoint.join("/sim/stats"),
                                               headers=self._headers(),
                                               timeout=aiohttp.ClientTimeout(total=10)) as resp:
                if resp.status != 200:
                    return None
                value = read_listing(await read_limited(resp))
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def _warn_if_unlisted(self, listing: object) -> None:
        """Log a warning before any work when the server's model list lacks ``model`` (a
        typo would otherwise show only as every call failing); never for the simulated
        judge or servers that take any model name."""
        if self.simulated or self.name in ANY_MODEL_NAME:
            return
        ids = unlisted_model(self.model, listing)
        if ids is not None:
            shown = ", ".join(ids[:20]) + (f", ... ({len(ids)} in all)" if len(ids) > 20 else "")
            log.warning("model %r is not in the models %s lists (%s); calls naming it will "
                        "probably fail: check --model", self.model, self.base_url, shown)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._sdk is not None:
            await self._sdk.close()
            self._sdk = None
