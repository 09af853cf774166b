"""Response cache: reruns cost nothing."""

from .keys import KEY_VERSION, cache_key, canonical_json
from .store import SCHEMA_VERSION, ResponseCache

__all__ = ["KEY_VERSION", "SCHEMA_VERSION", "ResponseCache", "cache_key", "canonical_json"]
