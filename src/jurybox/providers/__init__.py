"""Model endpoints behind one narrow async interface."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = [
    "PROVIDERS",
    "SIM_OWNER",
    "AnswerFormat",
    "ChatRequest",
    "ChatResponse",
    "Dialect",
    "FormatMode",
    "Message",
    "LocalServer",
    "ModelSpec",
    "OpenAICompatibleProvider",
    "Provider",
    "Transport",
    "Usage",
    "default_gguf",
    "make_provider",
    "parse_spec",
    "redact_text",
    "redact_url",
    "response_format",
    "split_credentials",
]

__getattr__, __dir__ = _lazy_exports(__name__, {
    "AnswerFormat": ".base",
    "ChatRequest": ".base",
    "ChatResponse": ".base",
    "FormatMode": ".base",
    "Message": ".base",
    "Provider": ".base",
    "Usage": ".base",
    "SIM_OWNER": ".openai_compat",
    "Dialect": ".transport",
    "OpenAICompatibleProvider": ".openai_compat",
    "Transport": ".transport",
    "response_format": ".openai_compat",
    "LocalServer": ".local",
    "default_gguf": ".local",
    "PROVIDERS": ".spec",
    "ModelSpec": ".spec",
    "make_provider": ".spec",
    "parse_spec": ".spec",
    "redact_text": ".urls",
    "redact_url": ".urls",
    "split_credentials": ".urls",
})

if _typing.TYPE_CHECKING:
    from .base import AnswerFormat, ChatRequest, ChatResponse, FormatMode, Message, Provider, Usage
    from .openai_compat import (SIM_OWNER, Dialect, OpenAICompatibleProvider, Transport,
                                response_format)
    from .local import LocalServer, default_gguf
    from .spec import PROVIDERS, ModelSpec, make_provider, parse_spec
    from .urls import redact_text, redact_url, split_credentials
