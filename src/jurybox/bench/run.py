"""``bench``: load a dataset, judge it with listwise protocols, write a run directory."""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..cache import ResponseCache
from ..datasets import LoadedDataset, load_dataset
from ..errors import ConfigError, DataError
from ..protocols import Weights, build_protocol, protocol_names
from ..providers import Provider, make_provider, parse_spec
from ..reports import RunDir, read_jsonl
from ..runner import AnswerStore, CallRecord, RetryPolicy, Runner
from ..sim import SimConfig, SimJudge, SimServer
from .engine import judge_items
from .summary import summarize

__all__ = ["BenchConfig", "BenchResult", "run_bench", "replay_bench", "select_items",
           "open_provider"]


@dataclass(frozen=True)
class BenchConfig:
    """Everything that defines a listwise bench run (stored in run.json; resume requires the
    same values)."""

    dataset: str
    model: str = "sim"
    protocols: tuple[str, ...] | None = None
    baseline: str | None = None
    k: int = 7
    limit: int | None = None
    seed: int = 0
    subset: str | None = "Factuality"
    n_candidates: int = 4
    tolerance: float = 0.5
    weights: Weights = Weights()
    temperature: float = 0.0
    max_tokens: int | None = None
    base_url: str | None = None
    verdict_format: str | None = None
    sim: SimConfig = field(default_factory=SimConfig)

    def as_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["weights"] = vars(self.weights)
        d["sim"] = self.sim.settings() if self.model == "sim" else None
        d["protocols"] = list(self.protocols) if self.protocols is not None else None
        return d


@dataclass
class BenchResult:
    """What ``run_bench`` returns: the summary plus bookkeeping."""

    summary: dict[str, Any]
    out: Path
    totals: dict[str, Any]
    judged_now: int
    n_items: int
    simulated: bool


def select_items(dataset: LoadedDataset, limit: int | None, seed: int) -> list:
    """All items, or a seeded sample of ``limit`` items kept in dataset order; for a dataset
    with several splits (JudgeBench's gpt and claude), ``limit`` items per split."""
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be >= 1, got {limit}")
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(dataset.items):
        groups.setdefault(getattr(item, "split", ""), []).append(i)
    keep: list[int] = []
    for split, indices in groups.items():
        if limit is None or limit >= len(indices):
            keep.extend(indices)
        else:
            keep.extend(random.Random(f"{seed}:{split}").sample(indices, limit))
    return [dataset.items[i] for i in sorted(keep)]


@contextmanager
def open_provider(config: BenchConfig, items: list, *, timeout_s: float = 60.0,
                  transport: str = "aiohttp") -> Iterator[Provider]:
    """Yield the provider for ``config.model``; for ``sim`` a loopback simulated judge loaded
    with ``items`` runs for the duration."""
    with open_endpoint(config.model, base_url=config.base_url, timeout_s=timeout_s,
                       transport=transport, judge=lambda: SimJudge(items, config.sim)) as p:
        yield p


@contextmanager
def open_endpoint(model: str, *, base_url: str | None, judge: Callable[[], SimJudge],
                  timeout_s: float = 60.0, transport: str = "aiohttp") -> Iterator[Provider]:
    """Yield the provider for a model spec; for ``sim``, ``judge()`` is served on a loopback
    port for the duration.

    Raises:
        ConfigError: a bad spec, or a missing API key.
    """
    spec = parse_spec(model)
    if spec.provider == "sim":
        with SimServer(judge()) as server:
            yield server.provider(timeout_s=timeout_s, transport=transport)
    else:
        yield make_provider(spec, base_url=base_url, timeout_s=timeout_s,
                            transport=transport)  # type: ignore[arg-type]


#: Protocols judged when none are named, by task.
DEFAULT_PROTOCOLS = {"listwise": ("direct", "pcf"), "pairwise": ("pairwise", "both-orders", "apoc")}


def _prepare(config: BenchConfig, expected_sha256: str | None = None
             ) -> tuple[BenchConfig, LoadedDataset, list, list]:
    """Load the dataset (checking its bytes when a hash is expected), fill in the task's
    default protocols, select the items and build the protocols, checking each suits the
    dataset's task. Returns the config with its protocols filled in."""
    dataset = load_dataset(config.dataset, subset=config.subset, n=config.n_candidates)
    if config.protocols is None:
        config = replace(config, protocols=DEFAULT_PROTOCOLS[dataset.task])
    if not config.protocols:
        raise ConfigError(f"no protocols named; choose from {protocol_names(dataset.task)}")
    if config.baseline is not None and config.baseline not in config.protocols:
        raise ConfigError(f"--baseline {config.baseline!r} is not among the protocols "
                          f"{list(config.protocols)}")
    if expected_sha256 is not None and dataset.sha256 != expected_sha256:
        raise DataError(dataset.path, f"the dataset changed since the run (sha256 "
                        f"{dataset.sha256[:12]}, the run used {expected_sha256[:12]})")
    items = select_items(dataset, config.limit, config.seed)
    protocols = [build_protocol(name, k=config.k, seed=config.seed, weights=config.weights,
                                tolerance=config.tolerance, temperature=config.temperature,
                                max_tokens=config.max_tokens,
                                verdict_format=config.verdict_format)
                 for name in config.protocols]
    for protocol in protocols:
        if protocol.task != dataset.task:
            raise ConfigError(f"protocol {protocol.name!r} judges {protocol.task} items, but "
                              f"{config.dataset!r} holds {dataset.task} items; "
                              f"{dataset.task} protocols: {protocol_names(dataset.task)}")
    return config, dataset, items, protocols


