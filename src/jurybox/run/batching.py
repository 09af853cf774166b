"""Batch mode in a run: the dispatcher over the run's endpoint (its batch API, or batch files
in the run directory), and what a session says when it ends with batches in flight."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from ..batch import BatchAPI, BatchEvent, BatchOptions, BatchProvider, batch_api
from ..batch.files import BATCH_FILES_DIR, FilesBatchAPI
from ..errors import BatchFilesWritten, ConfigError
from ..providers import OpenAICompatibleProvider, Provider
from ..providers.pool import PoolProvider
from ..rundir import RunDir
from ..rundir.batches import BatchJournal, endpoint_digest
from ..runner import AnswerStore

__all__ = ["BATCH_CONCURRENCY", "batch_api_for", "close_batches", "open_batches"]

log = logging.getLogger(__name__)

#: Calls the runner holds at once in batch mode: every request of the window's stage waits in
#: a batch (the endpoint's own concurrency limits only the online fallback).
BATCH_CONCURRENCY = 1_000_000


def batch_api_for(provider: Provider, folder: Path, options: BatchOptions) -> BatchAPI:
    """The run's batch API: the provider's, or batch files in the run directory (for an
    endpoint pool, the lines of its first replica: every replica serves the same model)."""
    if not options.files:
        return batch_api(provider)
    if isinstance(provider, PoolProvider):
        provider = provider.replicas()[0][0]
    if not isinstance(provider, OpenAICompatibleProvider):
        raise ConfigError(f"--batch-files writes OpenAI batch lines (vllm run-batch), for an "
                          f"OpenAI-compatible endpoint; the {provider.name} judge is not one: "
                          f"use --batch")
    return FilesBatchAPI(provider, folder)


async def close_batches(batch: BatchProvider, folder: Path) -> None:
    """End batch mode's session: say what is still in flight at the provider (a rerun
    collects it; nothing is sent twice)."""
    await batch.stop()
    if batch.stats.unknown_results:
        log.warning("%d batch result line(s) answered requests this run never sent (ignored)",
                    batch.stats.unknown_results)
    waiting = batch.in_flight()
    if waiting and not isinstance(batch.api, FilesBatchAPI):  # files: the stop says it
        log.warning("%d batch(es) with %d request(s) still in flight at %s: rerun the same "
                    "command to collect them (no request is sent twice), or cancel them with "
                    "`jurybox batch cancel %s`", len(waiting), sum(waiting.values()),
                    batch.name, folder)


def open_batches(provider: Provider, rundir: RunDir, options: BatchOptions, *,
                 store: AnswerStore | None, concurrency: int,
                 on_event: Callable[[BatchEvent], None] | None,
                 stop: Callable[[BatchFilesWritten], None]) -> BatchProvider:
    """The dispatcher sending this session's requests as batches, journalled in ``rundir``.

    Args:
        provider: the run's (checked) endpoint.
        rundir: the open run directory (its session number names new batches).
        options: batch mode's settings.
        store: the answer cache (a batch that ended before a restart is read again only for
            the answers it lacks).
        concurrency: calls in flight for the online fallback.
        on_event: progress callback for batch state changes.
        stop: called once with what to tell the user when a ``--batch-files`` round is
            written and nothing else can proceed.

    Raises:
        ConfigError: a journal of another judge in the run directory; no batch API.
    """
    journal = BatchJournal(rundir.path, endpoint_digest(provider.cache_identity()),
                           rundir.session_index)
    api = batch_api_for(provider, rundir.path, options)

    def written() -> None:
        model = getattr(provider, "model", "MODEL")
        folder = rundir.path
        stop(BatchFilesWritten(
            f"the requests of this batch round are written to {folder / BATCH_FILES_DIR}; "
            f"gather them with `jurybox batch export {folder} -o requests.jsonl`, run them "
            f"(e.g. `vllm run-batch -i requests.jsonl -o results.jsonl --model {model}`), "
            f"bring the answers back with `jurybox batch import {folder} results.jsonl`, "
            f"then rerun this command (it writes the next round, if the protocol has one)"))

    return BatchProvider(provider, api, journal, options,
                         answered=lambda key: store is not None and store.get(key) is not None,
                         on_event=on_event, online_concurrency=concurrency,
                         on_waiting=written if isinstance(api, FilesBatchAPI) else None)
