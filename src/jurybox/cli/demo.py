"""``jurybox demo``: the main job on bundled data with the embedded simulated judge."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any


from ._declared import declared
from ._common import console, default_cache, exit_for_status, fail_cleanly
from ._progress import with_progress
from ._options import Cache, Seed

if TYPE_CHECKING:
    from ..compare import BenchConfig
    from ..run import RunOptions

BANNER = (
    "[bold yellow]The judge in this demo is SIMULATED[/]: a local OpenAI-compatible server on "
    "127.0.0.1 that plays a noisy judge with a primacy bias (it favours whatever is shown "
    "first), and now and then answers 429, 500, malformed or truncated output, as real "
    "endpoints do. No real model is called. The data is real.")

REPORTS = ("Each judging part's run directory holds report.html, a self-contained page to open "
           "in a browser ({out}/truthfulqa/report.html, ...; the rescoring writes "
           "summary.json); `jurybox report {out}` writes index.html, one page of every run; "
           "`jurybox show RUN ITEM_ID` prints one item, `jurybox export RUN --format csv` flat "
           "tables.")
REAL = ("To judge with a real model:  OPENAI_API_KEY=... jurybox bench truthfulqa --model "
        "openai/gpt-4o-mini --limit 200\n  or a local server:  jurybox bench judgebench --model "
        "vllm/<model> --base-url http://localhost:8000/v1")

#: Faults the demo injects, so retries, re-asks and recorded failures show up in its totals.
DEMO_FAULTS = dict(rate_429=0.03, rate_500=0.01, rate_malformed=0.02, rate_truncated=0.01)


def _bench(config: BenchConfig, out: Path, options: RunOptions, title: str) -> None:
    from ..compare import run_bench
    from ._tables import print_bench_result

    result = with_progress(run_bench, config, out, options=options)
    print_bench_result(result, title)
    exit_for_status(result, strict=False)


def _rank(out: Path, options: RunOptions, sim: Any, seed: int) -> None:
    import json

    from ..leaderboard.run import rank
    from ..leaderboard.simulated import truthfulqa_systems
    from .rank import print_ranking

    out.mkdir(parents=True, exist_ok=True)
    path = out / "systems.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                            for r in truthfulqa_systems(24)), encoding="utf-8")
    result = with_progress(rank, path, baseline="sometimes", model="sim", out=out,
                           options=options, seed=seed, sim=sim)
    print_ranking(result)


@fail_cleanly
def demo(
    out: Annotated[Path, declared("demo --out")
                   ] = Path("runs/demo"),
    cache: Cache = None,
    limit: Annotated[int, declared("demo --limit", min=1)] = 200,
    pairs: Annotated[int, declared("demo --pairs", min=1)] = 100,
    seed: Seed = 0,
) -> None:
    """Six parts on bundled data: (1) direct vs permutation-consensus (PCF, K=7) on 200
    TruthfulQA items; (2) pairwise vs both-orders vs APOC on 100 JudgeBench pairs per split,
    both with the simulated, primacy-biased judge; (3) rescoring a real recorded judge
    (claude-3-haiku on JudgeBench) from its raw outputs; (4) how much SQuALITY's human raters
    agree (Krippendorff's alpha, coarse Jaccard); (5) zero-shot, aggregate and personalized
    rubric judges of SQuALITY summaries, evaluated against each rater (simulated judge); (6)
    ranking three made-up systems on 24 TruthfulQA questions against a baseline: win rates
    and Bradley-Terry scores with CIs (simulated judge, both orders)."""
    from ..agreement import run_agreement
    from ..compare import BenchConfig
    from ..datasets import BUNDLED_OUTPUTS, bundled_path
    from ..personalize import PersonalizeConfig, run_personalize
    from ..run import RunOptions
    from ..sim import Faults, SimConfig
    from .agreement import print_agreement
    from .personalize import print_personalize
    from ._progress import progress_forced
    from .score import print_outputs

    progress_forced()  # a bad JURYBOX_PROGRESS is one line before the demo starts
    console.print(BANNER)
    options = RunOptions(cache_path=cache or default_cache())
    sim = SimConfig(bias="primacy", seed=0, faults=Faults(**DEMO_FAULTS))
    console.rule("1. Listwise: TruthfulQA, best answer among up to 4")
    _bench(BenchConfig(dataset="truthfulqa", model="sim", protocols=("direct", "pcf"), k=7,
                       limit=limit, seed=seed, sim=sim), out / "truthfulqa", options,
           f"TruthfulQA, {limit} items, SIMULATED primacy-biased judge: direct (1 call) vs "
           f"PCF (K=7)")
    console.rule("2. Pairwise: JudgeBench, which of two responses is correct")
    _bench(BenchConfig(dataset="judgebench", model="sim",
                       protocols=("pairwise", "both-orders", "apoc"), limit=pairs, seed=seed,
                       sim=sim), out / "judgebench", options,
           f"JudgeBench, {pairs} pairs per split (gpt, claude), SIMULATED primacy-biased "
           f"judge: pairwise vs both orders vs APOC")
    console.rule("3. Rescoring a real recorded judge: no model calls")
    print_outputs(bundled_path(BUNDLED_OUTPUTS["arena-hard-haiku"]), out=out / "rescored",
                  show=5)
    console.rule("4. Rater agreement: SQuALITY human evaluation, 4 raters, 0-100 scores")
    print_agreement(run_agreement("squality", by=("dimension",), level="ordinal", seed=seed,
                                  out=out / "agreement"))
    console.rule("5. Rubric judges: zero-shot vs aggregate vs personalized, SQuALITY 'overall'")
    config = PersonalizeConfig(
        ratings="squality", items="squality", rubric="squality", shots=(0, 2, 5), seeds=3,
        raters=None, limit=30, dimensions=("overall",), seed=seed, group_field="passage_id",
        sim=SimConfig(bias="none", seed=0, faults=Faults(**DEMO_FAULTS)))
    result = with_progress(run_personalize, config, out / "personalize", options=options)
    print_personalize(result, "SQuALITY 'overall' (0-100), 4 raters x 30 summaries, "
                              "SIMULATED judge")
    exit_for_status(result, strict=False)
    console.rule("6. Ranking systems: three made-up systems on 24 TruthfulQA questions")
    _rank(out / "rank", options, sim, seed)
    console.print(REPORTS.format(out=out), highlight=False, markup=False)
    console.print(REAL)
