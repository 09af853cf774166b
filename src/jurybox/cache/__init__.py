"""Response cache: reruns cost nothing."""

from .keys import KEY_VERSION, cache_key, canonical_json
from .store import SCHEMA_VERSION, CacheDamagedError, ResponseCache

__all__ = ["KEY_VERSION", "SCHEMA_VERSION", "CacheDamagedError", "ResponseCache", "cache_key",
           "canonical_json"]
