"""Batch files for a self-hosted server without a batch API (``--batch-files``): each batch
round is written to the run directory in OpenAI's batch line format, which ``vllm run-batch
-i FILE -o OUT`` reads, and its output is brought back with ``jurybox batch import``.

- A round's requests go to ``<run>/batches/<id>.input.jsonl`` (``{custom_id, method, url,
  body}``); the run then stops, saying what to run (:class:`~jurybox.errors.BatchFilesWritten`).
- ``jurybox batch export RUN`` gathers every input not yet answered into one file;
  ``jurybox batch import RUN OUT`` splits an output file (``{custom_id, response:
  {status_code, body}}`` lines) by batch into ``<run>/batches/<id>.output.jsonl``.
- The rerun of the command reads those outputs as a finished batch's results (through the
  same parsing, cache and calls.jsonl as any answer) and writes the next round, if any.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from ..providers import ChatRequest, OpenAICompatibleProvider
from ..rundir.files import write_text_atomic
from .api import BatchLimits, BatchResult, BatchStatus, Submitted
from .openai import OPENAI_LIMITS, _result

__all__ = ["BATCH_FILES_DIR", "FilesBatchAPI", "input_path", "output_path"]

#: The folder of batch files in the run directory.
BATCH_FILES_DIR = "batches"
#: A files batch's id at the "provider": its journal id, prefixed.
_PREFIX = "file:"


def input_path(folder: Path, batch: str) -> Path:
    """Where batch ``batch``'s requests are written."""
    return Path(folder) / BATCH_FILES_DIR / f"{batch}.input.jsonl"


def output_path(folder: Path, batch: str) -> Path:
    """Where ``jurybox batch import`` puts batch ``batch``'s answers."""
    return Path(folder) / BATCH_FILES_DIR / f"{batch}.output.jsonl"


class FilesBatchAPI:
    """Batch rounds as files in the run directory (see the module docstring).

    Args:
        provider: the endpoint the lines name (its model and request body dialect).
        folder: the run directory.
    """

    def __init__(self, provider: OpenAICompatibleProvider, folder: Path,
                 limits: BatchLimits = OPENAI_LIMITS) -> None:
        self._p, self.folder, self.limits = provider, Path(folder), limits
        self.provider = provider.name
        self.written: list[Path] = []

    def line(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
                "body": self._p._payload(request)}

    async def check(self) -> None:
        return None  # nothing is sent

    async def submit(self, lines: list[dict[str, Any]], tag: str,
                     on_file: Callable[[str], None]) -> Submitted:
        path = input_path(self.folder, tag)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, "".join(json.dumps(line, ensure_ascii=False) + "\n"
                                        for line in lines))
        self.written.append(path)
        return Submitted(_PREFIX + tag, str(path))

    async def status(self, batch_id: str) -> BatchStatus:
        answered = output_path(self.folder, batch_id.removeprefix(_PREFIX)).is_file()
        return BatchStatus("imported" if answered else "written", answered)

    async def results(self, batch_id: str) -> AsyncIterator[BatchResult]:
        path = output_path(self.folder, batch_id.removeprefix(_PREFIX))
        with path.open("rb") as fh:
            for raw in fh:
                result = _result(raw, False)
                if result is not None:
                    yield result

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        return _PREFIX + tag if input_path(self.folder, tag).is_file() else None

    async def cancel(self, batch_id: str) -> BatchStatus:
        return await self.status(batch_id)

    async def aclose(self) -> None:
        await self._p.aclose()
