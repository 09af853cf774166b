"""``jurybox bench``: judge a dataset with several protocols and compare them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional


from ._declared import argument, declared
from ..errors import ConfigError, did_you_mean
from ._common import default_out, grouped_command, judged_by
from ._groups import (BatchFlags, CostOptions, EndpointOptions, ExecutorOptions, JudgeChoice,
                      OutputOptions, PromptOptions, ProtocolOptions, RunFlags, RunGroups,
                      SamplingOptions, SimOptions, finish_run, protocol_settings)
from ._selective import CascadeOpt, SelectiveFlags, selective_for
from ._protocol_options import K

if TYPE_CHECKING:
    from pathlib import Path

    from ..compare import BenchConfig
    from ..jury import Jury
    from ..run import RunOptions

#: Protocol names for --help (the registry itself is imported only when a command runs).
LISTWISE_PROTOCOLS = "direct,pcf"
PAIRWISE_PROTOCOLS = "apoc,both-orders,keyed,pairwise"


@grouped_command
def bench(
    dataset: Annotated[str, argument("bench dataset")],
    choice: JudgeChoice,
    protocols: Annotated[Optional[str], declared("bench --protocols", fill={
        "LISTWISE": LISTWISE_PROTOCOLS.replace(",", ", "),
        "PAIRWISE": PAIRWISE_PROTOCOLS.replace(",", ", ")})] = None,
    baseline: Annotated[Optional[str], declared("bench --baseline")] = None,
    k: K = 7,
    limit: Annotated[Optional[int], declared("bench --limit", min=1)] = None,
    subset: Annotated[Optional[str], declared("bench --subset")] = None,
    n_candidates: Annotated[int, declared("bench --n-candidates", min=2, max=26)] = 4,
    *, run: RunFlags, output: OutputOptions, endpoint: EndpointOptions,
    settings: ProtocolOptions, prompt: PromptOptions, sampling: SamplingOptions,
    sim: SimOptions, cost: CostOptions, batching: BatchFlags, execution: ExecutorOptions,
    selective: SelectiveFlags, cascade: CascadeOpt = None,
) -> None:
    """Judge a dataset with several protocols and compare them with paired statistics:
    listwise (best-of-N: direct vs permutation consensus) or pairwise (JudgeBench: one call,
    both orders, keyed judge, APOC)."""
    from ..compare import BenchConfig, prepare_bench, run_bench
    from ..datasets import BUNDLED
    from ._tables import print_bench_result

    url, pool = endpoint.split()  # one URL, or a pool
    sim_config = sim.config()
    names = protocol_names(protocols)
    subset = bench_subset(subset, dataset)
    model, panel = choice.model, choice.panel()
    chosen = selective_for(selective, panel)
    judging = protocol_settings(settings, prompt, sampling, sim=sim_config, base_url=url)
    config = BenchConfig(
        dataset=dataset, model=choice.config_model(panel), protocols=names,
        baseline=baseline, k=k, limit=limit, seed=run.seed,
        subset=None if subset == "all" else subset, n_candidates=n_candidates, **judging)
    groups = RunGroups(run, endpoint, execution, batching, cost)
    if cascade is not None:
        _bench_cascade(config, cascade, groups, selective, pool=pool, out=output.out,
                       model=model, jury=choice.jury, settings={"k": k, **judging})
        return
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
    finish_run(result, chosen)


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


#: The protocol a bench cascade judges with when --protocols names none: its confidence is the
#: share of permutations (orders) agreeing with the verdict.
CASCADE_PROTOCOLS = {"listwise": "pcf", "pairwise": "both-orders"}


def _bench_cascade(config: BenchConfig, cascade: str, groups: RunGroups, selective: object, *,
                   pool: tuple, out: Path | None, model: str | None, jury: object | None,
                   settings: dict) -> None:
    """``bench --cascade a,b --target-agreement P``: the dataset's selected items (its gold
    the labels) judged by a cascade of judges with one protocol.

    Raises:
        ConfigError: --protocols naming more than one protocol; as ``jurybox judge --cascade``.
    """
    from dataclasses import replace

    from ..compare import prepare_bench
    from ._cascade import run_cascade_command

    if config.protocols is not None and len(config.protocols) != 1:
        raise ConfigError(f"--cascade judges with one protocol, got --protocols "
                          f"{','.join(config.protocols)}: name one (default: pcf for "
                          f"listwise data, both-orders for pairwise)")

    def select(first: str) -> tuple[list, str]:  # the items, checked; --limit's sample
        prepared = prepare_bench(replace(config, model=first))  # the task's default protocols
        if config.protocols is None:  # one: the one whose confidence is the orders' agreement
            one = (CASCADE_PROTOCOLS[prepared.dataset.task],)
            prepared = prepare_bench(replace(config, model=first, protocols=one),
                                     dataset=prepared.dataset)
        return list(prepared.selection), (prepared.config.protocols or ("pcf",))[0]

    run_cascade_command(config.dataset, cascade, groups, selective, select=select, pool=pool,
                        out=out, model=model, jury=jury, settings=settings,
                        folder_key=f"{sorted(config.as_dict().items())}|{cascade}")


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
