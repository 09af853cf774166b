"""``judge``: pick the best of N candidates (or the better of two) where there is no gold.

A judge run is a bench run of one protocol over items whose gold is optional, with the
per-item judgments as its product: ``RUN/judgments.jsonl`` and ``RUN/judgments.csv`` next to
the usual run directory files (run.json, calls.jsonl, items.jsonl, summary.json). Items with
gold add accuracy; without gold nothing pretends to be one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..compare.run import BenchConfig, PreparedBench, _protocol_label, prepare_bench
from ..compare.summary import latest_records, summarize
from ..datasets import load_dataset
from ..errors import ConfigError, did_you_mean
from ..fields import check_fields
from ..protocols import PCFProtocol, Weights, protocol_class, protocol_names
from ..protocols.prompts import LISTWISE_PROMPT_VERSION
from ..reports import previous_sessions
from ..reports.reader import iter_lines_at, line_offsets
from ..run import (Engine, RunHooks, RunInfo, RunJob, RunOptions, RunReport, check_endpoint,
                   open_endpoint)
from ..sim import SimConfig, SimJudge
from .items import INPUT_FILE, write_input
from .results import ItemJudgment, JudgeSummary, judgment_of, read_judgments, write_judgments

__all__ = ["JudgeConfig", "JudgeResult", "Judgments", "prepare_judge", "run_judge", "judge",
           "default_judge_out"]

#: What :func:`run_judge` returns.
JudgeResult = RunReport[JudgeSummary]


@dataclass(frozen=True)
class JudgeConfig:
    """Everything that defines a judge run (stored in run.json; resume requires the same).

    Attributes:
        input: a file (generic JSONL ``id, prompt, candidates, gold?``; JudgeBench JSONL; or
            any bench dataset file) or a bundled dataset name.
        protocol: ``pcf`` (default), ``direct``, ``pairwise``, ``both-orders``, ``keyed`` or
            ``apoc``; pairwise protocols take generic lines with exactly 2 candidates.
        criteria, template: the user's judging criteria and template text (None: the
            factuality prompt; :mod:`jurybox.protocols.templates`).
        The other fields are :class:`~jurybox.compare.BenchConfig`'s.
    """

    input: str
    model: str = "sim"
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
                          f"{did_you_mean(config.protocol, choices)}; jurybox judge takes "
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
        for j in map(judgment_of, latest_records(records)):
            n_items += 1
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
                            else None)

    return summarize_judge


def _in_input_order(path: Path, item_ids: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Each item's last record in items.jsonl, in the order of ``item_ids`` (the input's),
    read one at a time from the line offsets of one pass."""
    offsets = line_offsets(path, lambda r: r.get("item_id"))
    return iter_lines_at(path, (offsets[i][-1] for i in item_ids if i in offsets))


def _job(bench: PreparedBench, config: JudgeConfig, out: Path) -> RunJob:
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
        summarize=_summarizer(bench, config))


def run_judge(config: JudgeConfig, out: str | Path, *, options: RunOptions | None = None,
              hooks: RunHooks | None = None) -> JudgeResult:
    """Run (or resume) a judge run: judge every item, then write ``judgments.jsonl`` and
    ``judgments.csv`` (and ``report.html`` when the report module is installed).

    Raises:
        DataError, ConfigError, ProviderError: before any judging starts.
        ProviderError: too many calls in a row failed (run.json status "failed").
        KeyboardInterrupt: after writing run.json with status "interrupted" (the judgments
            files are then not written; a rerun resumes and writes them).
    """
    bench = prepare_judge(config)
    out = Path(out)
    options = options or RunOptions()
    with open_endpoint(config.model, base_url=config.base_url, options=options,
                       sim=lambda: SimJudge(list(bench.selection), config.sim,
                                            fault_epoch=previous_sessions(out))) as provider:
        result = Engine(provider, options, hooks=hooks).run(_job(bench, config, out))
    ids = (item.item_id for item in bench.selection)
    write_judgments(map(judgment_of, _in_input_order(out / "items.jsonl", ids)), out)
    return result


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


def judge(items: Iterable[Any] | str | Path, *, model: str = "sim", protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, **settings: Any) -> Judgments:
    """Judge candidates given in memory (or a file) and return typed per-item results.

    Args:
        items: dicts (``id``, ``prompt``, ``candidates``, optional ``gold``; ``item_id`` and
            ``question`` are accepted too), :class:`~jurybox.ListwiseItem` or PairwiseItem
            values, other dataclasses with those fields, or a file path / bundled name.
        model: ``sim`` (the simulated judge) or ``provider/model`` (``openai/gpt-4o-mini``,
            ``vllm/...``, ``local``).
        protocol: ``pcf`` (default), ``direct``, ``pairwise``, ``both-orders``, ``keyed``,
            ``apoc``.
        out: the run directory (default ``runs/judge-items-<model>-<hash>``, the same for the
            same items and settings, so a rerun is served from its cache and records).
        settings: any other :class:`JudgeConfig` field (``k``, ``criteria``, ``template``
            text, ``adaptive``, ``seed``, ``base_url``, ``sim``, ...).

    Raises:
        ConfigError, DataError: bad items or settings (before any model call).
        ProviderError: the endpoint cannot be used.
    """
    _check_arguments(items, out, options, hooks)
    unknown = sorted(set(settings) - set(JudgeConfig.__dataclass_fields__) - {"input"})
    if unknown or "input" in settings:
        raise ConfigError(f"judge() takes no setting {', '.join(map(repr, unknown or ['input']))}"
                          f"; it takes {sorted(set(JudgeConfig.__dataclass_fields__) - {'input'})}")
    if isinstance(items, (str, os.PathLike)):
        config = JudgeConfig(input=os.fspath(items), model=model, protocol=protocol, **settings)
        folder = Path(out) if out is not None else default_judge_out(config)
        result = run_judge(config, folder, options=options, hooks=hooks)
    else:
        rows = list(items)
        digest = hashlib.sha256(json.dumps([repr(r) for r in rows]).encode()).hexdigest()
        probe = JudgeConfig(input="items", model=model, protocol=protocol, **settings)
        folder = Path(out) if out is not None else default_judge_out(probe, digest)
        created = not folder.exists()
        config = replace(probe, input=str(write_input(rows, folder)))
        try:
            result = run_judge(config, folder, options=options, hooks=hooks)
        except BaseException:
            if not (folder / "run.json").exists():  # refused before any run: leave nothing
                _remove_input(folder, created)
            raise
    return Judgments(list(read_judgments(folder / "judgments.jsonl")), result.summary, folder,
                     result)


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


def _remove_input(folder: Path, created: bool) -> None:
    """Undo :func:`write_input` for a call that was refused (bad items or settings)."""
    (folder / INPUT_FILE).unlink(missing_ok=True)
    if created:
        try:
            folder.rmdir()
        except OSError:  # something else is in it: leave it
            pass
