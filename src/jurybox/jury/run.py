"""Run a jury: every judge runs the whole protocol on every item, then the jury decides.

Layout of a jury's run directory ``OUT``::

    OUT/jury.json          the judges (name, model, weight, options), the run's settings
    OUT/items.jsonl        per (item, protocol): the jury's decision and each judge's beside it
    OUT/summary.json       per judge and for the jury: accuracy, position bias, agreement, cost
    OUT/judges/<name>/     each judge's own run directory (run.json, calls.jsonl, items.jsonl,
                           summary.json, report.html), exactly as a one-judge run writes it

Why one sub-run per judge (and not one engine with a judge field on each call): each judge
then keeps every guarantee a single-judge run has, unchanged: its calls recorded in its
calls.jsonl and cached under its own endpoint identity, its items resumed from its
items.jsonl, its run directory locked and refusing a changed configuration, its failures
counted as its own. The jury's files are derived: OUT/items.jsonl and OUT/summary.json are
rebuilt from the judges' items.jsonl at the end of every run, so a killed jury run resumes
where each judge stopped and pays for no call twice, and a change of weights only recombines
(the judges' records and cache serve every call again).

The judges run one after another (each with its own concurrency), so a jury's wall time is
the sum of its judges'. OUT is locked for the whole run.

Up front, before any model call: every judge's settings and the data are checked as a
one-judge run checks them, every served endpoint is asked once whether it answers (a missing
key or an unreachable endpoint stops the run naming the judge), and the local judge's file is
checked (the local server itself starts when its turn comes). A judge whose calls fail until
the engine gives up (``abort_after`` in a row), or that decides no item at all, stops the run
with a ProviderError naming the judge; what the others judged stays for the rerun.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Union

from .._version import __version__
from ..compare.config import BenchConfig
from ..compare.run import PreparedBench, arun_bench, prepare_bench, run_bench
from ..cost.prices import Price, bundled_price, resolve_price, with_batch_rate
from ..errors import ConfigError, ProviderError, write_error
from ..judging.config import JudgeConfig, prepare_judge
from ..judging.run import arun_judge, run_judge
from ..rundir import RunLock, lock_run_dir, write_json_atomic
from ..run import RunHooks, RunOptions, RunReport, check_endpoint, open_endpoint
from ..runner.retry import RetryPolicy
from .combine import combine, write_items
from .panel import Juror, Jury
from .summary import JurySummary, summarize_jury

__all__ = ["JudgePlan", "JuryResult", "arun_jury", "check_judges", "default_jury_out", "plan_jury",
           "run_jury"]

AnyConfig = Union[BenchConfig, JudgeConfig]

#: jury.json's schema.
JURY_SCHEMA = 1


@dataclass(frozen=True)
class JudgePlan:
    """One judge of a jury, checked: its config (the command's, with this judge's model,
    base URL and sim settings), its run directory and options, and the prepared run."""

    juror: Juror
    config: AnyConfig
    out: Path
    options: RunOptions
    prepared: PreparedBench


@dataclass(frozen=True)
class JuryResult:
    """What a jury run returns.

    Attributes:
        summary: the jury's statistics (also in OUT/summary.json).
        out: the jury's run directory.
        judges: judge name -> its own run's report (totals of this session, cost, status).
        records: the jury's items.jsonl records, in item order.
        n_units: items judged by each judge.
        model_calls: model calls this session, over every judge (0 on a rerun served from
            the judges' records and cache).
    """

    summary: JurySummary
    out: Path
    judges: dict[str, RunReport[Any]]
    records: list[dict[str, Any]]
    n_units: int

    @property
    def model_calls(self) -> int:
        return sum(r.totals.model_calls for r in self.judges.values())

    @property
    def simulated(self) -> bool:
        return all(r.simulated for r in self.judges.values())


def default_jury_out(kind: str, config: dict[str, Any], jury: Jury) -> Path:
    """``runs/<kind>-<data>-jury-<hash of settings and judges>``."""
    judges = [j.public() for j in jury.judges]
    digest = hashlib.sha256(json.dumps([config, judges], sort_keys=True, default=str)
                            .encode()).hexdigest()
    stem = Path(str(config.get("dataset") or config.get("input") or "data")).stem
    return Path("runs") / f"{kind}-{stem}-jury{len(judges)}-{digest[:8]}"


def _options_for(juror: Juror, options: RunOptions) -> RunOptions:
    """The command's options with this judge's own (concurrency, attempts, timeout, price)."""
    if juror.price_in is not None or juror.price_out is not None:
        price: Price | None = resolve_price(juror.model, juror.price_in, juror.price_out,
                                            juror.price_batch)
    else:  # the command's price or the bundled one, at this judge's batch rate
        price = options.price or bundled_price(juror.model)
        price = None if price is None else with_batch_rate(price, juror.model,
                                                            juror.price_batch)
    retry = options.retry if juror.attempts is None else RetryPolicy(
        **{**vars(options.retry), "attempts": juror.attempts})
    return replace(options, concurrency=juror.concurrency or options.concurrency, retry=retry,
                   timeout_s=juror.timeout or options.timeout_s, price=price)


def plan_jury(config: AnyConfig, jury: Jury, out: str | Path, *,
              options: RunOptions | None = None) -> list[JudgePlan]:
    """Check every judge as a one-judge run checks itself (no model call): its spec, its
    sim settings, the data, the protocols.

    ``config.model`` and ``config.sim`` are each judge's unless the judge sets them;
    ``config.base_url`` (``--base-url``: one server of several models, as vLLM or OpenRouter
    serve them) is the endpoint of every served judge without a base_url of its own.

    Raises:
        ConfigError, DataError: naming the judge when the problem is its own.
    """
    options = options or RunOptions()
    plans = []
    for juror in jury.judges:
        if juror.sim is not None and juror.model != "sim":
            raise ConfigError(f"jury: judge {juror.label!r}: 'sim' settings are for model: "
                              f"sim, and its model is {juror.model!r}")
        served = juror.model.split("/", 1)[0] not in ("sim", "local")
        cfg = replace(config, model=juror.model, sim=juror.sim or config.sim,
                      base_url=juror.base_url if juror.base_url is not None or not served
                      else config.base_url)
        try:
            check_endpoint(cfg.model, cfg.base_url)
            prepared = (prepare_judge(cfg) if isinstance(cfg, JudgeConfig)
                        else prepare_bench(cfg))
            judge_options = _options_for(juror, options)
        except ConfigError as exc:
            raise ConfigError(f"jury: judge {juror.label!r}: {exc}") from None
        plans.append(JudgePlan(juror, cfg, Path(out) / "judges" / juror.folder, judge_options,
                               prepared))
    return plans


async def check_judges(plans: list[JudgePlan]) -> None:
    """Ask every served endpoint once whether it answers (a missing key fails when its
    provider is made): before any model call of any judge.

    Raises:
        ConfigError: a missing key; ProviderError: an unreachable endpoint, a refused key;
            both naming the judge.
    """
    for plan in plans:
        model = plan.config.model
        if model == "sim" or model.startswith("sim/") or model.split("/", 1)[0] == "local":
            continue
        try:
            with open_endpoint(model, base_url=plan.config.base_url, options=plan.options,
                               sim=_no_sim) as provider:
                try:
                    await provider.check()
                finally:
                    await provider.aclose()
        except ProviderError as exc:
            raise ProviderError(f"jury: judge {plan.juror.label!r}: {exc}",
                                status=exc.status) from None
        except ConfigError as exc:
            raise ConfigError(f"jury: judge {plan.juror.label!r}: {exc}") from None


def _no_sim() -> Any:  # pragma: no cover - sim judges are never checked here
    raise AssertionError("not a simulated judge")


def _manifest(config: AnyConfig, jury: Jury, plans: list[JudgePlan]) -> dict[str, Any]:
    settings = config.as_dict()
    for key in ("model", "base_url", "sim"):
        settings.pop(key, None)
    return {"schema": JURY_SCHEMA, "jurybox_version": __version__,
            "kind": "judge" if isinstance(config, JudgeConfig) else "bench",
            "judges": [{**j.public(), "out": str(Path("judges") / j.folder)}
                       for j in jury.judges],
            "config": settings, "task": plans[0].prepared.dataset.task,
            "dataset": plans[0].prepared.dataset.name}


def _failed_everything(report: RunReport[Any]) -> bool:
    return report.n_units > 0 and report.failed_units.units == report.n_units


def _stop(plan: JudgePlan, exc: ProviderError) -> ProviderError:
    return ProviderError(f"jury: judge {plan.juror.label!r} ({plan.config.model}) stopped the "
                         f"run: {exc}; what every judge judged so far is saved in "
                         f"{plan.out.parent}, rerun to resume", status=exc.status)


def _nothing(plan: JudgePlan, report: RunReport[Any]) -> ProviderError:
    return ProviderError(f"jury: judge {plan.juror.label!r} ({plan.config.model}) decided "
                         f"none of the {report.n_units} items (every call failed; see "
                         f"{plan.out / 'calls.jsonl'}): a jury does not count a failed judge "
                         f"as a vote; fix or remove it")


def _finish(config: AnyConfig, jury: Jury, plans: list[JudgePlan], out: Path,
            reports: dict[str, RunReport[Any]]) -> JuryResult:
    first = plans[0].prepared
    records = combine(plans, jury, tolerance=config.tolerance)
    try:
        write_items(out / "items.jsonl", records)
        summary = summarize_jury(records, plans, reports, task=first.dataset.task,
                                 seed=config.seed, dataset=first.dataset.name)
        write_json_atomic(out / "summary.json", summary.to_json())
    except OSError as exc:
        raise write_error(out, exc) from None
    _report(out)
    return JuryResult(summary, out, reports, records, first.selection.n_items)


def _report(out: Path) -> None:
    """The jury's report.html (a report that cannot be written is a warning)."""
    import logging

    try:
        from .report import write_jury_report
        write_jury_report(out)
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - the run stands
        logging.getLogger(__name__).warning("could not write %s: %s", out / "report.html", exc)


@contextmanager
def _jury_dir(config: AnyConfig, jury: Jury, out: Path, options: RunOptions | None,
              lock: RunLock | None = None) -> Iterator[list[JudgePlan]]:
    """Check every judge, then lock ``out`` (unless the caller holds ``lock``) and write
    jury.json."""
    plans = plan_jury(config, jury, out, options=options)
    from ..run.loops import run_blocking

    run_blocking(lambda: check_judges(plans))
    with nullcontext(lock) if lock is not None else lock_run_dir(out):
        try:
            write_json_atomic(out / "jury.json", _manifest(config, jury, plans))
        except OSError as exc:
            raise write_error(out / "jury.json", exc) from None
        yield plans


@contextmanager
def _stopping(plan: JudgePlan) -> Iterator[None]:
    """A judge's run: its endpoint failing stops the jury, naming the judge (:func:`_stop`)."""
    try:
        yield
    except ProviderError as exc:
        raise _stop(plan, exc) from None


def _judged(plan: JudgePlan, report: RunReport[Any]) -> RunReport[Any]:
    """``report``, unless the judge failed every call (then the jury stops, naming it)."""
    if _failed_everything(report):
        raise _nothing(plan, report)
    return report


def run_jury(config: AnyConfig, jury: Jury, out: str | Path, *,
             options: RunOptions | None = None, hooks: RunHooks | None = None,
             lock: RunLock | None = None) -> JuryResult:
    """Run (or resume) a jury: each judge's run into ``out/judges/<name>``, then the jury's
    items.jsonl, summary.json and report.html in ``out``.

    Args:
        config: a bench (:class:`~jurybox.compare.BenchConfig`) or judge
            (:class:`~jurybox.judging.JudgeConfig`) run; its model, base_url and sim are
            each judge's.
        jury: the judges (:func:`~jurybox.jury.load_jury`, :func:`~jurybox.jury.jury_of`).
        options: the run options every judge starts from (a judge's own override them).
        hooks: progress callbacks, called for each judge's run in turn.
        lock: ``out``'s lock when the caller holds it already (:func:`jurybox.judge`
            writes the items into ``out`` first); None: the run locks ``out``.

    Raises:
        ConfigError, DataError: before any call (a bad judge, bad data, ``out`` in use).
        ProviderError: an endpoint that cannot be used (before any call), or a judge that
            failed every call (naming it).
        KeyboardInterrupt: after the running judge wrote its run.json; a rerun resumes.
    """
    out = Path(out)
    with _jury_dir(config, jury, out, options, lock) as plans:
        reports: dict[str, RunReport[Any]] = {}
        for plan in plans:
            with _stopping(plan):
                run = run_judge if isinstance(plan.config, JudgeConfig) else run_bench
                report: RunReport[Any] = run(plan.config, plan.out,  # type: ignore[arg-type]
                                             options=plan.options, hooks=hooks)
            reports[plan.juror.label] = _judged(plan, report)
        return _finish(config, jury, plans, out, reports)


async def arun_jury(config: AnyConfig, jury: Jury, out: str | Path, *,
                    options: RunOptions | None = None, hooks: RunHooks | None = None,
                    lock: RunLock | None = None) -> JuryResult:
    """:func:`run_jury` on the running event loop (each judge's run is awaited in turn; the
    checks and file work run in the loop's default executor). Raises as :func:`run_jury`,
    and asyncio.CancelledError when cancelled (a rerun resumes)."""
    out = Path(out)
    plans = await asyncio.to_thread(plan_jury, config, jury, out, options=options)
    await check_judges(plans)
    held = lock if lock is not None else await asyncio.to_thread(lock_run_dir, out)
    try:
        await asyncio.to_thread(write_json_atomic, out / "jury.json",
                                _manifest(config, jury, plans))
        reports: dict[str, RunReport[Any]] = {}
        for plan in plans:
            with _stopping(plan):
                arun = arun_judge if isinstance(plan.config, JudgeConfig) else arun_bench
                report: RunReport[Any] = await arun(
                    plan.config, plan.out, options=plan.options,  # type: ignore[arg-type]
                    hooks=hooks)
            reports[plan.juror.label] = _judged(plan, report)
        return await asyncio.to_thread(_finish, config, jury, plans, out, reports)
    except OSError as exc:
        raise write_error(out, exc) from None
    finally:
        if lock is None:
            held.release()

