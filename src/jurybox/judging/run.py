"""``judge``: pick the best of N candidates (or the better of two) where there is no gold.

A judge run is a bench run of one protocol over items whose gold is optional, with the
per-item judgments as its product: ``RUN/judgments.jsonl`` and ``RUN/judgments.csv`` next to
the usual run directory files (run.json, calls.jsonl, items.jsonl, summary.json). Items with
gold add accuracy; without gold nothing pretends to be one.

Each verb has an awaitable form for code that runs on an event loop (``await ajudge(...)``,
``await arun_judge(...)``); the blocking forms work there too, on a worker thread.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from ..compare.run import (BenchConfig, PreparedBench, _protocol_label, prepare_bench,
                           warn_capped_orders)
from ..compare.summary import latest_records, summarize
from ..datasets import load_dataset
from ..errors import ConfigError, did_you_mean
from ..fields import check_fields
from ..providers.spec import require_model
from ..protocols import PCFProtocol, Weights, protocol_class, protocol_names
from ..protocols.prompts import LISTWISE_PROMPT_VERSION
from ..rundir import RunLock, iter_lines_at, line_offsets, lock_run_dir, previous_sessions
from ..run import (Engine, RunHooks, RunInfo, RunJob, RunOptions, RunReport, check_endpoint,
                   open_endpoint)
from ..run.endpoint import split_endpoints
from ..run.loops import entered_off_loop
from ..sim import SimConfig, SimJudge
from .items import INPUT_FILE, id_text, input_rows, named_by_item, write_input
from .results import (ItemJudgment, JudgeSummary, judgment_of, pairwise_outcome, read_judgments,
                      write_judgments)

if TYPE_CHECKING:
    from ..jury import JuryResult

__all__ = ["JudgeConfig", "JudgeResult", "Judgments", "ajudge", "arun_judge", "default_judge_out",
           "judge", "prepare_judge", "run_judge"]

#: What :func:`run_judge` returns.
JudgeResult = RunReport[JudgeSummary]


@dataclass(frozen=True)
class JudgeConfig:
    """Everything that defines a judge run (stored in run.json; resume requires the same).

    The fields not listed below are :class:`~jurybox.compare.BenchConfig`'s.

    Attributes:
        input: a file (generic JSONL ``id, prompt, candidates, gold?``; JudgeBench JSONL; or
            any bench dataset file) or a bundled dataset name.
        model: the judge (``sim``, ``local``, ``openai/gpt-4o-mini``, ...): no default, so the
            user's own data is never judged by the simulated judge unless asked.
        protocol: ``pcf`` (default), ``direct``, ``pairwise``, ``both-orders``, ``keyed`` or
            ``apoc``; pairwise protocols take generic lines with exactly 2 candidates.
        criteria, template: the user's judging criteria and template text (None: the
            factuality prompt; :mod:`jurybox.protocols.templates`).
    """

    input: str
    model: str
    protocol: str = "pcf"
    k: int = 7
    limit: int | None = None
    seed: int = 0
    tolerance: float = 0.5
    weights: Weights = Weights()
    temperature: float = 0.0
    max_tokens: int | None = None
    base_url: str | None = None
    verdict_format: str | None = None
    pairwise_rule: str | None = None
    adaptive: str | None = None
    confidence: float | None = None
    min_k: int | None = None
    criteria: str | None = None
    template: str | None = None
    sim: SimConfig = field(default_factory=SimConfig)

    def __post_init__(self) -> None:
        check_fields(self)  # ConfigError naming a field of the wrong kind (k=2.5, criteria=5)

    def bench_config(self) -> BenchConfig:
        """The one-protocol bench this judge run is."""
        return BenchConfig(
            dataset=self.input, model=self.model, protocols=(self.protocol,), k=self.k,
            limit=self.limit, seed=self.seed, tolerance=self.tolerance, weights=self.weights,
            temperature=self.temperature, max_tokens=self.max_tokens, base_url=self.base_url,
            verdict_format=self.verdict_format, pairwise_rule=self.pairwise_rule,
            adaptive=self.adaptive, confidence=self.confidence, min_k=self.min_k,
            criteria=self.criteria, template=self.template, sim=self.sim)

    def as_dict(self) -> dict[str, Any]:
        """As stored in run.json's ``config``."""
        d = self.bench_config().as_dict()
        del d["dataset"], d["protocols"], d["baseline"], d["subset"], d["n_candidates"]
        return {"input": self.input, "protocol": self.protocol, **d}


