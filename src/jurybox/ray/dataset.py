"""Judging a Ray Data dataset: :func:`judge_dataset`.

Each batch of items is judged by :func:`jurybox.judge` into a temporary run directory on the
Ray Data worker (the same engine, protocols, retries and parsing as any run), and comes back
as one row per item and protocol. A judgment that fails (its calls failed, its answers could
not be read, the endpoint stopped answering, the item is malformed) is a row carrying its
failure: no exception leaves a batch, so one bad row or one bad minute of the server never
aborts the dataset.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError, JuryboxError
from ..run.options import RunOptions

__all__ = ["JUDGMENT_COLUMNS", "judge_dataset"]

#: The columns of :func:`judge_dataset`'s rows, in order.
JUDGMENT_COLUMNS = ("item_id", "protocol", "winners", "scores", "verdict", "failed",
                    "failures", "calls", "calls_ok", "error")


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([("item_id", pa.string()), ("protocol", pa.string()),
                      ("winners", pa.list_(pa.int64())), ("scores", pa.list_(pa.float64())),
                      ("verdict", pa.string()), ("failed", pa.bool_()),
                      ("failures", pa.list_(pa.string())), ("calls", pa.int64()),
                      ("calls_ok", pa.int64()), ("error", pa.string())])


def _row_id(row: dict[str, Any]) -> str | None:
    """A row's item id as text (``id``, else ``item_id``), or None when it has none: a
    column missing from some rows of a dataset is null there, and a null is no id."""
    from ..judging.items import id_text

    value = row.get("id")
    if value is None or value == "":
        value = row.get("item_id")
    return None if value is None or value == "" else id_text(value)


def _failed_row(item_id: str | None, protocol: str, error: str) -> dict[str, Any]:
    return {"item_id": item_id, "protocol": protocol, "winners": [], "scores": None,
            "verdict": None, "failed": True, "failures": [], "calls": 0, "calls_ok": 0,
            "error": error}


def _without_path(exc: DataError) -> str:
    """A DataError's message without the temporary file and line it names."""
    text = str(exc)
    prefix = f"{exc.path}:{exc.line}: " if exc.line is not None else f"{exc.path}: "
    return text[len(prefix):] if text.startswith(prefix) else text


def _errors_by_item(folder: Path) -> dict[str, str]:
    """The last error message of each item's calls in a run directory's calls.jsonl (an API
    error, or why its answer could not be read)."""
    found: dict[str, str] = {}
    path = folder / "calls.jsonl"
    if not path.exists():
        return found
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                call = json.loads(line)
            except ValueError:
                continue
            text = call.get("error") or call.get("parse_error")
            item = (call.get("meta") or {}).get("item_id")
            if text and item is not None:
                found[str(item)] = str(text)
    return found


class _BatchJudge:
    """The callable class Ray Data runs on its workers: one :func:`jurybox.judge` per batch
    and protocol (see :func:`judge_dataset`)."""

    def __init__(self, model: str, protocols: Sequence[str], options: RunOptions,
                 settings: dict[str, Any]) -> None:
        self.model, self.protocols = model, tuple(protocols)
        self.options, self.settings = options, settings

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        rows = batch.to_pylist() if isinstance(batch, pa.Table) else list(batch)
        out = [row for protocol in self.protocols for row in self._judge(rows, protocol)]
        return pa.Table.from_pylist(out, schema=_schema())

    @staticmethod
    def _all_failed(result: list[dict[str, Any] | None], good: list[tuple[int, dict[str, Any]]],
                    protocol: str, exc: BaseException) -> None:
        """Every item of ``good`` a failed row carrying ``exc`` (the run could not start or
        stopped: the endpoint is unreachable, too many calls in a row failed)."""
        for i, row in good:
            result[i] = _failed_row(_row_id(row), protocol, f"{type(exc).__name__}: {exc}")

    def _judge(self, rows: list[dict[str, Any]], protocol: str) -> list[dict[str, Any]]:
        """One row per item of ``rows``, in their order, judged with ``protocol``."""
        from ..judging.items import ItemError, id_text, input_rows
        from ..judging.call import judge

        result: list[dict[str, Any] | None] = [None] * len(rows)
        good: list[tuple[int, dict[str, Any]]] = []
        seen: set[str] = set()
        for i, row in enumerate(rows):
            try:
                (checked,) = input_rows([row])
            except (JuryboxError, ValueError, TypeError) as exc:
                result[i] = _failed_row(_row_id(row), protocol, f"bad item: {exc}")
                continue
            ident = id_text(checked["id"])
            if ident in seen:
                result[i] = _failed_row(ident, protocol, f"bad item: id {ident!r} is given "
                                                         f"twice in one batch")
                continue
            seen.add(ident)
            good.append((i, checked))
        while good:
            with tempfile.TemporaryDirectory(prefix="jurybox-ray-") as tmp:
                folder = Path(tmp) / "run"
                try:
                    judged = judge([row for _, row in good], model=self.model,
                                   protocol=protocol, out=folder, options=self.options,
                                   **self.settings)
                except ItemError as exc:
                    if not 0 <= exc.index < len(good):
                        self._all_failed(result, good, protocol, exc)
                        break
                    # an item the loader refuses (items[n] is the batch's n-th good item):
                    # that item's row says why, the others are judged again
                    i, row = good.pop(exc.index)
                    result[i] = _failed_row(_row_id(row), protocol,
                                            f"bad item: {_without_path(exc)}")
                    continue
                except (JuryboxError, ValueError, OSError) as exc:
                    self._all_failed(result, good, protocol, exc)
                    break
                errors = _errors_by_item(folder)
            for (i, _), j in zip(good, judged.items):
                result[i] = {
                    "item_id": j.item_id, "protocol": j.protocol, "winners": list(j.winners),
                    "scores": None if j.combined is None else list(j.combined),
                    "verdict": j.verdict, "failed": j.failed, "failures": list(j.failures),
                    "calls": j.n_calls, "calls_ok": j.n_ok,
                    "error": errors.get(j.item_id, "no decision") if j.failed else None}
            break
        return [r for r in result if r is not None]


