"""Anthropic's Message Batches API on the simulated judge: ``/v1/messages/batches``.

Create a batch of ``{custom_id, params}`` requests, poll it until ``processing_status`` is
``ended``, then read its ``results_url``: JSONL lines ``{custom_id, result}`` in a seeded
shuffled order, the result being ``{type: "succeeded", message}`` (what ``POST
/v1/messages`` answers for those params), ``{type: "errored", error: {type: "error", error:
{type, message}}}``, ``{type: "canceled"}`` or ``{type: "expired"}``. The ``anthropic`` SDK's
``messages.batches`` works against it.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from aiohttp import web

from .answering import Answerer, anthropic_error_body, body_key
from .batch_state import (SCRIPTED_ERROR, Batch, BatchStore, Request, after_cursor,
                          listing_limit)

__all__ = ["add_anthropic_batch_routes", "MAX_BODY_BYTES", "MAX_REQUESTS"]

#: The largest create request, bytes (the real API's 256 MB).
MAX_BODY_BYTES = 256 * 1024 * 1024
#: The most requests in one batch (the real API's 100,000).
MAX_REQUESTS = 100_000
_CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_DAY_S = 86_400
_PATH = "/v1/messages/batches"


def _error(status: int, kind: str, message: str) -> web.Response:
    return web.json_response(anthropic_error_body(kind, message), status=status)


def _rfc3339(t: float | None) -> str | None:
    """``2024-08-20T18:37:24.100435Z`` (None stays None)."""
    if t is None:
        return None
    return datetime.fromtimestamp(t, timezone.utc).isoformat().replace("+00:00", "Z")


def parse_requests(body: Any) -> list[tuple[str, dict[str, Any], str]] | str:
    """The batch's requests (custom_id, params, attempt key), or what is wrong with them."""
    if not isinstance(body, dict) or not isinstance(body.get("requests"), list):
        return "requests: Field required (a list of {custom_id, params})"
    items = body["requests"]
    if not items:
        return "requests: the batch must have at least one request"
    if len(items) > MAX_REQUESTS:
        return f"requests: {len(items)} requests; a batch holds at most {MAX_REQUESTS}"
    seen: set[str] = set()
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return f"requests.{i}: must be an object with custom_id and params"
        custom_id, params = item.get("custom_id"), item.get("params")
        if not isinstance(custom_id, str) or not _CUSTOM_ID.fullmatch(custom_id):
            return (f"requests.{i}.custom_id: {custom_id!r} does not match "
                    f"'^[a-zA-Z0-9_-]{{1,64}}$'")
        if custom_id in seen:
            return f"requests.{i}.custom_id: {custom_id!r} is not unique in the batch"
        seen.add(custom_id)
        if not isinstance(params, dict):
            return f"requests.{i}.params: must be an object (a Messages API request)"
        out.append((custom_id, params, body_key(json.dumps(params).encode())))
    return out


