"""``jurybox demo``: the main job on bundled data with the embedded simulated judge."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..bench import BenchConfig, run_bench
from ..sim import Faults, SimConfig
from ._common import (BenchProgress, console, default_cache, exit_if_nothing_judged, fail_cleanly,
                      print_bench_result)

BANNER = (
    "[bold yellow]The judge in this demo is SIMULATED[/]: a local OpenAI-compatible server on "
    "127.0.0.1 that plays a noisy judge with a primacy bias (it favours whatever is shown "
    "first), and now and then answers 429, 500, malformed or truncated output, as real "
    "endpoints do. No real model is called. The data is real: 200 TruthfulQA questions, each with "
    "the best answer among up to 3 incorrect ones.")

#: Faults the demo injects, so retries, re-asks and recorded failures show up in its totals.
DEMO_FAULTS = Faults(rate_429=0.03, rate_500=0.01, rate_malformed=0.02, rate_truncated=0.01)

REAL = ("To judge with a real model:  OPENAI_API_KEY=... jurybox bench truthfulqa --model "
        "openai/gpt-4o-mini --limit 200\n  or a local server:  jurybox bench truthfulqa --model "
        "vllm/<model> --base-url http://localhost:8000/v1")


@fail_cleanly
def demo(
    out: Annotated[Path, typer.Option(envvar="JURYBOX_OUT", help="Run directory.")
                   ] = Path("runs/demo"),
    cache: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_CACHE", help="SQLite response cache (default "
        "~/.cache/jurybox/cache.sqlite).")] = None,
    limit: Annotated[int, typer.Option(envvar="JURYBOX_LIMIT", min=1,
                                       help="TruthfulQA items to judge.")] = 200,
    seed: Annotated[int, typer.Option(envvar="JURYBOX_SEED", help="Run seed.")] = 0,
) -> None:
    """Direct vs permutation-consensus (PCF, K=7) judging of 200 bundled TruthfulQA items by
    the simulated, primacy-biased judge; prints paired statistics and writes a run directory."""
    console.print(BANNER)
    config = BenchConfig(dataset="truthfulqa", model="sim", protocols=("direct", "pcf"), k=7,
                         limit=limit, seed=seed,
                         sim=SimConfig(bias="primacy", seed=seed, faults=DEMO_FAULTS))
    with BenchProgress() as progress:
        result = run_bench(config, out, cache_path=cache or default_cache(),
                           on_call=progress.on_call, on_item=progress.on_item,
                           on_start=progress.on_start)
    print_bench_result(result, f"TruthfulQA, {result.n_items} items, SIMULATED primacy-biased "
                               f"judge: direct (1 call) vs PCF (K=7)")
    console.print(REAL)
    exit_if_nothing_judged(result)
