"""What a provider's batch API offers jurybox: submit lines, poll a batch, read its results.

Two implementations: :class:`~.openai.OpenAIBatchAPI` (OpenAI's Batch API: a JSONL file
uploaded to ``/v1/files``, a batch created on ``/v1/batches``; also any OpenAI-compatible
server that serves both) and :class:`~.anthropic.AnthropicBatchAPI` (Anthropic's Message
Batches, through the ``anthropic`` SDK). The dispatcher (:mod:`.dispatcher`) never knows which.

A request's ``custom_id`` is its cache key (64 hex digits, within both providers' rules:
OpenAI any string, Anthropic ``^[a-zA-Z0-9_-]{1,64}$``), so results that come back in any
order are matched to requests by it, and a journal of custom ids says which requests a batch
holds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..providers import ChatRequest, ChatResponse

__all__ = ["BatchAPI", "BatchLimits", "BatchResult", "BatchStatus", "ResultKind"]

#: How one request of a batch ended: answered, errored (the provider's error for that
#: request), expired (the window ended first), canceled (the batch was cancelled first).
ResultKind = Literal["succeeded", "errored", "expired", "canceled"]


@dataclass(frozen=True)
class BatchLimits:
    """A provider's limits on one batch.

    Attributes:
        max_requests: requests per batch (OpenAI 50,000; Anthropic 100,000).
        max_bytes: bytes of the batch's input (OpenAI's file: 200 MB; Anthropic 256 MB).
    """

    max_requests: int
    max_bytes: int


@dataclass(frozen=True)
class BatchStatus:
    """A batch as the provider reports it.

    Attributes:
        state: the provider's own word (``validating``, ``in_progress``, ``completed``,
            ``expired``, ``failed``, ``cancelled``...; Anthropic ``in_progress``,
            ``canceling``, ``ended``).
        ended: True when no request of it will change any more (results can be read).
        done: requests that ended so far (answered, errored, expired or canceled).
        failed: requests that ended without an answer so far.
        total: requests in the batch (0 when the provider does not say yet).
        rejected: the provider refused the whole batch (OpenAI ``failed`` validation): the
            reason, else None.
    """

    state: str
    ended: bool
    done: int = 0
    failed: int = 0
    total: int = 0
    rejected: str | None = None


@dataclass(frozen=True)
class BatchResult:
    """One request's result.

    Attributes:
        custom_id: the request's cache key.
        kind: how it ended.
        response: the answer (``kind == "succeeded"``), with ``batch=True``.
        error: the provider's message otherwise.
        retryable: an errored request a later attempt may answer (HTTP 429 or 5xx, or an
            error the provider calls transient); expired and canceled ones always are.
    """

    custom_id: str
    kind: ResultKind
    response: ChatResponse | None = None
    error: str | None = None
    retryable: bool = True


@dataclass
class Submitted:
    """What :meth:`BatchAPI.submit` made: the provider's batch id, and the uploaded input
    file's id (OpenAI; None for Anthropic)."""

    batch_id: str
    file_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class BatchAPI(Protocol):
    """A provider's batch API.

    Attributes:
        provider: the provider's name (``openai``, ``anthropic``; an OpenAI-compatible
            server's name from the model spec).
        limits: its limits on one batch.
    """

    provider: str
    limits: BatchLimits

    def line(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        """The request as one line of the provider's batch input (a JSON-able dict)."""
        ...

    async def check(self) -> None:
        """Fail with :class:`~jurybox.errors.ConfigError` (one line naming ``--batch``)
        when the endpoint has no batch API."""
        ...

    async def submit(self, lines: list[dict[str, Any]], tag: str,
                     on_file: Callable[[str], None]) -> Submitted:
        """Create a batch of ``lines`` labelled ``tag`` (the journal's id for it); for
        OpenAI, ``on_file(file_id)`` is called after the upload and before the batch is
        created, so the journal holds the file before any batch can exist.

        Raises:
            BatchRejectedError: the provider refused the batch (invalid requests).
            ProviderError: the endpoint cannot take batches (HTTP 401/403/404: fatal).
            RetryableProviderError: 429, 5xx, a dropped connection (try again later).
        """
        ...

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's state and counts."""
        ...

    def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        """Every result of an ended batch, in the provider's order (any order)."""
        ...

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        """The id of a batch created for ``tag`` whose id was never journalled (the process
        was killed between creating it and writing its id): matched by the tag (OpenAI's
        batch metadata) or input file id, else (Anthropic, which keeps no metadata) by its
        request count among batches created since ``created_after`` (Unix seconds). None:
        no batch was created."""
        ...

    async def cancel(self, batch_id: str) -> BatchStatus:
        """Ask the provider to cancel the batch (requests already answered stay answered)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
