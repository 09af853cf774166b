"""``jurybox bench``: judge a dataset with several protocols and compare them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..errors import ConfigError, did_you_mean
from ._common import default_out, exit_for_status, fail_cleanly, judged_by, print_warnings
from ._compose import option_groups
from ._groups import (BatchFlags, CostOptions, EndpointOptions, ExecutorOptions, OutputOptions,
                      PromptOptions, ProtocolOptions, RunFlags, RunGroups, SamplingOptions,
                      SimOptions, protocol_settings)
from ._jury import JuryOpt
from ._selective import SelectiveFlags, after_run, selective_for
from ._options import PANEL_DATA, PANEL_PROTOCOL, PANEL_START, Model, rule_option
from ._plan import cost_line
from ._protocol_options import K

if TYPE_CHECKING:
    from pathlib import Path

    from ..compare import BenchConfig
    from ..jury import Jury
    from ..run import RunOptions

#: Protocol names for --help (the registry itself is imported only when a command runs).
LISTWISE_PROTOCOLS = "direct,pcf"
PAIRWISE_PROTOCOLS = "apoc,both-orders,keyed,pairwise"


@fail_cleanly
@option_groups
def bench(
    dataset: Annotated[str, typer.Argument(
        help="Bundled name (truthfulqa, rewardbench2-sample, judgebench, judgebench-gpt, "
             "judgebench-claude) or a file: TruthfulQA CSV, RewardBench 2 .jsonl/.parquet, "
             "JudgeBench .jsonl, or listwise .jsonl (id, prompt, candidates, gold).")],
    model: Model = None,
    jury: JuryOpt = None,
    protocols: Annotated[Optional[str], rule_option("--protocols", PANEL_START, metavar="NAMES",
        help="The protocols to compare, a comma list: for listwise datasets "
        f"{', '.join(LISTWISE_PROTOCOLS.split(','))} (default direct,pcf); for pairwise "
        f"(JudgeBench) {', '.join(PAIRWISE_PROTOCOLS.split(','))} (default "
        "pairwise,both-orders,apoc).")] = None,
    baseline: Annotated[Optional[str], rule_option("--baseline", PANEL_PROTOCOL, metavar="NAME",
        help="Protocol every other one is compared with (paired "
        "sign test, bootstrap CI) (default: the first in --protocols).")] = None,
    k: K = 7,
    limit: Annotated[Optional[int], rule_option("--limit", PANEL_DATA, min=1, metavar="N",
        help="Judge a seeded sample of N items (per split for "
        "JudgeBench's gpt and claude splits) (default: all).")] = None,
    subset: Annotated[Optional[str], rule_option("--subset", PANEL_DATA, metavar="NAME",
        help="RewardBench 2 subset ('all' for every row; default "
        "Factuality). Only for RewardBench 2 data.")] = None,
    n_candidates: Annotated[int, rule_option("--n-candidates", PANEL_DATA, min=2, max=26,
        metavar="N", help="Candidates per TruthfulQA item.")] = 4,
    *, run: RunFlags, output: OutputOptions, endpoint: EndpointOptions,
    settings: ProtocolOptions, prompt: PromptOptions, sampling: SamplingOptions,
    sim: SimOptions, cost: CostOptions, batching: BatchFlags, execution: ExecutorOptions,
    selective: SelectiveFlags,
) -> None:
    """Judge a dataset with several protocols and compare them with paired statistics:
    listwise (best-of-N: direct vs permutation consensus) or pairwise (JudgeBench: one call,
    both orders, keyed judge, APOC)."""
    from ..compare import BenchConfig, prepare_bench, run_bench
    from ..datasets import BUNDLED
    from ._jury import jury_for
    from ._tables import print_bench_result

    url, pool = endpoint.split()  # one URL, or a pool
    sim_config = sim.config()
    names = protocol_names(protocols)
    subset = bench_subset(subset, dataset)
    panel = jury_for(jury, model)
    chosen = selective_for(selective, panel)
    config = BenchConfig(
        dataset=dataset, model="sim" if model is None or panel else model, protocols=names,
        baseline=baseline, k=k, limit=limit, seed=run.seed,
        subset=None if subset == "all" else subset, n_candidates=n_candidates,
        **protocol_settings(settings, prompt, sampling, sim=sim_config, base_url=url))
    groups = RunGroups(run, endpoint, execution, batching, cost)
    if panel is not None:
        _bench_jury(config, panel, output.out, dry_run=cost.dry_run,
                    options=groups.jury_options(pool))
        return
    judged = groups.judged(
        config, model=model, data=dataset, bundled=dataset in BUNDLED, prepare=prepare_bench,
        plan=lambda p: (p.selection, p.protocols, f"{p.dataset.name}, {p.selection.n_items} "
                        f"items, protocols "
                        f"{', '.join(config.protocols or p.config.protocols or ())}"),
        pool=pool, execute=run_bench,
        out=lambda c: output.out or default_out("bench", c.as_dict()))
    if judged is None:  # --dry-run: the plan is printed
        return
    result, model = judged
    print_bench_result(result, f"{result.summary.dataset}: {result.n_units} items, "
                               f"judge: {judged_by(result, model)}")
    cost_line(result)
    print_warnings(result)
    after_run(result.out, chosen)
    exit_for_status(result)


def protocol_names(protocols: str | None) -> tuple[str, ...] | None:
    """``--protocols``: the names of a comma list (None: the dataset's defaults).

    Raises:
        ConfigError: the list names no protocol, or an unknown one (with a did-you-mean).
    """
    from ..protocols import PROTOCOLS

    names = (None if protocols is None else
             tuple(p.strip() for p in protocols.split(",") if p.strip()))
    if names == ():
        raise ConfigError(f"--protocols names no protocol; choose from "
                          f"{', '.join(sorted(PROTOCOLS))}")
    for name in names or ():
        if name not in PROTOCOLS:
            raise ConfigError(f"unknown protocol {name!r}{did_you_mean(name, PROTOCOLS)} "
                              f"(choose from {', '.join(sorted(PROTOCOLS))})")
    return names


def bench_subset(subset: str | None, dataset: str) -> str:
    """``--subset`` (default Factuality), which only RewardBench 2 data takes.

    Raises:
        ConfigError: a subset for another format's data.
    """
    from ..datasets.registry import dataset_format

    if subset is not None and dataset_format(dataset) not in (None, "rewardbench2"):
        raise ConfigError(f"--subset filters RewardBench 2 rows, and {dataset} is "
                          f"{dataset_format(dataset)} data: leave --subset (and "
                          f"JURYBOX_SUBSET) unset")
    return subset or "Factuality"


def _bench_jury(config: BenchConfig, panel: Jury, out: Path | None, *, dry_run: bool,
                options: RunOptions) -> None:
    """``bench --jury``: every judge benches the protocols, then the jury decides."""
    from ..jury.run import default_jury_out
    from ._jury import dry_run_jury, run_jury_command

    run = options
    folder = out or default_jury_out("bench", config.as_dict(), panel)
    if dry_run:
        from ..jury import plan_jury

        first = plan_jury(config, panel, folder, options=run)[0].prepared
        dry_run_jury(config, panel, folder, run, f"{first.dataset.name}, "
                     f"{first.selection.n_items} items, protocols "
                     f"{', '.join(first.config.protocols or ())}")
        return
    run_jury_command(config, panel, folder, run)
