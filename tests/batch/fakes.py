"""An in-memory batch API and online endpoint for the dispatcher's tests: the "provider's"
state lives in a :class:`FakeServer` that outlives a dispatcher (a restart after a kill)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from jurybox.batch.api import BatchLimits, BatchResult, BatchStatus, Submitted
from jurybox.errors import BatchRejectedError, RetryableProviderError
from jurybox.providers import ChatRequest, ChatResponse, Usage


def answer_of(request: ChatRequest) -> str:
    """The fake judge's answer: the last message upper-cased."""
    return request.messages[-1].content.upper()


@dataclass
class FakeBatch:
    id: str
    tag: str
    lines: list[dict[str, Any]]
    polls_left: int
    cancelled: bool = False


@dataclass
class FakeServer:
    """Batches by id; each ends after ``polls`` status calls. ``outcome(custom_id)`` says how
    a request ends (``succeeded`` by default)."""

    polls: int = 1
    outcome: Callable[[str], str] = lambda cid: "succeeded"
    reject: bool = False
    batches: dict[str, FakeBatch] = field(default_factory=dict)
    submitted: Counter[str] = field(default_factory=Counter)
    extra_results: list[BatchResult] = field(default_factory=list)
    find_fails: bool = False

    def create(self, tag: str, lines: list[dict[str, Any]]) -> str:
        batch_id = f"b{len(self.batches) + 1}"
        self.batches[batch_id] = FakeBatch(batch_id, tag, lines, self.polls)
        for line in lines:
            self.submitted[line["custom_id"]] += 1
        return batch_id


class FakeAPI:
    provider = "fake"

    def __init__(self, server: FakeServer, limits: BatchLimits = BatchLimits(1000, 10**9),
                 kill_after_create: bool = False) -> None:
        self.server, self.limits = server, limits
        self.kill_after_create = kill_after_create

    def line(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        return {"custom_id": custom_id, "text": request.messages[-1].content}

    async def check(self) -> None:
        return None

    async def submit(self, lines: list[dict[str, Any]], tag: str,
                     on_file: Callable[[str], None]) -> Submitted:
        if self.server.reject:
            raise BatchRejectedError("invalid_request: line 1 is not valid")
        on_file(f"file-{tag}")
        batch_id = self.server.create(tag, lines)
        if self.kill_after_create:  # the process dies before it writes the batch id
            raise KeyboardInterrupt
        return Submitted(batch_id, f"file-{tag}")

    async def status(self, batch_id: str) -> BatchStatus:
        batch = self.server.batches[batch_id]
        batch.polls_left -= 1
        ended = batch.polls_left <= 0 or batch.cancelled
        n = len(batch.lines)
        return BatchStatus("completed" if ended else "in_progress", ended,
                           done=n if ended else 0, total=n)

    async def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        batch = self.server.batches[batch_id]
        for line in reversed(batch.lines):  # any order
            cid, kind = line["custom_id"], self.server.outcome(line["custom_id"])
            if batch.cancelled:
                kind = "canceled"
            if kind == "succeeded":
                yield BatchResult(cid, "succeeded", ChatResponse(
                    text=line["text"].upper(), usage=Usage(prompt_tokens=10,
                                                           completion_tokens=2), batch=True))
            elif kind != "missing":
                yield BatchResult(cid, kind, error=f"request {kind}",  # type: ignore[arg-type]
                                  retryable=kind != "errored-4xx")
        for extra in self.server.extra_results:
            yield extra

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        await asyncio.sleep(0.01)  # a round trip: other asks run meanwhile
        if self.server.find_fails:
            raise RetryableProviderError("HTTP 503: busy")
        for batch in self.server.batches.values():
            if batch.tag == tag:
                return batch.id
        return None

    async def cancel(self, batch_id: str) -> BatchStatus:
        self.server.batches[batch_id].cancelled = True
        return BatchStatus("cancelling", False)

    async def aclose(self) -> None:
        return None


class FakeOnline:
    """The online endpoint behind the dispatcher (for ``fallback="online"``)."""

    name, model, simulated = "fake", "judge", False

    def __init__(self) -> None:
        self.calls = 0

    def cache_identity(self) -> dict[str, Any]:
        return {"provider": "fake", "model": "judge"}

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        return ChatResponse(text=answer_of(request))

    async def check(self) -> None:
        return None

    async def aclose(self) -> None:
        return None
