"""OpenAI's Batch API on the simulated judge: ``/v1/files`` and ``/v1/batches``.

Upload a JSONL file (purpose ``batch``) of ``{custom_id, method: "POST", url:
"/v1/chat/completions", body}`` lines, create a batch of it, poll it, then read its output
file (``{id, custom_id, response: {status_code: 200, request_id, body}, error: null}`` lines,
the body being what ``POST /v1/chat/completions`` answers for that body) and its error file
(failed requests with their status and error body; expired or cancelled ones with
``response: null, error: {code: "batch_expired" | "batch_cancelled", message}``), both in a
seeded shuffled order. A file with a bad line makes the batch ``failed`` with ``errors``
(code, message, line), as the real API validates.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from .answering import Answerer, body_key
from .batch_state import (SCRIPTED_ERROR, Batch, BatchStore, Request, after_cursor,
                          listing_limit)

__all__ = ["add_openai_batch_routes", "MAX_FILE_BYTES", "MAX_REQUESTS", "ENDPOINT"]

#: The largest batch input file, bytes (the real API's 200 MB).
MAX_FILE_BYTES = 200 * 1024 * 1024
#: The most requests in one batch (the real API's 50,000).
MAX_REQUESTS = 50_000
#: The one endpoint the simulated judge batches.
ENDPOINT = "/v1/chat/completions"
_MAX_ERRORS = 100  # validation errors listed, at most
_DAY_S = 86_400
_NOT_RUN = {"expired": ("batch_expired", "This request could not be executed before the "
                                         "completion window expired."),
            "canceled": ("batch_cancelled", "This request was not executed because the batch "
                                            "was cancelled.")}


def _error(status: int, message: str, code: str | None = None,
           param: str | None = None) -> web.Response:
    """OpenAI's error shape."""
    return web.json_response({"error": {"message": message, "type": "invalid_request_error",
                                        "param": param, "code": code}}, status=status)


@dataclass
class _File:
    id: str
    filename: str
    purpose: str
    content: bytes
    created_at: int

    def json(self) -> dict[str, Any]:
        return {"id": self.id, "object": "file", "bytes": len(self.content),
                "created_at": self.created_at, "filename": self.filename,
                "purpose": self.purpose, "status": "processed", "status_details": None}


def _line_error(code: str, message: str, line: int | None,
                param: str | None = None) -> dict[str, Any]:
    return {"code": code, "message": message, "param": param, "line": line}


def parse_input(content: bytes, endpoint: str
                ) -> tuple[list[tuple[str, dict[str, Any], str]], list[dict[str, Any]]]:
    """The requests of an input file (custom_id, body, attempt key) and its validation
    errors (``{code, message, param, line}``, line numbers from 1; at most 100)."""
    requests: list[tuple[str, dict[str, Any], str]] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    lines = content.decode("utf-8", errors="replace").splitlines()
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        problem = _check_line(text, number, endpoint, seen)
        if isinstance(problem, dict):
            errors.append(problem)
        else:
            requests.append(problem)
        if len(errors) >= _MAX_ERRORS:
            break
    if not requests and not errors:
        errors.append(_line_error("empty_file", "The input file has no requests.", None))
    elif len(requests) > MAX_REQUESTS:
        errors.append(_line_error("too_many_requests", f"The input file has {len(requests)} "
                                  f"requests; a batch holds at most {MAX_REQUESTS}.", None))
    return requests, errors


def _check_line(text: str, number: int, endpoint: str, seen: set[str]
                ) -> dict[str, Any] | tuple[str, dict[str, Any], str]:
    """One line as a request, or its validation error."""
    try:
        line = json.loads(text)
    except json.JSONDecodeError:
        return _line_error("invalid_json_line", "This line is not parseable as valid JSON.",
                           number)
    if not isinstance(line, dict):
        return _line_error("invalid_json_line", "This line is not a JSON object.", number)
    custom_id = line.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        return _line_error("missing_required_parameter", "Missing custom_id.", number,
                           "custom_id")
    if custom_id in seen:
        return _line_error("duplicate_custom_id", f"The custom_id {custom_id!r} is used by "
                           "an earlier line; custom_ids must be unique.", number, "custom_id")
    seen.add(custom_id)
    if line.get("method") != "POST":
        return _line_error("invalid_method", "The method must be 'POST'.", number, "method")
    if line.get("url") != endpoint:
        return _line_error("invalid_url", f"The url must be the batch's endpoint "
                           f"{endpoint!r}.", number, "url")
    body = line.get("body")
    if not isinstance(body, dict) or not isinstance(body.get("model"), str):
        return _line_error("missing_required_parameter", "Missing body.model.", number,
                           "body.model")
    return custom_id, body, line_key(body)


def line_key(body: dict[str, Any]) -> str:
    """The attempt key of a batch line's body: as the online endpoint keys the same body
    sent as ``json.dumps(body)`` (what an aiohttp client sends for ``json=body``)."""
    return body_key(json.dumps(body).encode())


