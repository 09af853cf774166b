"""Model endpoints behind one narrow async interface."""

from .base import ChatRequest, ChatResponse, Message, Provider, Usage
from .openai_compat import SIM_OWNER, OpenAICompatibleProvider, Transport
from .spec import PROVIDERS, ModelSpec, make_provider, parse_spec

__all__ = [
    "PROVIDERS",
    "SIM_OWNER",
    "ChatRequest",
    "ChatResponse",
    "Message",
    "ModelSpec",
    "OpenAICompatibleProvider",
    "Provider",
    "Transport",
    "Usage",
    "make_provider",
    "parse_spec",
]
