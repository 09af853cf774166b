"""``jurybox batch``: a run's batches from its journal, asked about or cancelled at the
provider, and batch files exported and imported (:mod:`.files`).

The provider is rebuilt from run.json (the model spec and the endpoint's base URL) with the
API key from the environment, as the run itself found it. The embedded simulated judge
(``--model sim``) lived inside the run's process: its batches cannot be asked about after it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..datasets.json_line import parse_object_line
from ..errors import ConfigError, DataError
from ..rundir import lock_run_dir, read_manifest
from ..rundir.batches import BATCHES_FILE, BatchJournal, JournalBatch, read_journal
from ..rundir.files import write_text_atomic
from .api import BatchAPI, BatchStatus
from .files import BATCH_FILES_DIR, input_path, output_path

__all__ = ["BatchRow", "ImportResult", "cancel_batches", "export_requests", "import_results",
           "journal_of", "live_status"]


@dataclass(frozen=True)
class BatchRow:
    """One batch for ``jurybox batch status``: the journal's view, and the provider's when
    asked (``live``)."""

    entry: JournalBatch
    live: BatchStatus | None = None
    problem: str | None = None


def journal_of(folder: str | Path) -> dict[str, JournalBatch]:
    """The run directory's batches (journal order).

    Raises:
        DataError: not a run directory, or no batch journal (the run did not use --batch).
    """
    folder = Path(folder)
    if read_manifest(folder / "run.json") is None:
        raise DataError(folder, "not a jurybox run directory (no run.json)")
    batches = read_journal(folder / BATCHES_FILE)
    if not batches:
        raise DataError(folder, f"has no batches ({BATCHES_FILE} is absent or empty): the run "
                        f"was not made with --batch")
    return batches


async def _open_api(folder: Path) -> BatchAPI:
    """The batch API of the run's endpoint, rebuilt from run.json.

    Raises:
        ConfigError: the embedded simulated or local judge (gone with its run), or a
            provider that needs a key not set.
    """
    from ..providers import make_provider, parse_spec
    from .select import batch_api

    manifest = read_manifest(folder / "run.json") or {}
    model = _object(manifest.get("model"))
    spec = parse_spec(str(model.get("spec") or ""))
    endpoint = _object(model.get("endpoint"))
    if spec.provider in ("sim", "local"):
        raise ConfigError(f"{folder}: the run's judge ({spec}) served itself inside the run's "
                          f"process; its batches ended with it (a rerun of the command sends "
                          f"their requests again)")
    return batch_api(make_provider(spec, base_url=endpoint.get("base_url")))


async def live_status(folder: str | Path) -> list[BatchRow]:
    """Every batch of the run, those in flight asked about at the provider (a provider that
    cannot be reached gives a ``problem`` per row, not an error)."""
    folder = Path(folder)
    batches = journal_of(folder)
    waiting = [b for b in batches.values() if not b.ended and b.batch_id
               and not b.batch_id.startswith("file:")]
    if not waiting:
        return [BatchRow(b) for b in batches.values()]
    try:
        api = await _open_api(folder)
    except ConfigError as exc:
        return [BatchRow(b, problem=str(exc) if b in waiting else None)
                for b in batches.values()]
    rows = []
    try:
        for entry in batches.values():
            if entry not in waiting:
                rows.append(BatchRow(entry))
                continue
            try:
                rows.append(BatchRow(entry, await api.status(str(entry.batch_id))))
            except Exception as exc:  # noqa: BLE001 - shown in its row
                rows.append(BatchRow(entry, problem=f"{type(exc).__name__}: {exc}"))
    finally:
        await api.aclose()
    return rows


async def cancel_batches(folder: str | Path) -> list[BatchRow]:
    """Ask the provider to cancel every batch of the run in flight (journalled as asked).
    Requests already answered stay answered: a rerun collects them and sends the rest.

    Raises:
        RunDirBusyError: the run is in progress (its own process polls the batches).
        ConfigError: the run's judge cannot be reached from here (see :func:`_open_api`).
    """
    folder = Path(folder)
    batches = journal_of(folder)
    rows = []
    with lock_run_dir(folder):
        waiting = [b for b in batches.values() if not b.ended and b.batch_id
                   and not b.batch_id.startswith("file:")]  # batch files: no provider
        if not waiting:
            return []
        journal = BatchJournal(folder, waiting[0].endpoint, -1)
        api = await _open_api(folder)
        try:
            for entry in waiting:
                status = await api.cancel(str(entry.batch_id))
                journal.write("cancel", entry.batch)
                rows.append(BatchRow(entry, status))
        finally:
            await api.aclose()
    return rows


def _file_batches(folder: Path) -> list[JournalBatch]:
    """The run's batch files (``--batch-files``), in journal order.

    Raises:
        DataError: the run sent its batches to the provider (``--batch``): there are no
            files to export or import.
    """
    batches = journal_of(folder).values()
    files = [b for b in batches if (b.batch_id or "").startswith("file:")]
    if batches and not files:
        raise DataError(folder, "sent its batches to the provider (--batch), not to files "
                        "(--batch-files): there is nothing to export or import; "
                        "`jurybox batch status` shows them")
    return files


def export_requests(folder: str | Path, out: Path) -> tuple[int, int]:
    """Write the requests of every batch file not yet answered into ``out`` (OpenAI batch
    lines, what ``vllm run-batch -i`` reads): (requests, batches).

    Raises:
        DataError: no batch file waits for its answers.
    """
    folder = Path(folder)
    waiting = [b for b in _file_batches(folder) if not output_path(folder, b.batch).is_file()]
    lines: list[str] = []
    for entry in waiting:
        path = input_path(folder, entry.batch)
        try:
            lines.extend(ln for ln in path.read_text(encoding="utf-8").splitlines()
                         if ln.strip())
        except FileNotFoundError:
            raise DataError(path, "is missing (the run journalled it): rerun the command "
                            "to write it again") from None
    if not lines:
        raise DataError(folder / BATCH_FILES_DIR, "holds no request waiting for answers "
                        "(every batch file was imported; rerun the command)")
    write_text_atomic(out, "\n".join(lines) + "\n")
    return len(lines), len(waiting)


@dataclass
class ImportResult:
    """What ``jurybox batch import`` did: answers per batch, lines whose ``custom_id`` no
    batch file of the run holds (ignored), and batches still missing answers."""

    by_batch: dict[str, int] = field(default_factory=dict)
    unknown: int = 0
    incomplete: dict[str, int] = field(default_factory=dict)


def import_results(folder: str | Path, results: Path) -> ImportResult:
    """Split an output file of ``vllm run-batch`` (OpenAI batch output lines: ``{custom_id,
    response: {status_code, body}}``) by batch into ``<run>/batches/<id>.output.jsonl``; the
    rerun of the command reads them as the batches' results. Answers imported before for a
    batch are kept (a batch run in parts is imported part by part); one line a request: a
    repeated ``custom_id`` keeps its later line, unless the earlier one was an answer
    (HTTP 200) and the later one is not.

    Raises:
        DataError: the file cannot be read, or a line is not a JSON object with a
            ``custom_id`` (naming the line).
        RunDirBusyError: the run is in progress.
    """
    folder, results = Path(folder), Path(results)
    owner: dict[str, str] = {}
    for entry in _file_batches(folder):
        for key in entry.custom_ids:
            owner[key] = entry.batch
    grouped: dict[str, dict[str, str]] = {}
    outcome = ImportResult()
    for line_no, line in _lines(results):
        record: Any = parse_object_line(results, line_no, line)
        if not isinstance(record, dict) or not isinstance(record.get("custom_id"), str):
            raise DataError(results, "missing (each output line names its request)",
                            line=line_no, field="custom_id")
        batch = owner.get(record["custom_id"])
        if batch is None:
            outcome.unknown += 1
            continue
        _keep(grouped.setdefault(batch, {}), record["custom_id"], line)
    expected: dict[str, int] = {}
    for batch in owner.values():
        expected[batch] = expected.get(batch, 0) + 1
    with lock_run_dir(folder):
        for batch, lines in grouped.items():
            path = output_path(folder, batch)
            merged = _answers(path)
            for custom_id, line in lines.items():
                _keep(merged, custom_id, line)
            write_text_atomic(path, "\n".join(merged.values()) + "\n")
            outcome.by_batch[batch] = len(lines)
            if len(merged) < expected[batch]:
                outcome.incomplete[batch] = expected[batch] - len(merged)
    return outcome


def _answered(line: str) -> bool:
    """Whether an output line is an answer (HTTP 200)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return _object(_object(record).get("response")).get("status_code") == 200


def _keep(lines: dict[str, str], custom_id: str, line: str) -> None:
    """Keep ``line`` for ``custom_id`` unless it would replace an answer with a failure."""
    if custom_id not in lines or _answered(line) or not _answered(lines[custom_id]):
        lines[custom_id] = line


def _answers(path: Path) -> dict[str, str]:
    """The lines of an output file imported before, by custom_id ({} when there is none)."""
    merged: dict[str, str] = {}
    if not path.is_file():
        return merged
    for _, line in _lines(path):
        try:
            custom_id = _object(json.loads(line)).get("custom_id")
        except (ValueError, RecursionError):
            continue
        if isinstance(custom_id, str):
            _keep(merged, custom_id, line)
    return merged


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(path, f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise DataError(path, "is not UTF-8 text") from None
    return [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