class _OpenAIBatches:
    """The handlers; files and batches live here and in the shared store."""

    def __init__(self, store: BatchStore, answerer: Answerer) -> None:
        self.store, self.answerer = store, answerer
        self.files: dict[str, _File] = {}

    def _run(self, request: Request) -> tuple[int, dict[str, Any]]:
        if request.fate == "error":
            return 500, {"error": {"message": SCRIPTED_ERROR, "type": "server_error",
                                   "param": None, "code": None}}
        reply = self.answerer.chat(request.body, request.key)
        return reply.status, reply.body

    async def upload(self, request: web.Request) -> web.Response:
        """``POST /v1/files``, multipart: ``purpose`` (``batch``) and ``file``."""
        purpose, name, content = None, "upload.jsonl", None
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "purpose":
                purpose = (await part.read(decode=True)).decode()
            elif part.name == "file":
                name = part.filename or name
                content = bytearray()
                while chunk := await part.read_chunk():
                    content += chunk
                    if len(content) > MAX_FILE_BYTES:
                        return _error(400, f"The file is larger than the "
                                      f"{MAX_FILE_BYTES} bytes a batch input file may have.",
                                      "file_too_large", "file")
        if purpose != "batch":
            return _error(400, f"purpose must be 'batch' (the simulated judge stores batch "
                          f"input files only), got {purpose!r}", param="purpose")
        if content is None:
            return _error(400, "Missing the multipart field 'file'.", param="file")
        return web.json_response(self._add_file(name, "batch", bytes(content)).json())

    def _add_file(self, name: str, purpose: str, content: bytes) -> _File:
        file = _File(f"file-{uuid.uuid4().hex[:24]}", name, purpose, content,
                     int(self.store.clock()))
        self.files[file.id] = file
        return file

    def _file(self, request: web.Request) -> _File | web.Response:
        file_id = request.match_info["file_id"]
        return self.files.get(file_id) or _error(404, f"No such File object: {file_id}")

    async def file_info(self, request: web.Request) -> web.Response:
        file = self._file(request)
        return file if isinstance(file, web.Response) else web.json_response(file.json())

    async def file_content(self, request: web.Request) -> web.Response:
        file = self._file(request)
        if isinstance(file, web.Response):
            return file
        return web.Response(body=file.content, content_type="application/octet-stream")

    async def file_delete(self, request: web.Request) -> web.Response:
        file = self._file(request)
        if isinstance(file, web.Response):
            return file
        del self.files[file.id]
        return web.json_response({"id": file.id, "object": "file", "deleted": True})

    async def create(self, request: web.Request) -> web.Response:
        """``POST /v1/batches``: ``{input_file_id, endpoint, completion_window, metadata?}``."""
        try:
            params = json.loads(await request.read())
        except json.JSONDecodeError:
            return _error(400, "invalid JSON body")
        if not isinstance(params, dict):
            return _error(400, "the body must be a JSON object")
        file = self.files.get(str(params.get("input_file_id")))
        if file is None:
            return _error(400, f"No such File object: {params.get('input_file_id')}",
                          param="input_file_id")
        if params.get("endpoint") != ENDPOINT:
            return _error(400, f"endpoint must be {ENDPOINT!r} (the one the simulated judge "
                          f"serves), got {params.get('endpoint')!r}", param="endpoint")
        if params.get("completion_window") != "24h":
            return _error(400, "completion_window must be '24h'", param="completion_window")
        metadata = params.get("metadata")
        if metadata is not None and (not isinstance(metadata, dict) or len(metadata) > 16):
            return _error(400, "metadata must be an object of at most 16 keys",
                          param="metadata")
        requests, errors = parse_input(file.content, ENDPOINT)
        if self.store.script.reject:
            errors = [_line_error("rejected", "The batch was rejected (simulated: "
                                  "--batch-reject).", None)]
        batch = self.store.create("openai", "batch_", requests, self._run, errors=errors,
                                  extra={"input_file_id": file.id, "metadata": metadata})
        return web.json_response(self._json(batch, fresh=True))

    def _batch(self, request: web.Request) -> Batch | web.Response:
        batch_id = request.match_info["batch_id"]
        return (self.store.get(batch_id, "openai")
                or _error(404, f"No batch found with id '{batch_id}'."))

    async def retrieve(self, request: web.Request) -> web.Response:
        batch = self._batch(request)
        return batch if isinstance(batch, web.Response) else web.json_response(self._json(batch))

    async def cancel(self, request: web.Request) -> web.Response:
        """``POST /v1/batches/{id}/cancel``: ``cancelling`` (again: unchanged); 409 once it
        has ended (completed, expired, failed, cancelled)."""
        batch = self._batch(request)
        if isinstance(batch, web.Response):
            return batch
        now = self.store.clock()
        if batch.errors or batch.ended(now):
            return _error(409, f"Cannot cancel a batch with status "
                          f"'{self._status(batch, now)}'.")
        batch.cancel(now)
        return web.json_response(self._json(batch))

    async def listing(self, request: web.Request) -> web.Response:
        """``GET /v1/batches?limit=&after=``, newest first."""
        if (limit := listing_limit(request.query, 100)) is None:
            return _error(400, "limit must be an integer from 1 to 100", param="limit")
        batches = after_cursor(self.store.newest_first("openai"), request.query.get("after"))
        page = batches[:limit]
        return web.json_response({"object": "list", "data": [self._json(b) for b in page],
                                  "first_id": page[0].id if page else None,
                                  "last_id": page[-1].id if page else None,
                                  "has_more": len(batches) > limit})

    def _status(self, batch: Batch, now: float) -> str:
        if batch.errors:
            return "failed"
        if batch.cancel_at is not None:
            return "cancelled" if batch.ended(now) else "cancelling"
        if not batch.ended(now):
            return "in_progress"
        return "expired" if batch.counts()["expired"] else "completed"

    def _json(self, batch: Batch, *, fresh: bool = False) -> dict[str, Any]:
        """The batch object; ``fresh``: as created (``validating``)."""
        now = self.store.clock()
        status = "validating" if fresh else self._status(batch, now)
        if status in ("completed", "expired", "cancelled"):
            self._write_files(batch)
        counts = batch.counts()
        ended = int(batch.ends_at)
        stamp = {"completed": "completed_at", "expired": "expired_at",
                 "cancelled": "cancelled_at"}.get(status)
        return {
            "id": batch.id, "object": "batch", "endpoint": ENDPOINT,
            "errors": ({"object": "list", "data": batch.errors}
                       if batch.errors and not fresh else None),
            "input_file_id": batch.extra["input_file_id"], "completion_window": "24h",
            "status": status, "output_file_id": batch.extra.get("output_file_id"),
            "error_file_id": batch.extra.get("error_file_id"),
            "created_at": int(batch.created),
            "in_progress_at": None if fresh or batch.errors else int(batch.created),
            "expires_at": int(batch.created) + _DAY_S,
            "finalizing_at": ended if stamp in ("completed_at", "expired_at") else None,
            "completed_at": ended if stamp == "completed_at" else None,
            "failed_at": int(batch.created) if status == "failed" else None,
            "expired_at": ended if stamp == "expired_at" else None,
            "cancelling_at": None if batch.cancel_at is None else int(batch.cancel_at),
            "cancelled_at": ended if stamp == "cancelled_at" else None,
            "request_counts": {"total": len(batch.requests), "completed": counts["succeeded"],
                               "failed": counts["errored"]},
            "metadata": batch.extra["metadata"]}

    def _write_files(self, batch: Batch) -> None:
        """The output and error files of an ended batch, once (each only if it has lines)."""
        if batch.extra.get("written"):
            return
        batch.extra["written"] = True
        output: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        for request in batch.requests:
            line = _output_line(batch, request)
            (output if request.outcome == "succeeded" else failed).append(line)
        for kind, lines in (("output", output), ("error", failed)):
            if lines:
                content = "".join(json.dumps(line) + "\n" for line in lines).encode()
                file = self._add_file(f"{batch.id}_{kind}.jsonl", "batch_output", content)
                batch.extra[f"{kind}_file_id"] = file.id