def judge_dataset(ds: Any, *, model: str, protocol: str | Sequence[str] = "pcf", k: int = 7,
                  base_url: str | None = None, concurrency: int = 2, batch_size: int = 32,
                  options: RunOptions | None = None, **judge_options: Any) -> Any:
    """Judge every item of a Ray Data dataset; one row per item and protocol comes back.

    Args:
        ds: a ``ray.data.Dataset`` of items in jurybox's generic shape: ``id``, ``prompt``,
            ``candidates`` (a list of texts; exactly 2 for a pairwise protocol) and
            optionally ``gold`` (candidate indices) (``item_id`` and ``question`` are read
            as ``id`` and ``prompt``).
        model: the judge (``sim``, ``openai/gpt-4o-mini``, ``vllm/<model>`` with
            ``base_url``, ...); every Ray Data worker must reach its endpoint.
        protocol: one protocol (``pcf``, ``direct``, ``pairwise``, ``both-orders``,
            ``keyed``, ``apoc``) or several (a row per item for each).
        k: orders per item (PCF).
        base_url: the endpoint's base URL (default per provider).
        concurrency: Ray Data workers judging batches at once (a fixed pool of actors:
            ``compute=ActorPoolStrategy(size=concurrency)``).
        batch_size: items per batch (each batch is one jurybox run).
        options: how each batch runs (``RunOptions``: calls in flight, attempts, timeout;
            default: 16 calls in flight, no response cache); the executor must be local
            (the dataset is already spread over Ray).
        judge_options: any other :func:`jurybox.judge` setting (``criteria``, ``seed``,
            ``template``, ``sim``, ...).

    Returns:
        A lazy ``ray.data.Dataset`` with the columns :data:`JUDGMENT_COLUMNS`: ``item_id``
        (null for a row without an id); ``protocol``; ``winners`` (candidate indices,
        0-based; empty when failed);
        ``scores`` (C_i per candidate, 0-100, listwise; null for pairwise or failed);
        ``verdict`` (pairwise ``A``, ``B``, ``tie``; null otherwise); ``failed``;
        ``failures`` (the failed calls' kinds: ``api``, ``parse``, ``refusal``); ``calls``
        and ``calls_ok``; ``error`` (why a failed row failed: the last call's error, or a
        bad item's problem; null otherwise). ``write_parquet`` writes it as is.

    Raises:
        ConfigError: Ray is not installed; a bad model spec, protocol or setting, checked
            here before any batch runs (per-item problems become failed rows instead).
    """
    from ..judging.config import JudgeConfig
    from ..protocols import protocol_names
    from ..run.endpoint import check_endpoint
    from .cluster import require_ray

    require_ray()
    protocols = (protocol,) if isinstance(protocol, str) else tuple(protocol)
    choices = protocol_names("listwise") + protocol_names("pairwise")
    if not protocols or any(p not in choices for p in protocols):
        raise ConfigError(f"protocol must be one of {', '.join(choices)} (or a list of them), "
                          f"got {protocol!r}")
    settings = {"k": k, "base_url": base_url, **judge_options}
    for p in protocols:
        JudgeConfig(input="items", model=model, protocol=p, **settings)  # bad settings: here
    check_endpoint(model, base_url)
    options = options or RunOptions(cache_path=None)
    if options.executor != "local":
        raise ConfigError("judge_dataset runs each batch on a Ray Data worker already: give "
                          "options with executor='local'")
    if concurrency < 1 or batch_size < 1:
        raise ConfigError(f"concurrency and batch_size must be at least 1, got "
                          f"{concurrency} and {batch_size}")
    from ray.data import ActorPoolStrategy

    return ds.map_batches(_BatchJudge, fn_constructor_kwargs={
        "model": model, "protocols": protocols, "options": options, "settings": settings},
        batch_size=batch_size, batch_format="pyarrow",
        compute=ActorPoolStrategy(size=concurrency), num_cpus=0.5)
