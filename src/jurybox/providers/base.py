"""The provider seam: one narrow async interface, ``complete(request) -> response``.

Protocols build :class:`ChatRequest` values; the runner sends them through a :class:`Provider`
and gets :class:`ChatResponse` values back. A provider raises
:class:`~jurybox.errors.RetryableProviderError` for failures a retry may fix (429, 5xx,
timeouts, dropped connections) and :class:`~jurybox.errors.ProviderError` for the rest.
"""

from __future__ import annotations

import json

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AnswerFormat", "FormatMode", "Message", "ChatRequest", "ChatResponse", "Usage",
           "Provider"]

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
    """

    model_config = ConfigDict(frozen=True)
    messages: tuple[Message, ...]
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=1024, gt=0)
    seed: int | None = None
    sample_index: int = 0
    answer_format: AnswerFormat | None = None

    def sampling(self) -> dict[str, Any]:
        """The sampling parameters, as they enter the cache key."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}


class Usage(BaseModel):
    """Token usage of one call (0 when the endpoint does not report it).

    ``cached_tokens``: prompt tokens the provider served from its prefix cache (OpenAI's
    ``prompt_tokens_details.cached_tokens``, vLLM and SGLang the same; Anthropic's
    ``cache_read_input_tokens``); part of ``prompt_tokens``."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


class ChatResponse(BaseModel):
    """What an endpoint answered.

    Attributes:
        text: the completion's text ('' if none).
        usage: token counts.
        latency_s: wall time of the successful attempt, seconds.
        finish_reason: the endpoint's finish reason (e.g. ``"stop"``, ``"length"``), or None.
    """

    text: str
    usage: Usage = Usage()
    latency_s: float = 0.0
    finish_reason: str | None = None


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
