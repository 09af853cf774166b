"""The provider seam: one narrow async interface, ``complete(request) -> response``.

Protocols build :class:`ChatRequest` values; the runner sends them through a :class:`Provider`
and gets :class:`ChatResponse` values back. A provider raises
:class:`~jurybox.errors.RetryableProviderError` for failures a retry may fix (429, 5xx,
timeouts, dropped connections) and :class:`~jurybox.errors.ProviderError` for the rest.
"""

from __future__ import annotations

import json

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .read import count_problem, repair_text

__all__ = ["AnswerFormat", "FormatMode", "Message", "ChatRequest", "ChatResponse",
           "MAX_TOP_LOGPROBS", "TokenLogprob", "Usage", "Provider"]

#: The most alternatives per answer token a request may ask for (OpenAI's ``top_logprobs``
#: limit, 20).
MAX_TOP_LOGPROBS = 20

#: How a request asks for structured output: the answer's JSON schema, or any JSON object.
FormatMode = Literal["json-schema", "json-object"]


class Message(BaseModel):
    """One chat message."""

    model_config = ConfigDict(frozen=True)
    role: str
    content: str


class AnswerFormat(BaseModel):
    """The structured output a request asks the server for (each provider sends it in its own
    dialect of ``response_format``).

    Attributes:
        mode: ``json-schema`` (constrain the answer to ``schema_text``) or ``json-object``
            (any JSON object; llama.cpp still receives the schema, which it enforces).
        schema_text: the answer's JSON schema as canonical JSON text (text, so requests stay
            hashable).
    """

    model_config = ConfigDict(frozen=True)
    mode: FormatMode
    schema_text: str

    @property
    def answer_schema(self) -> dict[str, Any]:
        """The schema as a dict."""
        value: dict[str, Any] = json.loads(self.schema_text)
        return value


class ChatRequest(BaseModel):
    """Everything that changes a judge's answer.

    Attributes:
        messages: the conversation.
        temperature: sampling temperature, >= 0.
        max_tokens: completion budget in tokens.
        seed: decoding seed passed to the endpoint (None: not sent).
        sample_index: which repeated sample of the same request this is (0 for the first);
            part of the cache key, never sent.
        answer_format: structured output asked of the server, or None (free text).
        top_logprobs: ask for each answer token's log-probability and its this many most
            likely alternatives (OpenAI-compatible ``logprobs`` and ``top_logprobs``), 0 to
            :data:`MAX_TOP_LOGPROBS`; 0 (default) asks for none. Part of the cache key only
            when asked for, so requests without it keep their keys.
    """

    model_config = ConfigDict(frozen=True)
    messages: tuple[Message, ...]
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=1024, gt=0)
    seed: int | None = None
    sample_index: int = 0
    answer_format: AnswerFormat | None = None
    top_logprobs: int = Field(default=0, ge=0, le=MAX_TOP_LOGPROBS)

    def sampling(self) -> dict[str, Any]:
        """The sampling parameters, as they enter the cache key (``top_logprobs`` only when
        asked for: an answer without log-probabilities cannot serve a request for them)."""
        values: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.top_logprobs:
            values["top_logprobs"] = self.top_logprobs
        return values


class TokenLogprob(BaseModel):
    """One answer token with its natural-log probability and the most likely alternatives the
    endpoint returned at its position.

    Attributes:
        token: the token's text.
        logprob: its log-probability (natural log, <= 0).
        top: ``(token, logprob)`` of the alternatives, most likely first (may include
            ``token`` itself); empty when none were returned.
    """

    model_config = ConfigDict(frozen=True)
    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


class Usage(BaseModel):
    """Token usage of one call (0 when the endpoint does not report it).

    ``cached_tokens``: prompt tokens the provider served from its prefix cache (OpenAI's
    ``prompt_tokens_details.cached_tokens``, vLLM and SGLang the same; Anthropic's
    ``cache_read_input_tokens``); part of ``prompt_tokens``.

    Counts are whatever the endpoint reported, checked here (every way a Usage is made: a
    provider's reading, the cache, calls.jsonl): a count that is not an integer >= 0 (a
    string, a negative or fractional number, a boolean), or more cached tokens than prompt
    tokens, makes the whole usage ``invalid`` (that sentence) with every count 0, so it never
    enters a run's totals. A missing or null count is 0 (not reported); an integral float
    such as ``12.0`` is read as 12.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    #: why the endpoint's usage was not counted, or None
    invalid: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _counts(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if data.get("invalid") is not None:
            return {"invalid": str(data["invalid"])}
        counts: dict[str, int] = {}
        for name in ("prompt_tokens", "completion_tokens", "cached_tokens"):
            value = data.get(name)
            if value is None:
                continue
            problem = count_problem(name, value)
            if problem is not None:
                return {"invalid": problem}
            counts[name] = int(value)
        if counts.get("cached_tokens", 0) > counts.get("prompt_tokens", 0):
            return {"invalid": f"cached_tokens ({counts['cached_tokens']}) exceed "
                               f"prompt_tokens ({counts.get('prompt_tokens', 0)})"}
        return counts


class ChatResponse(BaseModel):
    """What an endpoint answered.

    Attributes:
        text: the completion's text ('' if none).
        usage: token counts.
        latency_s: wall time of the successful attempt, seconds.
        finish_reason: the endpoint's finish reason (e.g. ``"stop"``, ``"length"``), or None.
        repaired: what was changed in the endpoint's text so it can be stored and parsed
            (``"1 lone surrogate replaced by U+FFFD"``), or None (the text as sent).
        batch: True when the answer came through the provider's batch API (OpenAI's Batch
            API, Anthropic's Message Batches), which is billed at the batch rate
            (:attr:`jurybox.cost.Price.batch_share`); False for an online call.
        logprobs: the answer's tokens with their log-probabilities, when the request asked
            for them (``top_logprobs``) and the endpoint returned them; else None.
    """

    text: str
    usage: Usage = Usage()
    latency_s: float = 0.0
    finish_reason: str | None = None
    repaired: str | None = None
    batch: bool = False
    logprobs: tuple[TokenLogprob, ...] | None = None

    @model_validator(mode="before")
    @classmethod
    def _encodable(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("text"), str):
            text, n = repair_text(data["text"])
            if n:
                note = f"{n} lone surrogate{'' if n == 1 else 's'} replaced by U+FFFD"
                previous = data.get("repaired")
                data = {**data, "text": text,
                        "repaired": f"{previous}; {note}" if previous else note}
        return data


@runtime_checkable
class Provider(Protocol):
    """An async chat endpoint.

    Attributes:
        name: provider name as in the model spec (``openai``, ``vllm``, ``sim`` ...).
        model: the model name sent to the endpoint.
        simulated: True when the endpoint is jurybox's simulated judge (reports say so).
    """

    name: str
    model: str
    simulated: bool

    def cache_identity(self) -> dict[str, Any]:
        """What identifies this endpoint in cache keys (provider, base URL, model)."""
        ...

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send one request. Raises ProviderError / RetryableProviderError."""
        ...

    async def check(self) -> None:
        """Fail fast (ProviderError/ConfigError) if the endpoint cannot be used."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
