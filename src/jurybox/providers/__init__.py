"""Model endpoints behind one narrow async interface."""

from .base import AnswerFormat, ChatRequest, ChatResponse, FormatMode, Message, Provider, Usage
from .openai_compat import (SIM_OWNER, Dialect, OpenAICompatibleProvider, Transport,
                            response_format)
from .local import LocalServer, default_gguf
from .spec import PROVIDERS, ModelSpec, make_provider, parse_spec
from .urls import redact_text, redact_url, split_credentials

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
