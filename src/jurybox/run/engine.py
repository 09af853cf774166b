"""The run engine: one endpoint, one cache, one run directory, a bounded window of units.

A judging command supplies a :class:`RunJob` (units, protocols, a unit key and a summarizer)
and nothing else; the engine owns the rest::

    with open_endpoint(model, base_url=..., options=options, sim=...) as provider:
        report = Engine(provider, options, hooks=hooks).run(job)

Order of work: check the endpoint answers, open the run directory (refusing a changed
configuration; resuming finished units), then stream the units through a window of
``options.items_in_flight``: read, judge with every protocol not yet done for it (they share
identical calls), write each decision to items.jsonl, drop. Raw texts go to calls.jsonl as
they arrive and are not kept. The summary is computed from items.jsonl, read line by line.
The run directory stays locked until its last file (report.html) is written, so a second run
into it, from another process or this one, never writes over a half-finished one.

:meth:`Engine.run` blocks (inside a running event loop too: :mod:`jurybox.run.loops`);
``await Engine.arun(job)`` judges on the caller's loop.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .._version import __version__
from ..batch import BatchProvider
from ..cache import ResponseCache
from ..cost.spent import run_cost
from ..protocols import JudgingProtocol
from ..providers import Provider, redact_text
from ..providers.pool import AFFINITY
from ..errors import (BatchFilesWritten, ConfigError, DataError, JuryboxError, ProviderError,
                      write_error)
from ..reports import write_report
from ..rundir import Records, RunDir
from ..runner import AnswerStore, CallRecord, Runner, Totals
from .batching import BATCH_CONCURRENCY, batch_api_for, close_batches, open_batches
from .calls import ItemCalls
from .job import Interrupted, RunHooks, RunInfo, RunJob, RunReport, Summary
from .loops import Blocking, all_or_none, inline, off_loop, run_blocking
from .options import RunOptions
from .sim_notes import run_warnings, sim_stats, unknown_since
from .structured import AnswerFormats

__all__ = ["Engine", "Interrupted", "RunHooks", "RunJob", "RunInfo", "RunReport", "Summary"]

log = logging.getLogger(__name__)


U = TypeVar("U")
S = TypeVar("S", bound=Summary)
T = TypeVar("T")


class Engine:
    """Runs :class:`RunJob` values against one opened endpoint.

    Args:
        provider: the endpoint (see :func:`jurybox.run.open_endpoint`).
        options: concurrency, retries, timeout, cache, abort-after, window.
        hooks: progress callbacks.
        answers: an answer store that replaces the cache (recorded answers being replayed).
        offline: never call the provider; a request without an answer is a recorded failure.

    :meth:`run` blocks; :meth:`arun` is its awaitable form, judging on the caller's loop. In
    both the run directory stays locked until everything is written: items.jsonl, the
    summary, ``job.after``'s files and report.html.
    """

    def __init__(self, provider: Provider, options: RunOptions, *,
                 hooks: RunHooks | None = None, answers: AnswerStore | None = None,
                 offline: bool = False) -> None:
        self.provider, self.options, self.hooks = provider, options, hooks or RunHooks()
        self.answers, self.offline = answers, offline
        self._task: asyncio.Task[Any] | None = None
        self._written: BatchFilesWritten | None = None

    def run(self, job: RunJob[U, S]) -> RunReport[S]:
        """Judge every unit not finished in ``job.out``, then summarize.

        With no event loop running in this thread the run has its own (``asyncio.run``), and
        SIGTERM stops it as Ctrl-C does (main thread only). Inside a running loop (Jupyter,
        an async handler) it runs on its own loop in a worker thread while this call waits
        (hooks are then called from that thread; SIGTERM keeps its default);
        :meth:`arun` does not block the loop. See :func:`jurybox.run.loops.run_blocking`.

        Raises:
            ConfigError, ProviderError: before any judging (bad endpoint, changed config,
                a run directory in use by another process or call: RunDirBusyError).
            ProviderError: when ``abort_after`` calls in a row fail (status ``failed``).
            RunWriteError: the run directory or the cache cannot be written (a full disk):
                everything written before stays, and a rerun resumes from it.
            Interrupted: Ctrl-C or SIGTERM, after writing run.json with status
                ``interrupted`` (a KeyboardInterrupt carrying the signal number).
        """
        received: list[int] = []
        try:
            return run_blocking(lambda: self._stoppable(job, received))
        except (KeyboardInterrupt, asyncio.CancelledError):
            raise Interrupted(received[0] if received else signal.SIGINT) from None

    async def arun(self, job: RunJob[U, S]) -> RunReport[S]:
        """:meth:`run` on the running loop: every call, hook and items.jsonl line happens in
        this loop's thread, interleaved with the loop's other tasks; file work that can take
        long (the summary, ``job.after``, report.html) runs in the loop's default executor
        (:func:`jurybox.run.loops.off_loop`). No signal handler is set: the loop is the
        caller's, so is its SIGTERM; cancel the task to stop the run.

        Raises:
            asyncio.CancelledError: when the awaiting task is cancelled (after writing
                run.json with status ``interrupted``; a rerun resumes).
            Interrupted: (SIGINT) for a KeyboardInterrupt raised into it; otherwise as
                :meth:`run`.
        """
        try:
            return await self._session(job, off_loop)
        except KeyboardInterrupt as exc:
            if isinstance(exc, Interrupted):
                raise
            raise Interrupted(signal.SIGINT) from None

    async def _stoppable(self, job: RunJob[U, S], received: list[int]) -> RunReport[S]:
        """:meth:`_session` on a loop of its own, stopped by SIGTERM the way Ctrl-C stops it:
        the task is cancelled, run.json says ``interrupted``, and ``received`` gets the signal
        number. The handler is the event loop's own (SIGINT may be ignored, under nohup or as
        a background job, and SIGTERM still stops the run); it can only be set from the main
        thread, elsewhere (a worker thread: see :meth:`run`) SIGTERM keeps its default."""
        loop, task = asyncio.get_running_loop(), asyncio.current_task()

        def stop() -> None:
            received.append(signal.SIGTERM)
            if task is not None:
                task.cancel()

        try:
            loop.add_signal_handler(signal.SIGTERM, stop)
            installed = True
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
            installed = False
        try:
            return await self._session(job, inline)
        finally:
            if installed:
                loop.remove_signal_handler(signal.SIGTERM)

    async def _session(self, job: RunJob[U, S], blocking: Blocking) -> RunReport[S]:
        """Check the endpoint, open (and lock) the run directory, judge, summarize, close.
        ``blocking`` runs the long file work (inline on a loop of the engine's own; off the
        loop on the caller's)."""
        try:
            if self.options.batch is not None and self.options.batch.files:
                # an OpenAI-compatible judge, or one line before any work; its server may not
                # run (vllm run-batch needs none): asked when it answers, to know it as online
                batch_api_for(self.provider, job.out, self.options.batch)
                await _check_if_served(self.provider)
            elif not self.offline:
                await self.provider.check()
                if self.options.batch is not None:  # no batch API: one line, before any work
                    await batch_api_for(self.provider, job.out, self.options.batch).check()
            sim_before = await sim_stats(self.provider)
            # the cache first: a file that cannot be one is refused before the run directory
            # is touched
            cache = (ResponseCache(self.options.cache_path)
                     if self.options.cache_path is not None and self.answers is None else None)
            try:
                rundir = RunDir(job.out, job.config, lock=job.lock)
            except BaseException:
                if cache is not None:
                    cache.close()
                raise
            try:
                self._task, self._written = asyncio.current_task(), None
                try:
                    judged, totals = await self._judge_all(job, rundir, sim_before, cache)
                except (JuryboxError, KeyboardInterrupt, asyncio.CancelledError):
                    # too many failures in a row, a full disk, Ctrl-C: report what there is
                    await blocking(self._report, rundir.path)
                    if self._written is not None:  # --batch-files: a round was written
                        raise self._written from None
                    raise
                return await blocking(self._finish, job, rundir, judged, totals)
            finally:
                rundir.close()
        finally:
            await self.provider.aclose()

    async def _judge_all(self, job: RunJob[U, S], rundir: RunDir,
                         sim_before: dict[str, Any] | None, cache: ResponseCache | None
                         ) -> tuple[int, Totals]:
        """One session in ``rundir``: every unit not done, with ``cache`` (closed at the
        end); run.json kept current."""
        formats = AnswerFormats(self.options.structured, simulated=self.provider.simulated)
        try:
            # a server that takes one call at a time (the local judge) gets one at a time
            limit: int | None = getattr(self.provider, "max_concurrency", None)
            concurrency = min(self.options.concurrency, limit or self.options.concurrency)
            store = self.answers or cache
            batch = self._batch(rundir, store, concurrency)
            runner = Runner(batch or self.provider, cache=store,
                            concurrency=BATCH_CONCURRENCY if batch else concurrency,
                            retry=self.options.retry, on_call=self._logger(rundir),
                            abort_after=None if self.offline or batch else
                            self.options.abort_after,
                            offline=self.offline, on_format_refused=formats.refused,
                            max_answer_chars=self.options.max_answer_chars)
            # the answer budget is the session's: a resume may give another, and a replay
            # reads each answer with the largest any session read answers with
            with rundir.session(self._manifest(job), runner.totals.as_dict,
                                {"executor": self._executor(),
                                 "max_answer_chars": self.options.max_answer_chars}
                                ) as session:
                session["structured"] = formats.state()
                try:
                    judged = await self._judge(job, runner, rundir, formats)
                finally:  # the mode in effect at the end, and any fallback taken
                    session["structured"] = formats.state()
                    pool = getattr(self.provider, "pool_stats", None)
                    if pool is not None:  # an endpoint pool: each replica's share, affinity
                        stats = pool()  # the Ray executor's asks its actors: awaited
                        session.update(await stats if inspect.isawaitable(stats) else stats)
                    if batch is not None:
                        session["batch"] = batch.stats.as_dict()
                        await close_batches(batch, rundir.path)
                unknown = unknown_since(sim_before, await sim_stats(self.provider))
                if unknown:
                    session["sim_unknown"] = unknown
            return judged, runner.totals
        finally:
            if cache is not None:
                cache.close()

    def _batch(self, rundir: RunDir, store: AnswerStore | None,
               concurrency: int) -> BatchProvider | None:
        """The batch dispatcher over this run's endpoint (None: judging online)."""
        if self.options.batch is None or self.offline:
            return None
        return open_batches(self.provider, rundir, self.options.batch, store=store,
                            concurrency=concurrency, on_event=self.hooks.on_batch,
                            stop=self._stop_for_files)

    def _stop_for_files(self, written: BatchFilesWritten) -> None:
        """--batch-files: every request waits on a written batch file; the session stops
        (run.json ``interrupted``) and :meth:`_session` raises ``written``."""
        if self._written is None:
            self._written = written
            if self._task is not None:
                self._task.cancel()

    def _finish(self, job: RunJob[U, S], rundir: RunDir, judged: int,
                totals: Totals) -> RunReport[S]:
        """Summarize items.jsonl into summary.json, write ``job.after``'s files and
        report.html (the run directory still locked)."""
        info = RunInfo(job.n_units, self.provider.simulated, totals, self.offline)
        try:
            summary = job.summarize(Records(rundir.items_path), info)
        except (KeyError, TypeError, AttributeError) as exc:  # a hand-edited items.jsonl
            raise DataError(rundir.items_path, f"a record is damaged ({_damage(exc)}); it was "
                            f"changed outside jurybox: restore it, or delete the run "
                            f"directory to start over") from None
        failed = rundir.failed_units()
        cost = self._cost(rundir, totals)
        warnings = run_warnings(rundir) + (job.warnings(summary) if job.warnings else ())
        try:
            rundir.write_summary({**summary.to_json(), "status": failed.status,
                                  "failed_units": failed._asdict(),
                **({"cost": cost} if cost else {}),
                **({"warnings": list(warnings)} if warnings else {})})
        except OSError as exc:
            raise write_error(rundir.summary_path, exc) from None
        if job.after is not None:
            job.after(rundir.path)
        self._report(rundir.path)
        return RunReport(summary, rundir.path, totals, judged, job.n_units,
                         self.provider.simulated, _protocol_params(job.protocols),
                         self._label(job), failed, cost["usd"] if cost else None, warnings,
                         cost.get("batch_usd") if cost else None)

    @staticmethod
    def _report(folder: Path) -> None:
        """Write report.html into the run directory this engine opened (never into one it
        refused); a report that cannot be written is a warning, never a failed run."""
        try:
            write_report(folder)
        except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - the run stands
            log.warning("could not write %s: %s", folder / "report.html", exc)

    def _cost(self, rundir: RunDir, totals: Totals) -> dict[str, Any] | None:
        """USD of the whole run (every session's tokens) at ``options.price``: see
        :func:`run_cost`."""
        price = self.options.price
        if price is None:
            return None
        return run_cost(price, rundir.run_totals({"totals": totals.as_dict()}))

    def _label(self, job: RunJob[U, S]) -> str:
        label: str | None = getattr(self.provider, "label", None)
        return label or job.model

    def _manifest(self, job: RunJob[U, S]) -> dict[str, Any]:
        o = self.options
        return {"jurybox_version": __version__,
                "command": [redact_text(a) for a in sys.argv], **job.manifest,
                "model": {"spec": job.model, "simulated": self.provider.simulated,
                          "endpoint": self.provider.cache_identity(), "label": self._label(job)},
                "protocols": _protocol_params(job.protocols),
                "options": {"concurrency": o.concurrency, "attempts": o.retry.attempts,
                            "timeout_s": o.timeout_s, "transport": o.transport,
                            "cache": None if o.cache_path is None else redact_text(
                                str(o.cache_path)),
                            "abort_after": o.abort_after, "window": o.items_in_flight,
                            "structured": o.structured,
                            "max_answer_chars": o.max_answer_chars}}

    def _executor(self) -> dict[str, Any]:
        """Where this session's calls are made, for its run.json record (not the run's
        configuration: a run may resume with the other executor): ``{"name": "local"}``, or
        the Ray provider's ``executor`` (``name`` ``ray``, ``actors``, ``address``: None for
        a local Ray)."""
        executor: dict[str, Any] | None = getattr(self.provider, "executor", None)
        return dict(executor) if executor else {"name": "local"}

    def _logger(self, rundir: RunDir) -> Callable[[CallRecord], None]:
        on_call = self.hooks.on_call

        def record(call: CallRecord) -> None:
            try:
                rundir.append_call(call.model_dump(mode="json"))
            except OSError as exc:
                raise write_error(rundir.calls_path, exc) from None
            if on_call is not None:
                on_call(call)
        return record

    async def _judge(self, job: RunJob[U, S], runner: Runner, rundir: RunDir,
                     formats: AnswerFormats) -> int:
        names = [p.name for p in job.protocols]
        if self.hooks.on_start is not None:
            self.hooks.on_start(job.n_units, rundir.units_done(names))
        units = iter(job.units())
        judged = 0

        async def worker() -> None:
            nonlocal judged
            for unit in units:  # shared: each worker takes the next unit
                key = job.unit_key(unit)
                todo = [p for p in job.protocols if (key, p.name) not in rundir.done]
                if not todo:
                    continue
                AFFINITY.set(key)  # an endpoint pool keeps the item's calls on one replica
                calls = ItemCalls(runner, key, formats)
                decisions = await asyncio.gather(
                    *(p.judge(unit, calls.for_protocol(p.name)) for p in todo))
                try:
                    for decision in decisions:  # together: a unit is done or not, never half
                        rundir.append_item(decision.to_record())
                except OSError as exc:
                    raise write_error(rundir.items_path, exc) from None
                judged += 1
                if self.hooks.on_item is not None:
                    self.hooks.on_item(unit)

        await all_or_none([worker() for _ in range(self.options.items_in_flight)])
        return judged


async def _check_if_served(provider: Provider) -> None:
    """``provider.check()`` when its server answers (what it learns, a served simulated
    judge, is then the same as online); an unreachable server is no error (batch files)."""
    try:
        await provider.check()
    except (ProviderError, ConfigError) as exc:
        log.info("batch files: the judge's server was not asked (%s)", exc)


def _protocol_params(protocols: Sequence[JudgingProtocol]) -> list[dict[str, Any]]:
    return [{"name": p.name, "params": p.params()} for p in protocols]


def _damage(exc: BaseException) -> str:
    """What a damaged record lacks, in words (not an exception's class name)."""
    return f"no field {exc}" if isinstance(exc, KeyError) else "a field of the wrong kind"
