"""How jurybox reaches an OpenAI-compatible server: the HTTP client and the server's dialect
of structured output (names only: a light module, read by the run options and the CLI)."""

from typing import Literal

__all__ = ["Dialect", "Transport"]

#: HTTP client for OpenAI-compatible endpoints: the lean aiohttp POST, or the openai SDK.
Transport = Literal["aiohttp", "sdk"]
#: How a server spells structured output (see :mod:`jurybox.providers.openai_compat`).
Dialect = Literal["openai", "llamacpp"]
