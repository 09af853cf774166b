"""Run (or resume) a judge run from a :class:`~jurybox.judging.JudgeConfig`: pick the best of N
candidates (or the better of two) where there is no gold.

A judge run is a bench run of one protocol over items whose gold is optional, with the
per-item judgments as its product: ``RUN/judgments.jsonl`` and ``RUN/judgments.csv`` next to
the usual run directory files (run.json, calls.jsonl, items.jsonl, summary.json). Items with
gold add accuracy; without gold nothing pretends to be one.

Each verb has an awaitable form for code that runs on an event loop (``await ajudge(...)``,
``await arun_judge(...)``); the blocking forms work there too, on a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..compare.run import PreparedBench, bench_job, warn_capped_orders
from ..compare.summary import latest_records, summarize
from ..errors import ConfigError
from ..protocols import PCFProtocol, protocol_label
from ..rundir import RunLock, iter_lines_at, line_offsets, previous_sessions
from ..run import (Engine, RunHooks, RunInfo, RunJob, RunOptions, RunReport, open_endpoint)
from ..run.loops import entered_off_loop
from ..sim import SimJudge
from .config import JudgeConfig, prepare_judge
from .results import (ItemJudgment, JudgeSummary, judgment_of, pairwise_outcome, read_judgments,
                      write_judgments)

__all__ = ["JudgeResult", "Judgments", "arun_judge", "run_judge"]

#: What :func:`run_judge` returns.
JudgeResult = RunReport[JudgeSummary]


def _summarizer(bench: PreparedBench, config: JudgeConfig):
    name = config.protocol
    label = protocol_label(bench.protocols[0])

    def summarize_judge(records: Iterable[dict[str, Any]], info: RunInfo) -> JudgeSummary:
        s = summarize(records, [name], task=bench.dataset.task, seed=config.seed)
        s = replace(s, n_items=info.n_units, simulated=info.simulated, model=config.model,
                    dataset=bench.dataset.name, totals=info.totals.as_dict(),
                    labels={name: label})
        n_items = n_failed = n_labelled = flipped = 0
        agreement: list[float] = []
        verdicts: list[str | None] = []
        for j in map(judgment_of, latest_records(records)):
            n_items += 1
            verdicts.append(j.verdict)
            n_failed += j.failed
            n_labelled += bool(j.gold)
            if not j.failed:
                flipped += j.flipped
                if j.agreement_rate is not None:
                    agreement.append(j.agreement_rate)
        decided = n_items - n_failed
        return JudgeSummary(bench=s, protocol=name, label=label, n_items=n_items,
                            n_failed=n_failed, n_labelled=n_labelled,
                            flip_rate=flipped / decided if decided else None,
                            mean_agreement=sum(agreement) / len(agreement) if agreement
                            else None,
                            outcome=pairwise_outcome(verdicts, seed=config.seed)
                            if bench.dataset.task == "pairwise" else None)

    return summarize_judge


def _in_input_order(path: Path, item_ids: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Each item's last record in items.jsonl, in the order of ``item_ids`` (the input's),
    read one at a time from the line offsets of one pass."""
    offsets = line_offsets(path, lambda r: r.get("item_id"))
    return iter_lines_at(path, (offsets[i][-1] for i in item_ids if i in offsets))


def _job(bench: PreparedBench, config: JudgeConfig, out: Path, *,
         after: Callable[[Path], None], lock: RunLock | None) -> RunJob:
    for protocol in bench.protocols:  # judgments show C_i's components
        if isinstance(protocol, PCFProtocol):
            protocol.components = True
    return bench_job(bench, out, kind="judge", config=config.as_dict(),
                     summarize=_summarizer(bench, config), after=after, lock=lock,
                     warnings=JudgeSummary.noise_warnings)


