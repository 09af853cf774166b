"""The batch journal, ``batches.jsonl``: every provider batch a run made, written before the
batch exists, so a run killed at any point finds its batches again and never pays for a
request twice while its batch can still answer.

Append-only JSON lines, one event each, flushed and fsynced as written:

- ``intent``: the journal's id for a batch (``batch``), the provider, the judge's endpoint
  digest, the request count and every ``custom_id`` (cache key), the time: written
  *before* anything is sent.
- ``file``: the uploaded input file's id (OpenAI), written before the batch is created.
- ``created``: the provider's batch id.
- ``ended``: the provider's final state and counts (results can be read).
- ``rejected``: the provider refused the batch (its requests are recorded failures).
- ``lost``: no batch was ever created for an intent (found nowhere at the provider).
- ``cancel``: ``jurybox batch cancel`` asked the provider to cancel it.

:func:`read_journal` folds the events into one :class:`JournalBatch` per id. A line cut
short by a kill is skipped, and dropped before the next session appends to the journal.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError
from .files import SCHEMA_VERSION

__all__ = ["BATCHES_FILE", "BatchJournal", "JournalBatch", "endpoint_digest", "read_journal"]

#: The journal's file name in the run directory.
BATCHES_FILE = "batches.jsonl"


def endpoint_digest(identity: dict[str, Any]) -> str:
    """A short digest of a provider's cache identity: the journal's check that its batches
    belong to this judge."""
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class JournalBatch:
    """One batch as the journal knows it.

    Attributes:
        batch: the journal's id (``<session>-<n>``).
        provider: the provider's name.
        endpoint: :func:`endpoint_digest` of the judge it was sent to.
        custom_ids: its requests' cache keys, in submission order.
        at: when the intent was written, Unix seconds.
        file_id / batch_id: the provider's ids, once known.
        state: the provider's last reported state (``intent`` before creation).
        ended: no request of it changes any more (or it was never created: ``lost``,
            ``rejected``).
        counts: the last ``done``/``failed``/``total`` the provider reported.
        reason: why it was rejected or lost.
        cancel_requested: ``jurybox batch cancel`` asked for it.
    """

    batch: str
    provider: str
    endpoint: str
    custom_ids: list[str]
    at: float
    file_id: str | None = None
    batch_id: str | None = None
    state: str = "intent"
    ended: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    reason: str | None = None
    cancel_requested: bool = False

    @property
    def in_flight(self) -> bool:
        """Created (or maybe created) and not ended: its requests may still be answered."""
        return not self.ended


def read_journal(path: Path) -> dict[str, JournalBatch]:
    """The journal at ``path`` folded into batches by id, in the order they were journalled
    ({} when there is no journal).

    Raises:
        DataError: a complete line that is not a journal event (naming the line).
    """
    batches: dict[str, JournalBatch] = {}
    if not path.is_file():
        return batches
    with path.open(encoding="utf-8", errors="replace") as fh:
        lines = fh.read().split("\n")
    for line_no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            if line_no == len(lines):  # the last line, cut short by a kill
                continue
            raise DataError(path, "not a JSON line (the journal was changed outside jurybox)",
                            line=line_no) from None
        _apply(path, line_no, batches, event)
    return batches


def _apply(path: Path, line_no: int, batches: dict[str, JournalBatch], event: Any) -> None:
    """Fold one event into ``batches``."""
    if not isinstance(event, dict) or not isinstance(event.get("batch"), str):
        raise DataError(path, "not a batch journal event", line=line_no, field="batch")
    kind, key = event.get("event"), event["batch"]
    if kind == "intent":
        ids = event.get("custom_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise DataError(path, "must be a list of strings", line=line_no, field="custom_ids")
        batches[key] = JournalBatch(key, str(event.get("provider")), str(event.get("endpoint")),
                                    ids, float(event.get("at") or 0.0))
        return
    entry = batches.get(key)
    if entry is None:
        raise DataError(path, f"names batch {key!r}, which has no intent line before it",
                        line=line_no, field="batch")
    if kind == "file":
        entry.file_id = str(event.get("file_id"))
    elif kind == "created":
        entry.batch_id, entry.state = str(event.get("batch_id")), "created"
    elif kind == "ended":
        entry.state, entry.ended = str(event.get("state")), True
        entry.counts = {k: int(v) for k, v in (event.get("counts") or {}).items()
                        if isinstance(v, int)}
    elif kind in ("rejected", "lost"):
        entry.state, entry.ended, entry.reason = kind, True, str(event.get("reason") or "")
    elif kind == "cancel":
        entry.cancel_requested = True
    elif kind == "state":
        entry.state = str(event.get("state"))
    else:
        raise DataError(path, f"unknown event {kind!r}", line=line_no, field="event")


def _end_cut_line(path: Path) -> None:
    """Make the journal end with a whole line before anything is appended to it: a last
    line cut short by a kill (no newline) is dropped when it is not a whole event (it was
    written before its batch was sent, so nothing was sent for it), else given its newline.
    Without this the next event would be glued to the cut line, a damaged line in the middle
    of the journal that every later run stops on."""
    try:
        with path.open("rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return
    if not data or data.endswith(b"\n"):
        return
    cut = data.rfind(b"\n") + 1
    try:
        whole = isinstance(json.loads(data[cut:]), dict)
    except (ValueError, RecursionError):
        whole = False
    with path.open("r+b") as fh:
        if whole:
            fh.seek(0, os.SEEK_END)
            fh.write(b"\n")
        else:
            fh.truncate(cut)
        fh.flush()
        os.fsync(fh.fileno())


class BatchJournal:
    """Appends events to a run directory's ``batches.jsonl`` (the run holds its lock).

    Args:
        folder: the run directory.
        endpoint: :func:`endpoint_digest` of the judge this run sends batches to.
        session: the run's session number (batch ids are ``<session>-<n>``).

    Raises:
        ConfigError: the journal holds a batch sent to another judge (a journal copied from
            another run, or the run's judge changed): one line naming the file.
        DataError: a damaged journal line.
    """

    def __init__(self, folder: Path, endpoint: str, session: int) -> None:
        self.path = Path(folder) / BATCHES_FILE
        self.endpoint, self.session = endpoint, session
        _end_cut_line(self.path)
        self.batches = read_journal(self.path)
        for entry in self.batches.values():
            if entry.endpoint != endpoint:
                raise ConfigError(f"{self.path}: batch {entry.batch} was sent to another judge "
                                  f"(endpoint {entry.endpoint}, this run's is {endpoint}); this "
                                  f"journal does not belong to this run: move it away to "
                                  f"start the run's batches afresh")
        self._seq = sum(1 for b in self.batches.values()
                        if b.batch.startswith(f"{session}-"))

    def new_id(self) -> str:
        """A fresh journal id for a batch of this session."""
        self._seq += 1
        return f"{self.session}-{self._seq}"

    def write(self, event: str, batch: str, **fields: Any) -> None:
        """Append one event and make it durable (flush + fsync) before returning."""
        record = {"schema": SCHEMA_VERSION, "event": event, "batch": batch, **fields}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        _apply(self.path, 0, self.batches, record)

    def intent(self, provider: str, custom_ids: list[str]) -> JournalBatch:
        """Journal a batch about to be sent; returns its entry."""
        batch = self.new_id()
        self.write("intent", batch, provider=provider, endpoint=self.endpoint,
                   n=len(custom_ids), at=round(time.time(), 3), custom_ids=custom_ids)
        return self.batches[batch]