class _AnthropicBatches:
    def __init__(self, store: BatchStore, answerer: Answerer) -> None:
        self.store, self.answerer = store, answerer

    def _run(self, request: Request) -> tuple[int, dict[str, Any]]:
        if request.fate == "error":
            return 500, anthropic_error_body("api_error", SCRIPTED_ERROR)
        reply = self.answerer.messages(request.body, request.key)
        return reply.status, reply.body

    async def create(self, request: web.Request) -> web.Response:
        """``POST /v1/messages/batches``: ``{requests: [{custom_id, params}]}``."""
        raw = bytearray()
        async for chunk in request.content.iter_chunked(1 << 16):
            raw += chunk
            if len(raw) > MAX_BODY_BYTES:
                return _error(413, "request_too_large", f"Request exceeds the maximum "
                              f"size of a message batch ({MAX_BODY_BYTES} bytes).")
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return _error(400, "invalid_request_error", "invalid JSON body")
        requests = parse_requests(body)
        if isinstance(requests, str):
            return _error(400, "invalid_request_error", requests)
        if self.store.script.reject:
            return _error(400, "invalid_request_error",
                          "The batch was rejected (simulated: --batch-reject).")
        batch = self.store.create("anthropic", "msgbatch_", requests, self._run)
        return web.json_response(self._json(batch, request))

    def _batch(self, request: web.Request) -> Batch | web.Response:
        batch_id = request.match_info["batch_id"]
        return (self.store.get(batch_id, "anthropic")
                or _error(404, "not_found_error", f"No message batch with id {batch_id!r}."))

    async def retrieve(self, request: web.Request) -> web.Response:
        batch = self._batch(request)
        if isinstance(batch, web.Response):
            return batch
        return web.json_response(self._json(batch, request))

    async def cancel(self, request: web.Request) -> web.Response:
        """``POST .../{id}/cancel``: ``canceling`` (again: unchanged); 409 once processing
        has ended."""
        batch = self._batch(request)
        if isinstance(batch, web.Response):
            return batch
        now = self.store.clock()
        if batch.ended(now):
            return _error(409, "invalid_request_error",
                          f"Message batch {batch.id} has ended; it cannot be canceled.")
        batch.cancel(now)
        return web.json_response(self._json(batch, request))

    async def results(self, request: web.Request) -> web.Response:
        """``GET .../{id}/results``: JSONL, once processing has ended (404 before)."""
        batch = self._batch(request)
        if isinstance(batch, web.Response):
            return batch
        if not batch.ended(self.store.clock()):
            return _error(404, "not_found_error", f"Message batch {batch.id} has not ended; "
                          f"its results are not available yet.")
        lines = "".join(json.dumps({"custom_id": r.custom_id, "result": _result(r)}) + "\n"
                        for r in batch.requests)
        return web.Response(body=lines.encode(), content_type="application/x-jsonl")

    async def listing(self, request: web.Request) -> web.Response:
        """``GET /v1/messages/batches?limit=&after_id=&before_id=``, newest first."""
        if (limit := listing_limit(request.query, 1000)) is None:
            return _error(400, "invalid_request_error", "limit: must be from 1 to 1000")
        batches = self.store.newest_first("anthropic")
        if (before := request.query.get("before_id")) is not None:  # the newer ones
            ids = [b.id for b in batches]
            newer = batches[:ids.index(before)] if before in ids else []
            page = newer[-limit:]
            has_more = len(newer) > limit
        else:
            batches = after_cursor(batches, request.query.get("after_id"))
            page, has_more = batches[:limit], len(batches) > limit
        return web.json_response({"data": [self._json(b, request) for b in page],
                                  "has_more": has_more,
                                  "first_id": page[0].id if page else None,
                                  "last_id": page[-1].id if page else None})

    def _json(self, batch: Batch, request: web.Request) -> dict[str, Any]:
        now = self.store.clock()
        ended = batch.ended(now)
        status = "ended" if ended else "in_progress" if batch.cancel_at is None else "canceling"
        counts = batch.counts()
        return {"id": batch.id, "type": "message_batch", "processing_status": status,
                "request_counts": {k: counts[k] for k in ("processing", "succeeded", "errored",
                                                          "canceled", "expired")},
                "ended_at": _rfc3339(batch.ends_at) if ended else None,
                "created_at": _rfc3339(batch.created),
                "expires_at": _rfc3339(batch.created + _DAY_S),
                "archived_at": None, "cancel_initiated_at": _rfc3339(batch.cancel_at),
                "results_url": (f"{request.url.origin()}{_PATH}/{batch.id}/results"
                                if ended else None)}


def _result(request: Request) -> dict[str, Any]:
    if request.outcome == "succeeded":
        return {"type": "succeeded", "message": request.reply}
    if request.outcome == "errored":
        return {"type": "errored", "error": request.reply}
    return {"type": request.outcome}  # canceled, expired


def add_anthropic_batch_routes(app: web.Application, store: BatchStore,
                               answerer: Answerer) -> None:
    """Serve Anthropic's Message Batches endpoints on ``app``."""
    api = _AnthropicBatches(store, answerer)
    app.router.add_post(_PATH, api.create)
    app.router.add_get(_PATH, api.listing)
    app.router.add_get(_PATH + "/{batch_id}", api.retrieve)
    app.router.add_get(_PATH + "/{batch_id}/results", api.results)
    app.router.add_post(_PATH + "/{batch_id}/cancel", api.cancel)
