"""``bench``: load a dataset, judge it with listwise protocols, write a run directory."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import __version__
from ..cache import ResponseCache
from ..datasets import LoadedDataset, load_listwise
from ..errors import ConfigError, ProviderError
from ..protocols import Weights, build_protocol
from ..providers import Provider, make_provider, parse_spec
from ..reports import RunDir, read_jsonl
from ..runner import CallRecord, RetryPolicy, Runner
from ..sim import SimConfig, SimJudge, SimServer
from .engine import judge_items
from .summary import summarize

__all__ = ["BenchConfig", "BenchResult", "run_bench", "select_items", "open_provider"]


@dataclass(frozen=True)
class BenchConfig:
    """Everything that defines a listwise bench run (stored in run.json; resume requires the
    same values)."""

    dataset: str
    model: str = "sim"
    protocols: tuple[str, ...] = ("direct", "pcf")
    k: int = 7
    limit: int | None = None
    seed: int = 0
    subset: str | None = "Factuality"
    n_candidates: int = 4
    tolerance: float = 0.5
    weights: Weights = Weights()
    temperature: float = 0.0
    max_tokens: int = 1024
    base_url: str | None = None
    sim: SimConfig = field(default_factory=SimConfig)

    def as_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["weights"] = vars(self.weights)
        d["sim"] = (self.sim.model_dump(mode="json", exclude={"latency_ms", "latency_jitter_ms"})
                    if self.model == "sim" else None)
        d["protocols"] = list(self.protocols)
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
    """All items, or a seeded sample of ``limit`` of them kept in dataset order."""
    items = dataset.items
    if limit is None or limit >= len(items):
        return list(items)
    if limit < 1:
        raise ConfigError(f"--limit must be >= 1, got {limit}")
    keep = sorted(random.Random(seed).sample(range(len(items)), limit))
    return [items[i] for i in keep]


@contextmanager
def open_provider(config: BenchConfig, items: list, *, timeout_s: float = 60.0,
                  transport: str = "aiohttp") -> Iterator[Provider]:
    """Yield the provider for ``config.model``; for ``sim`` a loopback simulated judge loaded
    with ``items`` runs for the duration."""
    spec = parse_spec(config.model)
    if spec.provider == "sim":
        with SimServer(SimJudge(items, config.sim)) as server:
            yield server.provider(timeout_s=timeout_s, transport=transport)
    else:
        yield make_provider(spec, base_url=config.base_url, timeout_s=timeout_s,
                            transport=transport)  # type: ignore[arg-type]


def run_bench(config: BenchConfig, out: str | Path, *, cache_path: str | Path | None,
              concurrency: int = 16, retry: RetryPolicy | None = None,
              timeout_s: float = 60.0, transport: str = "aiohttp",
              on_call: Callable[[CallRecord], None] | None = None,
              on_item: Callable[[Any], None] | None = None,
              on_start: Callable[[int, int], None] | None = None) -> BenchResult:
    """Run (or resume) a listwise bench and write its run directory.

    Order of work: load and check the data, build the protocols, build the provider (a
    missing key fails here), check a real endpoint answers, and only then open the run
    directory and judge.

    Args:
        config: the run definition.
        out: run directory.
        cache_path: SQLite cache file, or None for no cache.
        concurrency: model calls in flight at once.
        on_call / on_item: called per call record / finished item (progress display).
        on_start: called with (items in run, items already done) before judging.

    Raises:
        DataError, ConfigError, ProviderError: before any judging starts.
        KeyboardInterrupt: after writing run.json with status "interrupted".
    """
    dataset = load_listwise(config.dataset, subset=config.subset, n=config.n_candidates)
    items = select_items(dataset, config.limit, config.seed)
    protocols = [build_protocol(name, k=config.k, seed=config.seed, weights=config.weights,
                                tolerance=config.tolerance, temperature=config.temperature,
                                max_tokens=config.max_tokens) for name in config.protocols]
    with open_provider(config, items, timeout_s=timeout_s, transport=transport) as provider:
        manifest = {"jurybox_version": __version__, "command": sys.argv,
                    "dataset": {"name": dataset.name, "path": str(dataset.path),
                                "format": dataset.format, "sha256": dataset.sha256,
                                "n_items": len(items)},
                    "model": {"spec": config.model, "simulated": provider.simulated,
                              "endpoint": provider.cache_identity()},
                    "seed": config.seed}

        async def main() -> tuple[RunDir, int, dict]:
            try:
                if parse_spec(config.model).provider != "sim":
                    await provider.check()
                rundir = RunDir(out, {**config.as_dict(), "dataset_sha256": dataset.sha256})
                cache = ResponseCache(cache_path) if cache_path else None
                try:
                    runner = Runner(provider, cache=cache, concurrency=concurrency, retry=retry,
                                    on_call=_tee(rundir, on_call))
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
    simulated = provider.simulated
    summary = summarize(read_jsonl(rundir.items_path), list(config.protocols),
                        item_ids=[it.item_id for it in items], seed=config.seed)
    summary.update(n_items=len(items), simulated=simulated, model=config.model,
                   dataset=dataset.name, totals=totals)
    rundir.write_summary(summary)
    return BenchResult(summary, rundir.path, totals, judged_now, len(items), simulated)


def _tee(rundir: RunDir, on_call: Callable[[CallRecord], None] | None
         ) -> Callable[[CallRecord], None]:
    """Write every call record to calls.jsonl, then pass it on."""
    def record(call: CallRecord) -> None:
        rundir.append_call(call.model_dump(mode="json"))
        if on_call is not None:
            on_call(call)
    return record


async def _judge(rundir: RunDir, manifest: dict, items: list, protocols: list, runner: Runner,
                 workers: int, on_item: Callable | None, on_start: Callable | None) -> int:
    """Judge with the manifest kept current: status running, then complete or interrupted
    (or failed, when the runner stops on consecutive API failures)."""
    t0 = time.perf_counter()
    session = {"status": "running", "started": datetime.now(timezone.utc).isoformat()}
    rundir.write_manifest(manifest, session)
    status = "interrupted"
    try:
        if on_start is not None:
            on_start(len(items), sum(all((it.item_id, p.name) in rundir.done for p in protocols)
                                     for it in items))
        judged = await judge_items(items, protocols, runner, rundir, workers=workers,
                                   on_item=on_item)
        status = "complete"
        return judged
    except ProviderError:
        status = "failed"
        raise
    finally:
        session.update(status=status, totals=runner.totals.as_dict(),
                       finished=datetime.now(timezone.utc).isoformat(),
                       seconds=round(time.perf_counter() - t0, 3))
        rundir.write_manifest(manifest, session)