def run_bench(config: BenchConfig, out: str | Path, *, cache_path: str | Path | None,
              timeout_s: float = 60.0, transport: str = "aiohttp", **kwargs: Any
              ) -> BenchResult:
    """Run (or resume) a bench and write its run directory.

    Order of work: load and check the data, build the protocols, build the provider (a
    missing key fails here), check a real endpoint answers, and only then open the run
    directory and judge.

    Args:
        config: the run definition.
        out: run directory.
        cache_path: SQLite cache file, or None for no cache.
        timeout_s, transport: for the provider.
        kwargs: concurrency (model calls in flight, default 16), retry (RetryPolicy),
            on_call / on_item (per call record / finished item), on_start (called with
            (items in run, items already done) before judging).

    Raises:
        DataError, ConfigError, ProviderError: before any judging starts.
        ProviderError: when 25 calls in a row fail (run.json status "failed").
        KeyboardInterrupt: after writing run.json with status "interrupted".
    """
    config, dataset, items, protocols = _prepare(config)
    with open_provider(config, items, timeout_s=timeout_s, transport=transport) as provider:
        return _execute(config, dataset, items, protocols, provider, out,
                        cache_path=cache_path,
                        check_endpoint=parse_spec(config.model).provider != "sim", **kwargs)


def replay_bench(config: BenchConfig, provider: Provider, answers: AnswerStore,
                 out: str | Path, *, expected_sha256: str | None = None, **kwargs: Any
                 ) -> BenchResult:
    """Run a bench offline: every answer comes from ``answers``, none from a model (a request
    it lacks is a recorded failure). ``provider`` only supplies the endpoint identity that
    cache keys were made with. Used by ``jurybox score`` to replay a run's calls.jsonl.

    Raises:
        DataError: the dataset's bytes differ from ``expected_sha256``.
    """
    config, dataset, items, protocols = _prepare(config, expected_sha256)
    return _execute(config, dataset, items, protocols, provider, out, cache_path=None,
                    answers=answers, offline=True, check_endpoint=False, abort_after=None,
                    **kwargs)


def _execute(config: BenchConfig, dataset: LoadedDataset, items: list, protocols: list,
             provider: Provider, out: str | Path, *, cache_path: str | Path | None,
             check_endpoint: bool, concurrency: int = 16, retry: RetryPolicy | None = None,
             abort_after: int | None = 25, answers: AnswerStore | None = None,
             offline: bool = False,
             on_call: Callable[[CallRecord], None] | None = None,
             on_item: Callable[[Any], None] | None = None,
             on_start: Callable[[int, int], None] | None = None) -> BenchResult:
    manifest = {"jurybox_version": __version__, "command": sys.argv,
                "dataset": {"name": dataset.name, "path": str(dataset.path),
                            "format": dataset.format, "sha256": dataset.sha256,
                            "n_items": len(items)},
                "model": {"spec": config.model, "simulated": provider.simulated,
                          "endpoint": provider.cache_identity()},
                "seed": config.seed}

    async def main() -> tuple[RunDir, int, dict]:
        try:
            if check_endpoint:
                await provider.check()
            rundir = RunDir(out, {**config.as_dict(), "dataset_sha256": dataset.sha256})
            cache = ResponseCache(cache_path) if cache_path else None
            try:
                runner = Runner(provider, cache=answers or cache, concurrency=concurrency,
                                retry=retry, on_call=call_logger(rundir, on_call),
                                abort_after=abort_after, offline=offline)
                # a simulated judge reached through serve-sim is known after check()
                manifest["model"]["simulated"] = provider.simulated
                judged = await _judge(rundir, manifest, items, protocols, runner,
                                      concurrency, on_item, on_start)
                return rundir, judged, runner.totals.as_dict()
            finally:
                rundir.close()
                if cache is not None:
                    cache.close()
        finally:
            await provider.aclose()

    rundir, judged_now, totals = asyncio.run(main())
    summary = summarize(read_jsonl(rundir.items_path), list(config.protocols),
                        item_ids=[it.item_id for it in items], task=dataset.task,
                        baseline=config.baseline, seed=config.seed)
    summary.update(n_items=len(items), simulated=provider.simulated, model=config.model,
                   dataset=dataset.name, totals=totals, replayed=offline)
    rundir.write_summary(summary)
    return BenchResult(summary, rundir.path, totals, judged_now, len(items), provider.simulated)


def call_logger(rundir: RunDir, on_call: Callable[[CallRecord], None] | None
         ) -> Callable[[CallRecord], None]:
    """Write every call record to calls.jsonl, then pass it on."""
    def record(call: CallRecord) -> None:
        rundir.append_call(call.model_dump(mode="json"))
        if on_call is not None:
            on_call(call)
    return record


async def _judge(rundir: RunDir, manifest: dict, items: list, protocols: list, runner: Runner,
                 workers: int, on_item: Callable | None, on_start: Callable | None) -> int:
    """Judge inside a run.json session (running, then complete / interrupted / failed)."""
    with rundir.session(manifest, runner.totals.as_dict):
        if on_start is not None:
            on_start(len(items), sum(all((it.item_id, p.name) in rundir.done for p in protocols)
                                     for it in items))
        return await judge_items(items, protocols, runner, rundir, workers=workers,
                                 on_item=on_item)