@dataclass
class _JudgeRun:
    """A checked judge run with its endpoint open: the engine and job to run, and (with
    ``keep``) the judgments ``job.after`` read back, for :func:`judge`'s result."""

    engine: Engine
    job: RunJob
    folder: Path
    given: list[str] | None  # the ids of the items the caller gave (None: a file's)
    ids: list[str] = field(default_factory=list)  # the selection's, in input order
    judgments: list[ItemJudgment] = field(default_factory=list)

    def result(self, report: JudgeResult) -> Judgments:
        """:func:`judge`'s value: the judgments of exactly the items asked for.

        Raises:
            ConfigError: the run directory's judgments are not those of the items given
                (never passed off as theirs).
        """
        got = [j.item_id for j in self.judgments]
        given = set(self.given if self.given is not None else self.ids)
        other = [i for i in got if i not in given]
        if got != self.ids or other or len(set(got)) != len(got):
            missing = [i for i in self.ids if i not in set(got)]
            raise ConfigError(f"{self.folder} holds judgments of other items than the "
                              f"{len(self.ids)} given (other: {other[:3]}, missing: "
                              f"{missing[:3]}); give another out= or delete that folder")
        return Judgments(list(self.judgments), report.summary, self.folder, report)


@contextmanager
def _judge_run(config: JudgeConfig, out: Path, options: RunOptions | None,
               hooks: RunHooks | None, *, lock: RunLock | None = None, keep: bool = False,
               given: list[str] | None = None) -> Iterator[_JudgeRun]:
    """Check the run (:func:`prepare_judge`) and open its endpoint for the engine; the job
    writes judgments.jsonl and .csv while the run directory is still locked."""
    bench = prepare_judge(config)
    hooks = warn_capped_orders(bench, hooks)
    options = options or RunOptions()

    def after(folder: Path) -> None:
        ids: Iterable[str] = (item.item_id for item in bench.selection)
        if keep:
            ids = run.ids = list(ids)
        write_judgments(map(judgment_of, _in_input_order(folder / "items.jsonl", ids)), folder)
        if keep:
            run.judgments = list(read_judgments(folder / "judgments.jsonl"))

    with open_endpoint(config.model, base_url=config.base_url, options=options,
                       sim=lambda: SimJudge(list(bench.selection), config.sim,
                                            fault_epoch=previous_sessions(out))) as provider:
        run = _JudgeRun(Engine(provider, options, hooks=hooks),
                        _job(bench, config, out, after=after, lock=lock), out, given)
        yield run


def run_judge(config: JudgeConfig, out: str | Path, *, options: RunOptions | None = None,
              hooks: RunHooks | None = None) -> JudgeResult:
    """Run (or resume) a judge run: judge every item, then write ``judgments.jsonl`` and
    ``judgments.csv`` (and ``report.html`` when the report module is installed).

    Blocks, inside a running event loop too (the engine then runs on a worker thread: see
    :meth:`~jurybox.run.Engine.run`); :func:`arun_judge` is the awaitable form.

    Raises:
        DataError, ConfigError, ProviderError: before any judging starts (RunDirBusyError,
            a ConfigError: another process or another call in this one judges into ``out``).
        ProviderError: too many calls in a row failed (run.json status "failed").
        KeyboardInterrupt: after writing run.json with status "interrupted" (the judgments
            files are then not written; a rerun resumes and writes them).
    """
    with _judge_run(config, Path(out), options, hooks) as run:
        return run.engine.run(run.job)


async def arun_judge(config: JudgeConfig, out: str | Path, *,
                     options: RunOptions | None = None,
                     hooks: RunHooks | None = None) -> JudgeResult:
    """:func:`run_judge` on the running event loop: ``await arun_judge(config, out)``.

    The judging (every model call, every hook) runs on the caller's loop without blocking
    it; checking the input, starting the endpoint and writing the summary, judgments and
    report run in the loop's default executor. Raises as :func:`run_judge`, and
    asyncio.CancelledError when cancelled (run.json then says "interrupted"; a rerun
    resumes).
    """
    async with entered_off_loop(_judge_run(config, Path(out), options, hooks)) as run:
        return await run.engine.arun(run.job)


@dataclass(frozen=True)
class Judgments:
    """What :func:`judge` returns: per-item judgments (in input order) and the run.

    Attributes:
        items: one :class:`ItemJudgment` per item.
        summary: the run's summary (flip rate, agreement, accuracy on labelled items).
        out: the run directory (judgments.jsonl, judgments.csv, calls.jsonl, ...).
        run: the run engine's report (totals, status, cost).
    """

    items: list[ItemJudgment]
    summary: JudgeSummary
    out: Path
    run: JudgeResult

    def __getitem__(self, item_id: str | int) -> ItemJudgment:
        """The judgment of ``item_id`` (an integer id as given, or its text: ids are text).

        Raises:
            KeyError: no such item."""
        for j in self.items:
            if j.item_id == str(item_id):
                return j
        raise KeyError(item_id)
