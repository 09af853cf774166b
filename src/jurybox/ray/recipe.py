"""How a Ray actor builds its own copy of the driver's judge: :class:`ProviderRecipe`.

A provider holds open connections and an event loop's session, so it cannot travel to another
process; a recipe can. :func:`recipe_of` reads one off the provider the driver opened (an
OpenAI-compatible endpoint, the simulated or local judge reached by its URL, an Anthropic
endpoint, or an endpoint pool of any of those), and :meth:`ProviderRecipe.build`, called inside
the actor, makes the same provider again: same provider name, model, URL (credentials and query
included), key, timeout, transport and structured-output dialect. The recipe carries the API
key, so it travels to the actors the way Ray carries an actor's arguments (see docs/ray.md).
No Ray import here: recipes are plain data, tested without Ray.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from ..errors import ConfigError
from ..providers.base import Provider

__all__ = ["ProviderRecipe", "recipe_of"]


@dataclass(frozen=True)
class ProviderRecipe:
    """A picklable description of a provider (see the module docstring).

    Attributes:
        kind: ``openai`` (any OpenAI-compatible server, the simulated and local judges
            included), ``anthropic`` or ``pool`` (several replicas of one model).
        name: the provider's name (``vllm``, ``sim``, ``local``, ...).
        model: the model name sent to the endpoint.
        base_url: the URL requests go to, credentials and query included ("" for a pool).
        api_key: the bearer key, or None.
        timeout_s: per-request timeout, seconds.
        transport: ``aiohttp`` or ``sdk`` (OpenAI-compatible only).
        dialect: how the server spells structured output (OpenAI-compatible only).
        identity: the provider's fixed cache identity, if it has one (the simulated and local
            judges), else None.
        max_concurrency: calls the server takes at once (None: no limit of its own).
        replicas, weights, limits: a pool's replicas (recipes), their weights and their
            own limits on calls in flight (None: none).
    """

    kind: str
    name: str
    model: str
    base_url: str = ""
    api_key: str | None = None
    timeout_s: float = 60.0
    transport: str = "aiohttp"
    dialect: str = "openai"
    identity: dict[str, Any] | None = None
    max_concurrency: int | None = None
    replicas: tuple[ProviderRecipe, ...] = ()
    weights: tuple[float, ...] = field(default=())
    limits: tuple[int | None, ...] = field(default=())

    def build(self) -> Provider:
        """A new provider from this recipe (in the process that will use it).

        Raises:
            ConfigError: the recipe's kind is unknown, or the provider refuses its values.
        """
        if self.kind == "pool":
            from ..providers.pool import PoolProvider

            return PoolProvider([r.build() for r in self.replicas], weights=self.weights,
                                limits=self.limits or None)
        if self.kind == "anthropic":
            from ..providers.anthropic import AnthropicProvider

            return AnthropicProvider(self.model, api_key=self.api_key or "",
                                     base_url=self.base_url or None, timeout_s=self.timeout_s)
        if self.kind == "openai":
            from ..providers.openai_compat import OpenAICompatibleProvider

            provider = OpenAICompatibleProvider(
                self.name, self.model, self.base_url, api_key=self.api_key,
                timeout_s=self.timeout_s, transport=self.transport,  # type: ignore[arg-type]
                identity=self.identity, dialect=self.dialect)  # type: ignore[arg-type]
            provider.max_concurrency = self.max_concurrency
            return provider
        raise ConfigError(f"unknown provider recipe kind {self.kind!r}")

    def __repr__(self) -> str:  # never show the key
        return (f"ProviderRecipe(kind={self.kind!r}, name={self.name!r}, model={self.model!r}, "
                f"replicas={len(self.replicas)})")


def _full_url(provider: Any) -> str:
    """The URL an OpenAI-compatible provider sends to: credentials and query put back."""
    endpoint = provider._endpoint  # EndpointURL: url, shown, username, password, query
    parts = urlsplit(endpoint.url)
    netloc = parts.netloc
    if endpoint.username is not None:
        userinfo = quote(endpoint.username, safe="")
        if endpoint.password:
            userinfo += ":" + quote(endpoint.password, safe="")
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit(parts._replace(netloc=netloc, query=endpoint.query))


def recipe_of(provider: Provider) -> ProviderRecipe:
    """The recipe that rebuilds ``provider`` elsewhere.

    Raises:
        ConfigError: a provider the Ray executor cannot carry (a batch dispatcher, a test
            double, a provider class it does not know): one line naming its class.
    """
    from ..providers.openai_compat import OpenAICompatibleProvider
    from ..providers.pool import PoolProvider

    if isinstance(provider, PoolProvider):
        parts = provider.replicas()
        return ProviderRecipe("pool", provider.name, provider.model,
                              replicas=tuple(recipe_of(p) for p, _, _ in parts),
                              weights=tuple(w for _, w, _ in parts),
                              limits=tuple(x for _, _, x in parts))
    if isinstance(provider, OpenAICompatibleProvider):
        return ProviderRecipe("openai", provider.name, provider.model, _full_url(provider),
                              api_key=provider.api_key, timeout_s=provider.timeout_s,
                              transport=provider.transport, dialect=provider.dialect,
                              identity=provider._identity,
                              max_concurrency=provider.max_concurrency)
    if type(provider).__module__ == "jurybox.providers.anthropic":  # its SDK is an extra
        anthropic: Any = provider
        client = anthropic._client
        return ProviderRecipe("anthropic", provider.name, provider.model,
                              str(client.base_url).rstrip("/"), api_key=client.api_key,
                              timeout_s=anthropic.timeout_s)
    raise ConfigError(f"--executor ray cannot send a {type(provider).__name__} judge to Ray "
                      f"actors; it carries OpenAI-compatible, Anthropic and pooled endpoints "
                      f"(use --executor local)")
