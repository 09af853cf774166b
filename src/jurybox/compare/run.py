"""``bench``: load a labelled dataset, judge it with several protocols, compare them.

The bench supplies the run engine with its items, protocols, unit key and summarizer
(:mod:`jurybox.run`); the engine owns the endpoint, cache, run directory and progress.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from ..datasets import (Item, ItemSelection, LoadedDataset, load_dataset,
                        select_items)
from ..limits import DEFAULT_MAX_ANSWER_CHARS, sampling_problem
from ..errors import ConfigError, DataError
from ..fields import check_arguments
from ..protocols.prompts import LISTWISE_PROMPT_VERSION
from ..protocols import (JudgingProtocol, build_protocol, protocol_class,
                         protocol_label, protocol_names)
from ..protocols.permutations import capped_orders
from ..providers import Provider
from ..rundir import RunLock, previous_sessions
from ..run import (Engine, RunHooks, RunInfo, RunJob, RunOptions, RunReport, StructuredMode,
                   Summary, check_endpoint, open_endpoint)
from ..run.loops import entered_off_loop
from ..runner import AnswerStore
from ..sim import SimJudge
from .config import BenchConfig
from .summary import BenchSummary, summarize

__all__ = ["BenchResult", "DEFAULT_PROTOCOLS", "PreparedBench", "arun_bench", "bench_job",
           "prepare_bench", "replay_bench", "run_bench", "warn_capped_orders"]

S = TypeVar("S", bound=Summary)

#: Protocols judged when none are named, by task.
DEFAULT_PROTOCOLS = {"listwise": ("direct", "pcf"), "pairwise": ("pairwise", "both-orders", "apoc")}

BenchResult = RunReport[BenchSummary]
"""What a bench returns: a ``RunReport`` whose ``summary`` is a ``BenchSummary``."""


@dataclass(frozen=True)
class PreparedBench:
    """A checked bench: config with protocols filled in, dataset, selection, protocols."""

    config: BenchConfig
    dataset: LoadedDataset
    selection: ItemSelection
    protocols: list[JudgingProtocol]


def prepare_bench(config: BenchConfig, expected_sha256: str | None = None, *,
                  dataset: LoadedDataset | None = None) -> PreparedBench:
    """Check everything that can be checked before any model call: load and check the
    dataset (its bytes, when a hash is expected), fill in the task's default protocols,
    select the items, build the protocols and check each suits the dataset's task.

    ``dataset``: already loaded (``jurybox judge`` loads its input with gold optional).

    Raises:
        DataError, ConfigError: on the first problem.
    """
    if problem := sampling_problem(seed=config.seed, temperature=config.temperature,
                                   max_tokens=config.max_tokens):
        raise ConfigError(problem)
    check_endpoint(config.model, config.base_url)  # a dry run refuses what a run refuses
    if dataset is None:
        dataset = load_dataset(config.dataset, subset=config.subset, n=config.n_candidates)
    if config.protocols is None:
        config = replace(config, protocols=DEFAULT_PROTOCOLS[dataset.task])
    assert config.protocols is not None
    if not config.protocols:
        raise ConfigError(f"no protocols named; choose from {protocol_names(dataset.task)}")
    twice = sorted({p for p in config.protocols if config.protocols.count(p) > 1})
    if twice:
        raise ConfigError(f"--protocols names {', '.join(map(repr, twice))} more than once")
    if config.baseline is not None and config.baseline not in config.protocols:
        raise ConfigError(f"--baseline {config.baseline!r} is not among the protocols "
                          f"{', '.join(config.protocols)}")
    if expected_sha256 is not None and dataset.sha256 != expected_sha256:
        raise DataError(dataset.path, f"the dataset changed since the run (sha256 "
                        f"{dataset.sha256[:12]}, the run used {expected_sha256[:12]})")
    for name in config.protocols:
        if protocol_class(name).task != dataset.task:
            raise ConfigError(f"protocol {name!r} judges {protocol_class(name).task} items, "
                              f"but {config.dataset!r} holds {dataset.task} items; "
                              f"{dataset.task} protocols: {protocol_names(dataset.task)}")
    protocols = [build_protocol(name, **config.protocol_args(name)) for name in config.protocols]
    if config.pairwise_rule is not None and not any(
            "rule" in protocol_class(name).ARGS for name in config.protocols):
        raise ConfigError(f"--pairwise-rule {config.pairwise_rule!r} applies to both-orders, "
                          f"which the protocols judged ({', '.join(config.protocols)}) do not "
                          f"include")
    if config.adaptive is not None and not any(
            "adaptive" in protocol_class(name).ARGS for name in config.protocols):
        raise ConfigError(f"--adaptive {config.adaptive!r} applies to pcf, which the protocols "
                          f"judged ({', '.join(config.protocols)}) do not include")
    if (config.confidence is not None or config.min_k is not None) and \
            config.adaptive != "sequential":
        raise ConfigError("--confidence and --min-k set the sequential rule: add --adaptive "
                          "sequential")
    if config.min_k is not None and config.min_k > config.k:
        raise ConfigError(f"--min-k {config.min_k} is above --k {config.k}: the sequential rule "
                          f"cannot wait for more orders than PCF asks; give --min-k <= --k")
    return PreparedBench(config, dataset, select_items(dataset, config.limit, config.seed),
                         protocols)


def warn_capped_orders(bench: PreparedBench, hooks: RunHooks | None) -> RunHooks | None:
    """``hooks``, warning once when the run starts (after every check; through
    :mod:`warnings`: :class:`~jurybox.protocols.permutations.OrdersCappedWarning`) if PCF's
    ``k`` is above n! for some selected items: those are judged in all their n! orders."""
    if "pcf" not in (bench.config.protocols or ()) or bench.dataset.task != "listwise" or \
            bench.config.k <= 2:  # 2 candidates or more have 2 orders at least: no pass
        return hooks
    counts = {len(getattr(item, "candidates", ())) for item in bench.selection}
    if (warning := capped_orders(bench.config.k, counts)) is None:
        return hooks
    base = hooks or RunHooks()

    def on_start(total: int, done: int) -> None:
        warnings.warn(warning, stacklevel=_caller_level())
        if base.on_start is not None:
            base.on_start(total, done)
    return replace(base, on_start=on_start)


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside jurybox (and the standard library
    running it) above the warning's caller: the warning names the user's line."""
    package = str(Path(__file__).resolve().parents[1])
    frame, level = sys._getframe(2), 2  # warnings.warn's caller is level 1
    while frame.f_back is not None and _runs_jurybox(frame.f_code.co_filename, package):
        frame, level = frame.f_back, level + 1
    return level


