"""Which batch API a run's endpoint has."""

from __future__ import annotations

from ..errors import ConfigError
from ..providers import OpenAICompatibleProvider, Provider
from .api import BatchAPI

__all__ = ["batch_api", "no_batch_api"]


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
    raise no_batch_api(provider.name)


def no_batch_api(name: str) -> ConfigError:
    """The one-line error for ``--batch`` with a judge that has no batch API (``name``: its
    provider, e.g. ``local``)."""
    return ConfigError(f"--batch: the {name} judge has no batch API (batch mode needs "
                       f"openai/..., anthropic/... or an OpenAI-compatible server that serves "
                       f"/v1/batches); drop --batch to judge online")