def _output_line(batch: Batch, request: Request) -> dict[str, Any]:
    """One line of the output or error file."""
    ident = line_key({"batch": batch.id, "custom_id": request.custom_id})
    if request.outcome in _NOT_RUN:
        code, message = _NOT_RUN[request.outcome]
        return {"id": f"batch_req_{ident[:24]}", "custom_id": request.custom_id,
                "response": None, "error": {"code": code, "message": message}}
    return {"id": f"batch_req_{ident[:24]}", "custom_id": request.custom_id,
            "response": {"status_code": request.status, "request_id": f"req_{ident[24:48]}",
                         "body": request.reply},
            "error": None}


def add_openai_batch_routes(app: web.Application, store: BatchStore,
                            answerer: Answerer) -> None:
    """Serve OpenAI's files and batches endpoints (under ``/v1``) on ``app``."""
    api = _OpenAIBatches(store, answerer)
    app.router.add_post("/v1/files", api.upload)
    app.router.add_get("/v1/files/{file_id}", api.file_info)
    app.router.add_get("/v1/files/{file_id}/content", api.file_content)
    app.router.add_delete("/v1/files/{file_id}", api.file_delete)
    app.router.add_post("/v1/batches", api.create)
    app.router.add_get("/v1/batches", api.listing)
    app.router.add_get("/v1/batches/{batch_id}", api.retrieve)
    app.router.add_post("/v1/batches/{batch_id}/cancel", api.cancel)

