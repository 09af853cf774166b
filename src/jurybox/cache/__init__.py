"""Response cache: reruns cost nothing."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["KEY_VERSION", "SCHEMA_VERSION", "CacheDamagedError", "ResponseCache", "cache_key",
           "canonical_json"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .keys import KEY_VERSION, cache_key, canonical_json
    from .store import SCHEMA_VERSION, CacheDamagedError, ResponseCache
