"""Model spec strings (``provider/model``) and the endpoints they default to."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import ConfigError
from .base import Provider
from .openai_compat import OpenAICompatibleProvider, Transport

__all__ = ["require_key", "ModelSpec", "parse_spec", "provider_guess", "make_provider", "PROVIDERS",
           "MODEL_CHOICES", "require_model", "is_loopback"]


@dataclass(frozen=True)
class _ProviderDefaults:
    base_url: str
    key_env: str | None      # environment variable holding the key
    key_required: bool


#: Known providers: default base URL, key variable, whether a key is required (not at a base
#: URL on this machine: :func:`is_loopback`).
PROVIDERS: dict[str, _ProviderDefaults] = {
    "openai": _ProviderDefaults("https://api.openai.com/v1", "OPENAI_API_KEY", True),
    "openrouter": _ProviderDefaults("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", True),
    "vllm": _ProviderDefaults("http://localhost:8000/v1", "VLLM_API_KEY", False),
    "sglang": _ProviderDefaults("http://localhost:30000/v1", None, False),
    "ollama": _ProviderDefaults("http://localhost:11434/v1", None, False),
    "llamacpp": _ProviderDefaults("http://localhost:8080/v1", None, False),
    "lmstudio": _ProviderDefaults("http://localhost:1234/v1", None, False),
    "sim": _ProviderDefaults("", None, False),
    "local": _ProviderDefaults("", None, False),
    "anthropic": _ProviderDefaults("https://api.anthropic.com", "ANTHROPIC_API_KEY", True),
}


#: The judges a user can name, as every "no model given" message lists them.
MODEL_CHOICES = ("'sim' to try the tool (the simulated judge: it is told the gold answers, so "
                 "its scores are a demonstration, not a measurement), 'local' (llama.cpp with "
                 "SmolLM2-135M on this machine: pip install 'jurybox[local]'), "
                 "'openai/gpt-4o-mini', 'anthropic/claude-3-5-haiku-latest', or any "
                 "OpenAI-compatible server: 'vllm/<model>' with a base URL")


def require_model(model: str | None, data: str, *, how: str = "--model (or JURYBOX_MODEL)"
                  ) -> str:
    """``model``, or the error for judging the user's own ``data`` without naming a judge:
    jurybox never judges a user's data with the simulated judge unless asked to.

    Raises:
        ConfigError: ``model`` is None (the message lists :data:`MODEL_CHOICES`); a blank
            one is left to :func:`parse_spec`, which names it.
    """
    if model is None:
        raise ConfigError(f"no judge named for {data!r}: choose one with {how}: "
                          f"{MODEL_CHOICES}")
    return model


@dataclass(frozen=True)
class ModelSpec:
    """A parsed ``provider/model`` string."""

    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"


#: Model-name prefixes of the hosted providers' own models, for the hint of a spec that names
#: no provider (``gpt-4o-mini`` -> ``openai/gpt-4o-mini``).
_PROVIDER_OF_PREFIX = (("gpt-", "openai"), ("chatgpt-", "openai"), ("o1", "openai"),
                       ("o3", "openai"), ("o4", "openai"), ("claude", "anthropic"))


def provider_guess(model: str) -> str | None:
    """The provider whose own models are named like ``model`` (None when no hosted provider
    names its models so).

    >>> provider_guess("gpt-4o-mini"), provider_guess("o3-mini"), provider_guess("claude-3-haiku")
    ('openai', 'openai', 'anthropic')
    >>> provider_guess("llama3") is None
    True
    """
    name = model.strip().lower()
    return next((p for prefix, p in _PROVIDER_OF_PREFIX if name.startswith(prefix)), None)


def parse_spec(spec: str) -> ModelSpec:
    """Parse ``provider/model`` (``sim`` alone means ``sim/judge``; ``local`` alone means the
    bundled-by-extra SmolLM2 GGUF, ``local/<path.gguf>`` another file).

    Raises:
        ConfigError: no provider, unknown provider, empty model, or a simulated judge with
            another model name than ``judge``.
    """
    if spec == "sim":
        return ModelSpec("sim", "judge")
    if spec == "local":
        return ModelSpec("local", "")
    provider, sep, model = spec.partition("/")
    if not sep or not model:
        guess = provider_guess(spec)
        hint = (f"; did you mean {guess}/{spec}?" if guess and not sep else
                f"; name its provider, e.g. vllm/{spec} or ollama/{spec} (providers: "
                f"{', '.join(PROVIDERS)})" if spec.strip() and not sep else
                f" (providers: {', '.join(PROVIDERS)})")
        raise ConfigError(f"model spec {spec!r} must look like 'provider/model'{hint}")
    if provider == "sim" and model != "judge":
        raise ConfigError(f"the simulated judge has one model: use --model sim (got {spec!r})")
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {provider!r} in {spec!r}; choose one of "
                          f"{', '.join(PROVIDERS)} (any OpenAI-compatible server: "
                          f"'vllm/<model>' with --base-url)")
    return ModelSpec(provider, model)


def is_loopback(base_url: str | None) -> bool:
    """Whether ``base_url`` names this machine: ``localhost`` (or a name under it), an
    address in 127.0.0.0/8, or ``::1``. A malformed URL is not (its own check names it).

    >>> is_loopback("http://127.0.0.1:8765/v1"), is_loopback("http://localhost/v1")
    (True, True)
    >>> is_loopback("http://[::1]:80/v1"), is_loopback("https://api.openai.com/v1")
    (True, False)
    """
    try:
        host = urlsplit((base_url or "").strip()).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_key(spec: ModelSpec, base_url: str | None = None,
                api_key: str | None = None) -> str | None:
    """The API key a served spec is called with (``api_key``, else ``JURYBOX_API_KEY``, else
    the provider's own variable); None for the simulated and local judges and for a provider
    that needs none.

    Raises:
        ConfigError: the provider needs a key, none is set, and ``base_url`` is not on this
            machine (the message names the variable).
    """
    if spec.provider in ("sim", "local"):
        return None
    defaults = PROVIDERS[spec.provider]
    key = api_key or os.environ.get("JURYBOX_API_KEY") or (
        os.environ.get(defaults.key_env) if defaults.key_env else None)
    if defaults.key_required and not key and not is_loopback(base_url):
        raise ConfigError(f"{spec} needs an API key: export {defaults.key_env}=... "
                          f"(or JURYBOX_API_KEY); a --base-url on this machine "
                          f"(http://127.0.0.1:PORT/v1, e.g. jurybox serve-sim) needs none")
    return key


def make_provider(spec: ModelSpec, *, base_url: str | None = None, api_key: str | None = None,
                  timeout_s: float = 60.0, transport: Transport = "aiohttp"
                  ) -> Provider:
    """Build the provider for a non-simulated spec.

    The key comes from ``api_key``, else ``JURYBOX_API_KEY``, else the provider's own variable
    (``OPENAI_API_KEY`` for openai). A provider's required key is required for its service:
    at a ``base_url`` on this machine (:func:`is_loopback`: ``jurybox serve-sim``, a local
    proxy) none is needed, and one that is set is still sent.

    Raises:
        ConfigError: a required key is missing (the message names the variable), or the spec
            is ``sim`` (the simulated judge is started by ``jurybox.sim``).
    """
    if spec.provider in ("sim", "local"):
        raise ConfigError(f"the {spec.provider} judge is started by jurybox.run.open_endpoint")
    defaults = PROVIDERS[spec.provider]
    key = require_key(spec, base_url, api_key)
    if spec.provider == "anthropic":
        from .anthropic import AnthropicProvider  # the SDK is an optional extra

        # the SDK refuses to start without a key: a placeholder for a loopback server
        return AnthropicProvider(spec.model, api_key=key or "none", base_url=base_url,
                                 timeout_s=timeout_s)
    return OpenAICompatibleProvider(spec.provider, spec.model, base_url or defaults.base_url,
                                    api_key=key, timeout_s=timeout_s, transport=transport,
                                    dialect="llamacpp" if spec.provider == "llamacpp"
                                    else "openai")
