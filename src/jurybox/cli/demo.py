"""``jurybox demo``: the main job on bundled data with the embedded simulated judge."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..bench import BenchConfig, run_bench
from ..datasets import BUNDLED_OUTPUTS, bundled_path
from ..sim import Faults, SimConfig
from ._common import (BenchProgress, console, default_cache, exit_if_nothing_judged,
                      fail_cleanly)
from ._tables import print_bench_result
from ..datasets import BUNDLED_ITEMS, BUNDLED_RATINGS, BUNDLED_RUBRICS
from ..personalize import PersonalizeConfig, run_personalize
from .agreement import run_agreement
from .personalize import print_personalize
from .score import print_outputs

BANNER = (
    "[bold yellow]The judge in this demo is SIMULATED[/]: a local OpenAI-compatible server on "
    "127.0.0.1 that plays a noisy judge with a primacy bias (it favours whatever is shown "
    "first), and now and then answers 429, 500, malformed or truncated output, as real "
    "endpoints do. No real model is called. The data is real.")

REAL = ("To judge with a real model:  OPENAI_API_KEY=... jurybox bench truthfulqa --model "
        "openai/gpt-4o-mini --limit 200\n  or a local server:  jurybox bench judgebench --model "
        "vllm/<model> --base-url http://localhost:8000/v1")

#: Faults the demo injects, so retries, re-asks and recorded failures show up in its totals.
DEMO_FAULTS = Faults(rate_429=0.03, rate_500=0.01, rate_malformed=0.02, rate_truncated=0.01)


def _bench(config: BenchConfig, out: Path, cache: Path, title: str) -> None:
    with BenchProgress() as progress:
        result = run_bench(config, out, cache_path=cache, on_call=progress.on_call,
                           on_item=progress.on_item, on_start=progress.on_start)
    print_bench_result(result, title)
    exit_if_nothing_judged(result)


@fail_cleanly
def demo(
    out: Annotated[Path, typer.Option(envvar="JURYBOX_OUT", help="Folder for the run "
                                      "directories.")] = Path("runs/demo"),
    cache: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_CACHE", help="SQLite response cache (default "
        "~/.cache/jurybox/cache.sqlite).")] = None,
    limit: Annotated[int, typer.Option(envvar="JURYBOX_LIMIT", min=1,
                                       help="TruthfulQA items to judge.")] = 200,
    pairs: Annotated[int, typer.Option(envvar="JURYBOX_DEMO_PAIRS", min=1,
                                       help="JudgeBench pairs per split.")] = 100,
    seed: Annotated[int, typer.Option(envvar="JURYBOX_SEED", help="Run seed.")] = 0,
) -> None:
    """Five parts on bundled data: (1) direct vs permutation-consensus (PCF, K=7) on 200
    TruthfulQA items; (2) pairwise vs both-orders vs APOC on 100 JudgeBench pairs per split,
    both with the simulated, primacy-biased judge; (3) rescoring a real recorded judge
    (claude-3-haiku on JudgeBench) from its raw outputs; (4) how much SQuALITY's human raters
    agree (Krippendorff's alpha, coarse Jaccard); (5) zero-shot, aggregate and personalized
    rubric judges of SQuALITY summaries, evaluated against each rater (simulated judge)."""
    console.print(BANNER)
    cache = cache or default_cache()
    sim = SimConfig(bias="primacy", seed=seed, faults=DEMO_FAULTS)
    console.rule("1. Listwise: TruthfulQA, best answer among up to 4")
    _bench(BenchConfig(dataset="truthfulqa", model="sim", protocols=("direct", "pcf"), k=7,
                       limit=limit, seed=seed, sim=sim), out / "truthfulqa", cache,
           f"TruthfulQA, {limit} items, SIMULATED primacy-biased judge: direct (1 call) vs "
           f"PCF (K=7)")
    console.rule("2. Pairwise: JudgeBench, which of two responses is correct")
    _bench(BenchConfig(dataset="judgebench", model="sim",
                       protocols=("pairwise", "both-orders", "apoc"), limit=pairs, seed=seed,
                       sim=sim), out / "judgebench", cache,
           f"JudgeBench, {pairs} pairs per split (gpt, claude), SIMULATED primacy-biased "
           f"judge: pairwise vs both orders vs APOC")
    console.rule("3. Rescoring a real recorded judge: no model calls")
    print_outputs(bundled_path(BUNDLED_OUTPUTS["arena-hard-haiku"]), out=out / "rescored",
                  show=5)
    console.rule("4. Rater agreement: SQuALITY human evaluation, 4 raters, 0-100 scores")
    run_agreement("squality", by="dimension", level="ordinal", seed=seed,
                  out=out / "agreement")
    console.rule("5. Rubric judges: zero-shot vs aggregate vs personalized, SQuALITY 'overall'")
    config = PersonalizeConfig(
        ratings=str(bundled_path(BUNDLED_RATINGS["squality"])),
        items=str(bundled_path(BUNDLED_ITEMS["squality"])),
        rubric=str(bundled_path(BUNDLED_RUBRICS["squality"])), shots=(0, 2, 5), seeds=3,
        raters=None, limit=30, dimensions=("overall",), seed=seed,
        group_field="passage_id", sim=SimConfig(bias="none", seed=seed, faults=DEMO_FAULTS))
    with BenchProgress() as progress:
        result = run_personalize(config, out / "personalize", cache_path=cache,
                                 on_call=progress.on_call, on_item=progress.on_item,
                                 on_start=progress.on_start)
    print_personalize(result, "SQuALITY 'overall' (0-100), 4 raters x 30 summaries, "
                              "SIMULATED judge")
    console.print(REAL)