def _runs_jurybox(filename: str, package: str) -> bool:
    """A frame of jurybox, or of the standard library running it (context managers, the
    event loop the engine runs on, its worker thread)."""
    return filename.startswith(package) or any(
        part in filename for part in ("contextlib.py", "/asyncio/", "/concurrent/",
                                      "threading.py"))


def _job(bench: PreparedBench, out: Path, replayed: bool) -> RunJob[Item, BenchSummary]:
    config, dataset = bench.config, bench.dataset
    names = list(config.protocols or ())

    def summarizer(records: Iterable[dict[str, Any]], info: RunInfo) -> BenchSummary:
        s = summarize(records, names, task=dataset.task, baseline=config.baseline,
                      seed=config.seed)
        return replace(s, n_items=info.n_units, simulated=info.simulated, model=config.model,
                       dataset=dataset.name, totals=info.totals.as_dict(), replayed=replayed,
                       labels={p.name: protocol_label(p) for p in bench.protocols})

    return bench_job(bench, out, kind="bench", config=config.as_dict(), summarize=summarizer,
                     replayed=replayed)


def bench_job(bench: PreparedBench, out: Path, *, kind: str, config: dict[str, Any],
              summarize: Callable[[Iterable[dict[str, Any]], RunInfo], S],
              replayed: bool = False, after: Callable[[Path], None] | None = None,
              lock: RunLock | None = None,
              warnings: Callable[[S], tuple[str, ...]] | None = None) -> RunJob[Item, S]:
    """The engine's job for a checked bench (or a judge run, ``kind="judge"``, which is a
    bench of one protocol): its items one at a time, keyed by item id; run.json's ``config``
    (``config`` plus the dataset's sha256 and, for a listwise run, the prompt layout it
    resumes only with) and manifest (kind, seed, dataset); ``summarize``, ``after``,
    ``lock`` and ``warnings`` as :class:`~jurybox.run.RunJob` takes them."""
    dataset = bench.dataset
    return RunJob(
        out=Path(out), model=bench.config.model,
        config={**config, "dataset_sha256": dataset.sha256,
                # a listwise run resumes only with the prompt layout it was written with
                **({"listwise_prompt": bench.config.listwise_prompt or LISTWISE_PROMPT_VERSION}
                   if dataset.task == "listwise" else {})},
        manifest={"kind": kind, "seed": bench.config.seed, "replayed": replayed,
                  "dataset": {"name": dataset.name, "path": str(dataset.path),
                              "format": dataset.format, "sha256": dataset.sha256,
                              "n_items": bench.selection.n_items}},
        units=lambda: iter(bench.selection), n_units=bench.selection.n_items,
        unit_key=lambda item: item.item_id, protocols=bench.protocols, summarize=summarize,
        after=after, lock=lock, warnings=warnings)


