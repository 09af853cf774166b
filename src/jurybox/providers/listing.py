"""``GET /models`` answers: the model ids a server lists, whether it is jurybox's simulated
judge (its ``owned_by``) and what that judge knows."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .responses import MAX_BODY_BYTES

__all__ = ["ANY_MODEL_NAME", "SIM_KNOWS_FIELD", "SIM_OWNER", "listed_models", "models_of",
           "odd_replica", "owners_of", "read_listing", "sim_knows_of", "unlisted_model"]

#: ``owned_by`` of the simulated judge's models; a provider that sees it knows the judge is
#: simulated, however it was reached.
SIM_OWNER = "jurybox-sim"
#: Field of the simulated judge's ``/models`` entry holding what it knows (a digest of its
#: items and their gold): a provider that reaches serve-sim by URL adds it to its cache
#: identity, so the same server restarted with another dataset or gold is another judge.
SIM_KNOWS_FIELD = "jurybox_sim_knows"

#: Servers that answer whatever model name a request gives (llama.cpp's servers serve their
#: one loaded model): a name missing from their ``/models`` list is no sign of a typo.
ANY_MODEL_NAME = frozenset({"llamacpp", "local"})


def listed_models(listing: object) -> list[str] | None:
    """The sorted model ids of a ``GET /models`` body, or None (a body without a usable list).

    >>> listed_models({"data": [{"id": "b"}, {"id": "a"}, {"id": 3}]}), listed_models({})
    (['a', 'b'], None)
    """
    ids = sorted({m["id"] for m in models_of(listing)
                  if isinstance(m, dict) and isinstance(m.get("id"), str)})
    return ids or None


def unlisted_model(model: str, listing: object) -> list[str] | None:
    """The model ids a ``GET /models`` body lists when ``model`` is not among them, else None
    (listed, or a body without a usable list: nothing to say). Ollama's ``name:latest`` counts
    as ``name``, which Ollama accepts.

    >>> unlisted_model("gpt-4o-mini", {"data": [{"id": "gpt-4o"}, {"id": "gpt-4.1"}]})
    ['gpt-4.1', 'gpt-4o']
    >>> unlisted_model("llama3.1", {"data": [{"id": "llama3.1:latest"}]}) is None
    True
    """
    ids = listed_models(listing) or []
    if not ids or model in ids or f"{model}:latest" in ids:
        return None
    return ids


def models_of(listing: object) -> list[Any]:
    """The entries of a ``GET /models`` body's ``data`` list ([] for a body without one:
    ``{"data": null}``, another shape, not an object)."""
    data = listing.get("data") if isinstance(listing, dict) else None
    return data if isinstance(data, list) else []


def owners_of(listing: object) -> set[str]:
    """The ``owned_by`` values of a ``GET /models`` body (strings only)."""
    return {m["owned_by"] for m in models_of(listing)
            if isinstance(m, dict) and isinstance(m.get("owned_by"), str)}


def read_listing(body: bytes) -> object:
    """A ``GET`` answer's JSON (``/models``, ``/sim/stats``); a body that is too long, not
    JSON or nested too deeply reads as None (a server with no usable list)."""
    if len(body) > MAX_BODY_BYTES:
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def sim_knows_of(listing: object) -> str | None:
    """The simulated judge's knowledge digest in a ``/models`` body, or None."""
    for m in models_of(listing):
        if isinstance(m, dict) and m.get("owned_by") == SIM_OWNER and isinstance(
                m.get(SIM_KNOWS_FIELD), str):
            return str(m[SIM_KNOWS_FIELD])
    return None


def odd_replica(model: str, listings: Sequence[tuple[str, list[str] | None]]) -> str | None:
    """Why the replicas do not serve one model (one line naming the odd replica), or None.

    ``listings`` holds each replica's URL (as shown) and the model ids its ``GET /models``
    listed (None: it lists none; it is then not compared). A replica that lacks ``model``
    (``model:latest`` counts, as Ollama names it) where another lists it is odd; when none
    lists ``model`` (servers that take any name, as llama.cpp), a replica whose list differs
    from the most common one is.

    >>> odd_replica("m", [("http://a/v1", ["m"]), ("http://b/v1", ["n"])])[:40]
    "replica http://b/v1 does not serve 'm': "
    >>> odd_replica("m", [("http://a/v1", ["x.gguf"]), ("http://b/v1", None)]) is None
    True
    """
    listed = [(url, ids) for url, ids in listings if ids is not None]
    if len(listed) < 2:
        return None

    def shown(ids: list[str]) -> str:
        return ", ".join(ids[:5]) + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")

    serving = [url for url, ids in listed if model in ids or f"{model}:latest" in ids]
    if serving and len(serving) < len(listed):
        url, ids = next((u, i) for u, i in listed if u not in serving)
        return (f"replica {url} does not serve {model!r}: it lists {shown(ids)}, while "
                f"{serving[0]} lists {model!r}; the replicas of a pool serve one model (check "
                f"--base-url or the endpoints file)")
    if serving:
        return None
    common, _ = Counter(tuple(ids) for _, ids in listed).most_common(1)[0]
    odd = next(((u, i) for u, i in listed if tuple(i) != common), None)
    if odd is None:
        return None
    first = next(u for u, i in listed if tuple(i) == common)
    return (f"replica {odd[0]} lists other models ({shown(odd[1])}) than {first} "
            f"({shown(list(common))}); the replicas of a pool serve one model (check "
            f"--base-url or the endpoints file)")
