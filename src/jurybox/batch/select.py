"""Which batch API a run's endpoint has."""

from __future__ import annotations

from ..errors import ConfigError
from ..providers import OpenAICompatibleProvider, Provider
from .api import BatchAPI

__all__ = ["batch_api"]


def batch_api(provider: Provider) -> BatchAPI:
    """The batch API of ``provider``: OpenAI's Batch API for an OpenAI-compatible endpoint
    (OpenAI, and any server serving ``/v1/files`` and ``/v1/batches``: the simulated judge
    does), Anthropic's Message Batches for Claude.

    Raises:
        ConfigError: the provider has none (the local llama.cpp judge), one line naming
            ``--batch``.
    """
    if provider.name == "anthropic":
        from .anthropic import AnthropicBatchAPI

        return AnthropicBatchAPI(provider)  # type: ignore[arg-type]
    if isinstance(provider, OpenAICompatibleProvider) and provider.name != "local":
        from .openai import OpenAIBatchAPI

        return OpenAIBatchAPI(provider)
    raise ConfigError(f"--batch: the {provider.name} judge has no batch API (batch mode "
                      f"needs openai/..., anthropic/... or an OpenAI-compatible server that "
                      f"serves /v1/batches); drop --batch to judge online")