def prepare_judge(config: JudgeConfig) -> PreparedBench:
    """Check everything before any model call: the protocol name, the input file (gold
    optional; generic lines read as pairs for a pairwise protocol), the options.

    Raises:
        ConfigError, DataError: on the first problem.
    """
    choices = protocol_names("listwise") + protocol_names("pairwise")
    if config.protocol not in choices:
        raise ConfigError(f"unknown protocol {config.protocol!r}"
                          f"{did_you_mean(config.protocol, choices) or ';'} jurybox judge takes "
                          f"{', '.join(choices)}")
    check_endpoint(config.model, config.base_url)  # before reading a large input
    dataset = load_dataset(config.input, labelled=False)
    task = protocol_class(config.protocol).task
    if task == "pairwise" and dataset.format == "jsonl":
        dataset = load_dataset(config.input, format="pairs", labelled=False)
    if task != dataset.task:
        raise ConfigError(f"protocol {config.protocol!r} judges {task} items, but "
                          f"{config.input!r} holds {dataset.task} items; {dataset.task} "
                          f"protocols: {protocol_names(dataset.task)}")
    return prepare_bench(config.bench_config(), dataset=dataset)


def _summarizer(bench: PreparedBench, config: JudgeConfig):
    name = config.protocol
    label = _protocol_label(bench.protocols[0])

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
    dataset = bench.dataset
    for protocol in bench.protocols:  # judgments show C_i's components
        if isinstance(protocol, PCFProtocol):
            protocol.components = True
    return RunJob(
        out=out, model=config.model,
        config={**config.as_dict(), "dataset_sha256": dataset.sha256,
                **({"listwise_prompt": LISTWISE_PROMPT_VERSION}
                   if dataset.task == "listwise" else {})},
        manifest={"kind": "judge", "seed": config.seed, "replayed": False,
                  "dataset": {"name": dataset.name, "path": str(dataset.path),
                              "format": dataset.format, "sha256": dataset.sha256,
                              "n_items": bench.selection.n_items}},
        units=lambda: iter(bench.selection), n_units=bench.selection.n_items,
        unit_key=lambda item: item.item_id, protocols=bench.protocols,
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


def default_judge_out(config: JudgeConfig, items_sha256: str = "") -> Path:
    """``runs/judge-<input>-<model>-<hash of config>``: the same call reuses (and resumes)
    the same folder, a changed one gets a new folder."""
    digest = hashlib.sha256(json.dumps([config.as_dict(), items_sha256], sort_keys=True,
                                       default=str).encode()).hexdigest()
    return Path("runs") / (f"judge-{Path(config.input).stem}-"
                           f"{config.model.replace('/', '_')}-{digest[:8]}")


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


@overload
def judge(items: Iterable[Any] | str | Path, *, model: str | None = None, protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, jury: None = None, **settings: Any) -> Judgments: ...


@overload
def judge(items: Iterable[Any] | str | Path, *, model: None = None, protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, jury: Any, **settings: Any) -> JuryResult: ...


def judge(items: Iterable[Any] | str | Path, *, model: str | None = None, protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, jury: Any = None, **settings: Any
          ) -> Judgments | JuryResult:
    """Judge candidates given in memory (or a file) and return typed per-item results.

    Args:
        items: dicts (``id``, ``prompt``, ``candidates``, optional ``gold``; ``item_id`` and
            ``question`` are accepted too), :class:`~jurybox.ListwiseItem` or PairwiseItem
            values, other dataclasses with those fields, or a file path / bundled name.
        model: the judge, required: ``provider/model`` (``openai/gpt-4o-mini``, ``vllm/...``),
            ``local`` (llama.cpp on this machine), or ``sim`` to try the tool (the simulated
            judge, which is told the gold answers).
        protocol: ``pcf`` (default), ``direct``, ``pairwise``, ``both-orders``, ``keyed``,
            ``apoc``.
        out: the run directory (default ``runs/judge-items-<model>-<hash>``, the same for the
            same items and settings, so a rerun is served from its cache and records).
        settings: any other :class:`JudgeConfig` field (``k``, ``criteria``, ``template``
            text, ``adaptive``, ``seed``, ``base_url``, ``sim``, ...). Several replicas of
            the judge's model, judged through as one endpoint pool: ``base_url`` as a list or
            tuple of URLs (or comma-separated), or ``endpoints`` the path of an endpoints
            file (:mod:`jurybox.providers.endpoints`), as ``--base-url`` and ``--endpoints``.
        jury: instead of ``model``, several judges as one panel: a list of model specs,
            dicts with a jury file's judge keys (``model``, ``name``, ``weight``, ``sim``,
            ...), :class:`~jurybox.jury.Juror` values, a :class:`~jurybox.jury.Jury`, or a
            jury file's path (:mod:`jurybox.jury.panel`). Each judge runs ``protocol`` on
            every item into ``out/judges/<name>``; the jury decides by weighted vote
            (pairwise) or the weighted mean of C_i (listwise).

    Returns:
        The judgments of exactly the items given (or selected by ``limit``), in their order;
        with ``jury``, a :class:`~jurybox.jury.JuryResult` (``records``: per item the jury's
        decision and each judge's; ``summary``: per-judge and jury statistics).

    One call at a time in a run directory: the call locks ``out`` before it writes the items
    into it and holds the lock until its result is read, and a second call into the same
    folder while the first runs, from another thread, another task or another process
    (two calls with the same items and no ``out`` share the default folder), is refused at
    once with RunDirBusyError naming the holder, as two processes always were. Refused rather
    than queued: the rule is the same in and across processes; a wait could never end where a
    blocking call on an event loop's thread waited for a task of that loop; and the same call
    once the first has finished is served from its records and cache, with no model call.

    Blocks, inside a running event loop too (Jupyter, an async handler: the engine then runs
    on a worker thread); :func:`ajudge` is the awaitable form, which does not block the loop.

    Raises:
        ConfigError, DataError: bad items or settings (before any model call); ``out`` holds
            a run of other items or other settings; RunDirBusyError (a ConfigError): another
            call or process judges into ``out``.
        ProviderError: the endpoint cannot be used.
        KeyboardInterrupt: Ctrl-C, after writing run.json with status "interrupted".
    """
    if jury is not None:
        from ..jury.api import judge_with_jury

        _no_model_with_jury(model)
        return judge_with_jury(items, jury, protocol=protocol, out=out, options=options,
                               hooks=hooks, **settings)
    with _judge_call(items, model, protocol, out, options, hooks, settings) as run:
        return run.result(run.engine.run(run.job))


def _no_model_with_jury(model: str | None) -> None:
    if model is not None:
        raise ConfigError("give model= (one judge) or jury= (several), not both")


@overload
async def ajudge(items: Iterable[Any] | str | Path, *, model: str | None = None,
                 protocol: str = "pcf", out: str | Path | None = None,
                 options: RunOptions | None = None, hooks: RunHooks | None = None,
                 jury: None = None, **settings: Any) -> Judgments: ...


@overload
async def ajudge(items: Iterable[Any] | str | Path, *, model: None = None,
                 protocol: str = "pcf", out: str | Path | None = None,
                 options: RunOptions | None = None, hooks: RunHooks | None = None,
                 jury: Any, **settings: Any) -> JuryResult: ...


async def ajudge(items: Iterable[Any] | str | Path, *, model: str | None = None,
                 protocol: str = "pcf", out: str | Path | None = None,
                 options: RunOptions | None = None, hooks: RunHooks | None = None,
                 jury: Any = None, **settings: Any) -> Judgments | JuryResult:
    """:func:`judge` on the running event loop: ``await jurybox.ajudge(items, ...)`` (in a
    notebook, an async web handler).

    The judging (every model call, every hook) runs on the caller's loop without blocking
    it, so several ``ajudge`` calls with different ``out`` folders judge concurrently on one
    loop; writing the items, checking them, starting the endpoint and writing the summary,
    judgments and report run in the loop's default executor. Arguments, result and errors as
    :func:`judge`, plus asyncio.CancelledError when the awaiting task is cancelled (run.json
    then says "interrupted"; the same call again resumes).
    """
    if jury is not None:
        from ..jury.api import ajudge_with_jury

        _no_model_with_jury(model)
        return await ajudge_with_jury(items, jury, protocol=protocol, out=out,
                                      options=options, hooks=hooks, **settings)
    async with entered_off_loop(
            _judge_call(items, model, protocol, out, options, hooks, settings)) as run:
        return run.result(await run.engine.arun(run.job))


def _check_settings(settings: dict[str, Any]) -> None:
    unknown = sorted(set(settings) - set(JudgeConfig.__dataclass_fields__) - {"input"})
    if unknown or "input" in settings:
        takes = sorted(set(JudgeConfig.__dataclass_fields__) - {"input"} | {"endpoints"})
        raise ConfigError(f"judge() takes no setting {', '.join(map(repr, unknown or ['input']))}"
                          f"; it takes {takes}")


def _pool_settings(settings: dict[str, Any], options: RunOptions | None
                   ) -> tuple[dict[str, Any], RunOptions | None]:
    """judge()'s ``base_url`` (a URL; several: a list or tuple of URLs, or one text of
    comma-separated URLs) and ``endpoints`` (an endpoints file's path), as ``--base-url`` and
    ``--endpoints`` take them: the settings with the config's one base URL, and the options
    with an endpoint pool (:attr:`RunOptions.endpoints`) when several replicas are given.

    Raises:
        ConfigError: base_url of another kind, an empty list, a bad URL or one given twice;
            endpoints not a path; base_url and endpoints both given; a pool given here and in
            ``options.endpoints`` too.
        DataError: a bad endpoints file (file, line, endpoint and field).
    """
    if "base_url" not in settings and "endpoints" not in settings:
        return settings, options
    settings = dict(settings)
    base_url, endpoints = settings.pop("base_url", None), settings.pop("endpoints", None)
    if isinstance(base_url, (list, tuple)):
        if not base_url or not all(isinstance(url, str) for url in base_url):
            raise ConfigError(f"base_url must be a URL, or a list of URLs (the replicas of "
                              f"one model), got {base_url!r:.120}")
    elif base_url is not None and not isinstance(base_url, str):
        raise ConfigError(f"base_url must be a URL (text), a list of URLs, or None, got "
                          f"{base_url!r:.80} ({type(base_url).__name__})")
    if endpoints is not None and not isinstance(endpoints, (str, os.PathLike)):
        raise ConfigError(f"endpoints must be the path of an endpoints file (str or Path), "
                          f"got {type(endpoints).__name__}")
    url, pool = split_endpoints(base_url, None if endpoints is None else os.fspath(endpoints))
    if url is not None:
        settings["base_url"] = url
    if pool:
        if options is not None and options.endpoints:
            raise ConfigError("the endpoint pool is given twice, in base_url= or endpoints= "
                              "and in options=RunOptions(endpoints=...): give it once")
        options = replace(options or RunOptions(), endpoints=pool)
    return settings, options


@contextmanager
def _judge_call(items: Iterable[Any] | str | Path, model: str | None, protocol: str,
                out: str | Path | None, options: RunOptions | None, hooks: RunHooks | None,
                settings: dict[str, Any]) -> Iterator[_JudgeRun]:
    """:func:`judge`'s run: items in memory are written to ``out/input.jsonl`` with ``out``
    locked (and the lock held through the run); a call refused before its run leaves
    nothing behind."""
    _check_arguments(items, out, options, hooks)
    settings, options = _pool_settings(settings, options)
    _check_settings(settings)
    model = require_model(model, os.fspath(items) if isinstance(items, (str, os.PathLike))
                          else "the items", how="model=...")
    if isinstance(items, (str, os.PathLike)):
        config = JudgeConfig(input=os.fspath(items), model=model, protocol=protocol,
                             **settings)
        folder = Path(out) if out is not None else default_judge_out(config)
        with _judge_run(config, folder, options, hooks, keep=True) as run:
            yield run
        return
    raw = list(items)
    rows = input_rows(raw)  # a bad item is refused before the folder is touched
    digest = hashlib.sha256(json.dumps([repr(r) for r in raw]).encode()).hexdigest()
    probe = JudgeConfig(input="items", model=model, protocol=protocol, **settings)
    folder = Path(out) if out is not None else default_judge_out(probe, digest)
    existed, had_lock = folder.exists(), (folder / "lock").exists()
    with lock_run_dir(folder) as lock:
        try:
            config = replace(probe, input=str(write_input(rows, folder)))
            with named_by_item(rows, Path(config.input)), _judge_run(
                    config, folder, options, hooks, lock=lock, keep=True,
                    given=[id_text(row["id"]) for row in rows]) as run:
                yield run
        except BaseException:
            if not (folder / "run.json").exists():  # refused before any run: leave nothing
                _remove_input(folder, existed, had_lock)
            raise


def _check_arguments(items: Any, out: Any, options: Any, hooks: Any) -> None:
    """judge()'s own arguments, before anything is written (ConfigError naming the one)."""
    if isinstance(items, Mapping):
        raise ConfigError("items must be a list of items (dicts with id, prompt, candidates) "
                          "or a file path, got one dict; give [item]")
    if not isinstance(items, (str, os.PathLike, Iterable)):
        raise ConfigError(f"items must be a list of items or a file path, got "
                          f"{type(items).__name__}")
    if out is not None:
        if not isinstance(out, (str, os.PathLike)):
            raise ConfigError(f"out must be a path (str or Path) or None, got "
                              f"{type(out).__name__}")
        if not str(out).strip():
            raise ConfigError("out is empty; give a folder for the run directory")
        if Path(out).exists() and not Path(out).is_dir():
            raise ConfigError(f"out={str(out)!r} is a file, not a folder; give a folder for "
                              f"the run directory")
    if options is not None and not isinstance(options, RunOptions):
        raise ConfigError(f"options must be a RunOptions or None, got {type(options).__name__}")
    if hooks is not None and not isinstance(hooks, RunHooks):
        raise ConfigError(f"hooks must be a RunHooks or None, got {type(hooks).__name__}")


def _remove_input(folder: Path, existed: bool, had_lock: bool) -> None:
    """Undo :func:`write_input` and the lock file of a call that was refused (bad items or
    settings), while it still holds the lock; a folder it did not create stays."""
    (folder / INPUT_FILE).unlink(missing_ok=True)
    if not had_lock:
        (folder / "lock").unlink(missing_ok=True)
    if not existed:
        try:
            folder.rmdir()
        except OSError:  # something else is in it: leave it
            pass
