"""Model endpoints behind one narrow async interface."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = [
    "MAX_TOP_LOGPROBS",
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
    "TokenLogprob",
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

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .base import (MAX_TOP_LOGPROBS, AnswerFormat, ChatRequest, ChatResponse, FormatMode,
                       Message, Provider, TokenLogprob, Usage)
    from .gguf import default_gguf
    from .listing import SIM_OWNER
    from .local import LocalServer
    from .openai_compat import OpenAICompatibleProvider, response_format
    from .transport import Dialect, Transport
    from .spec import PROVIDERS, ModelSpec, make_provider, parse_spec
    from .urls import redact_text, redact_url, split_credentials
