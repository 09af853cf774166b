"""Cache keys: sha256 of canonical JSON of everything that changes a judge's answer.

The key covers: key version, the endpoint identity (provider, base URL, model), messages,
sampling parameters, seed and sample index, and the structured-output mode and schema when the
request asks for one (a request without one hashes as it did before structured outputs).
Canonical JSON = sorted keys, no whitespace, UTF-8 (``ensure_ascii=False``). Changing any of
this changes every key: bump KEY_VERSION and the golden test in tests/cache together.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..providers import ChatRequest

__all__ = ["KEY_VERSION", "cache_key", "canonical_json"]

KEY_VERSION = 1


def canonical_json(value: Any) -> str:
    """Deterministic JSON text: sorted keys, compact separators, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(identity: dict[str, Any], request: ChatRequest) -> str:
    """64-hex-digit sha256 key of (KEY_VERSION, identity, request).

    Args:
        identity: the provider's ``cache_identity()``.
        request: the chat request.
    """
    payload = {
        "key_version": KEY_VERSION,
        "endpoint": identity,
        "messages": [[m.role, m.content] for m in request.messages],
        "sampling": request.sampling(),
        "seed": request.seed,
        "sample_index": request.sample_index,
    }
    if request.answer_format is not None:  # absent when off: earlier keys stay the same
        payload["answer_format"] = {"mode": request.answer_format.mode,
                                    "schema": request.answer_format.schema_text}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()
