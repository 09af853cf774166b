"""What a judging command hands the engine and gets back: :class:`RunJob` (units, protocols,
a unit key, a summarizer), :class:`RunHooks` (progress callbacks), :class:`RunInfo` (what a
summarizer is told) and :class:`RunReport` (the result of a run)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ..batch import BatchEvent
from ..protocols import JudgingProtocol
from ..rundir import FailedUnits, RunLock
from ..runner import CallRecord, Totals

__all__ = ["Interrupted", "RunHooks", "RunInfo", "RunJob", "RunReport", "Summary"]

U = TypeVar("U")
S = TypeVar("S", bound="Summary")


class Summary(Protocol):
    """What a summarizer returns: anything that serializes itself for summary.json."""

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RunInfo:
    """What a summarizer may want to know about the run beyond its records."""

    n_units: int
    simulated: bool
    totals: Totals
    offline: bool


@dataclass(frozen=True)
class RunJob(Generic[U, S]):
    """What a judging command hands the engine.

    Attributes:
        out: the run directory.
        model: the model spec (for run.json).
        config: what defines the run; a rerun into ``out`` must have the same (run.json).
        manifest: extra run.json fields (dataset, kind, seed, ...).
        units: a fresh iterator over the units each call (read lazily: never held at once).
        n_units: how many units ``units()`` yields.
        unit_key: a unit's key in items.jsonl (unique in the run).
        protocols: judged on every unit, in table order.
        summarize: items.jsonl records (re-iterable; later lines supersede earlier ones)
            -> a summary.
        after: writes more files from the finished run directory (the judge's
            judgments.jsonl), called with its path after summary.json, still locked.
        lock: ``out``'s lock when the caller took it already (``jurybox.judge`` does, before
            it writes the items into ``out``): the engine uses it and the caller releases it.
            None: the engine locks ``out`` after checking the endpoint.
        warnings: the summary -> what its results cannot be trusted for, one sentence each,
            after the engine's own (:attr:`RunReport.warnings`).
    """

    out: Path
    model: str
    config: dict[str, Any]
    manifest: dict[str, Any]
    units: Callable[[], Iterable[U]]
    n_units: int
    unit_key: Callable[[U], str]
    protocols: Sequence[JudgingProtocol]
    summarize: Callable[[Iterable[dict[str, Any]], RunInfo], S]
    after: Callable[[Path], None] | None = None
    lock: RunLock | None = None
    warnings: Callable[[S], tuple[str, ...]] | None = None


@dataclass(frozen=True)
class RunHooks:
    """Progress callbacks (the CLI's progress bar): all optional."""

    on_start: Callable[[int, int], None] | None = None  # (units in run, units already done)
    on_call: Callable[[CallRecord], None] | None = None
    on_item: Callable[[Any], None] | None = None
    on_batch: Callable[[BatchEvent], None] | None = None  # batch mode: a batch changed state


@dataclass(frozen=True)
class RunReport(Generic[S]):
    """What a run returns: its summary and bookkeeping."""

    summary: S
    out: Path
    totals: Totals
    judged_now: int
    n_units: int
    simulated: bool
    protocols: list[dict[str, Any]] = field(default_factory=list)
    judge: str = ""  # how reports name the judge (the local judge: file and sha256)
    failed_units: FailedUnits = FailedUnits(0, 0)
    cost_usd: float | None = None  # the whole run (every session), when a price was given
    #: what the results cannot be trusted for, one sentence each (summary.json ``warnings``):
    #: a simulated judge that did not know the items it was asked about, or judged items
    #: without gold
    warnings: tuple[str, ...] = ()
    #: of ``cost_usd``, what the batch calls cost at the batch rate (None: no batch call)
    batch_usd: float | None = None

    @property
    def status(self) -> str:
        """``complete``, or ``partial`` when some units have no decision (run.json says the
        same)."""
        return self.failed_units.status


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal (``signum``: SIGINT for Ctrl-C, SIGTERM) after run.json
    was written with status ``interrupted``; rerunning the same command resumes."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