def run_bench(config: BenchConfig, out: str | Path, *, options: RunOptions | None = None,
              hooks: RunHooks | None = None) -> BenchResult:
    """Run (or resume) a bench and write its run directory.

    Order of work: load and check the data, build the protocols, build the provider (a
    missing key fails here), check a real endpoint answers, and only then open the run
    directory and judge.

    Blocks, inside a running event loop too (the engine then runs on a worker thread: see
    :meth:`~jurybox.run.Engine.run`); :func:`arun_bench` is the awaitable form.

    Args:
        config: what to judge, with what.
        out: the run directory.
        options: how to run (concurrency, retries, timeout, cache, ...); default RunOptions().
        hooks: progress callbacks.

    Raises:
        DataError, ConfigError, ProviderError: before any judging starts (RunDirBusyError,
            a ConfigError: another process or another call in this one judges into ``out``).
        ProviderError: when too many calls in a row fail (run.json status "failed").
        KeyboardInterrupt: after writing run.json with status "interrupted".
    """
    _check_run_arguments("run_bench", config, out, options)
    with _bench_run(config, Path(out), options, hooks) as (engine, job):
        return engine.run(job)


async def arun_bench(config: BenchConfig, out: str | Path, *,
                     options: RunOptions | None = None,
                     hooks: RunHooks | None = None) -> BenchResult:
    """:func:`run_bench` on the running event loop: ``await arun_bench(config, out)``.

    The judging (every model call, every hook) runs on the caller's loop without blocking
    it; loading the dataset, starting the endpoint and writing the summary and report run in
    the loop's default executor. Raises as :func:`run_bench`, and asyncio.CancelledError when
    cancelled (run.json then says "interrupted"; a rerun resumes).
    """
    _check_run_arguments("arun_bench", config, out, options)
    async with entered_off_loop(_bench_run(config, Path(out), options, hooks)) as (engine, job):
        return await engine.arun(job)


def _check_run_arguments(function: str, config: Any, out: Any, options: Any) -> None:
    check_arguments(function, config=(config, BenchConfig), out=(out, (str, Path)),
                    options=(options, (RunOptions, type(None))))


@contextmanager
def _bench_run(config: BenchConfig, out: Path, options: RunOptions | None,
               hooks: RunHooks | None) -> Iterator[tuple[Engine, RunJob[Item, BenchSummary]]]:
    """Check the bench (:func:`prepare_bench`) and open its endpoint for the engine."""
    bench = prepare_bench(config)
    hooks = warn_capped_orders(bench, hooks)
    options = options or RunOptions()
    with open_endpoint(config.model, base_url=config.base_url, options=options,
                       sim=lambda: SimJudge(list(bench.selection), config.sim,
                                            fault_epoch=previous_sessions(out))) as provider:
        yield Engine(provider, options, hooks=hooks), _job(bench, out, False)


def replay_bench(config: BenchConfig, provider: Provider, answers: AnswerStore,
                 out: str | Path, *, expected_sha256: str | None = None,
                 hooks: RunHooks | None = None,
                 structured: StructuredMode = "off",
                 max_answer_chars: int = DEFAULT_MAX_ANSWER_CHARS) -> BenchResult:
    """Run a bench offline: every answer comes from ``answers``, none from a model (a request
    it lacks is a recorded failure). ``provider`` only supplies the endpoint identity that
    cache keys were made with, ``structured`` the structured-output mode the run's
    requests were made in, and ``max_answer_chars`` the answer budget it read answers with.
    Used by ``jurybox score`` to replay a run's calls.jsonl.

    Raises:
        DataError: the dataset's bytes differ from ``expected_sha256``.
    """
    bench = prepare_bench(config, expected_sha256)
    engine = Engine(provider, RunOptions(structured=structured,
                                         max_answer_chars=max_answer_chars),
                    hooks=hooks, answers=answers, offline=True)
    return engine.run(_job(bench, Path(out), True))
