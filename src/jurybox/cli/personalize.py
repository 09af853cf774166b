"""``jurybox personalize``: zero-shot, aggregate and personalized rubric judges vs each rater."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

from rich.table import Table

from ._declared import argument, declared
from ..errors import ConfigError
from ..limits import MAX_SEEDS, MIN_UNITS_FOR_CI
from ..reports.notes import (ALIGNMENT_CAPTION, error_change, few_raters_note, mean_ci_cell,
                             shortfall_note, similarity_text, versus_aggregate)
from ..terminal import data, safe_text
from ._common import console, default_out, grouped_command, judged_by
from ._fit import print_table
from ._tables import print_pool
from ._groups import (BatchFlags, CostOptions, EndpointOptions, ExecutorOptions, OutputOptions,
                      RunFlags, RunGroups, SimSeedOption, finish_run)
from ._options import Model

if TYPE_CHECKING:
    from ..personalize import MeanCI, PersonalizeResult, PersonalizeSummary
    from ..protocols import RubricAnswerFormat

#: Bundled names for --help (the registry is imported when the command runs).
BUNDLED_SETS = "squality"
BUNDLED_RUBRIC_NAMES = "pbig, squality, offensiveness"


def _cell(m: MeanCI, pct: bool = False) -> str:
    lo, hi = m.ci
    return mean_ci_cell(math.nan if m.mean is None else m.mean,
                        math.nan if lo is None else lo, math.nan if hi is None else hi, m.n,
                        pct=pct)


def alignment_table(summary: PersonalizeSummary, title: str) -> Table:
    """One row per (condition, dimension): n raters, units, coverage, alpha, exact, MAE."""
    table = Table(title=data(title), title_justify="left", caption_justify="left",
                  caption=ALIGNMENT_CAPTION)
    for col in ("condition", "dimension", "raters", "units", "cover %", "alpha (n)", "exact %",
                "MAE", "abst/fail/block", "gated/excl"):
        table.add_column(col, justify="left" if col in ("condition", "dimension") else "right",
                         overflow="fold")
    for row in summary.alignment:
        table.add_row(data(row.condition), data(row.dimension), str(row.n_raters),
                      str(row.units),
                      _cell(row.coverage_by_rater, pct=True),
                      f"{_cell(row.alpha)} ({row.alpha.n})", _cell(row.exact, pct=True),
                      _cell(row.mae), f"{row.abstain}/{row.failed}/{row.blocked}",
                      f"{row.gated}/{row.excluded}")
    return table


def print_personalize(result: PersonalizeResult, title: str) -> None:
    """Alignment table, personalized vs aggregate, reasoning similarity, totals."""
    s = result.summary
    print_table(alignment_table(s, title), key_columns=2)
    few = few_raters_note([m.n for row in s.alignment for m in (
        row.alpha, row.exact, row.mae, row.coverage_by_rater)], MIN_UNITS_FOR_CI)
    if few:
        console.print(few, highlight=False)
    for shot in s.personalized_vs_aggregate:
        p = shot.comparison
        lo, hi = p.confidence_interval
        console.print(versus_aggregate(shot.k, p.n, p.improvements, p.regressions, p.ties,
                                       p.p_value, p.difference, lo, hi))
    if shortfall := shortfall_note(s.shortfall_units):
        console.print(shortfall)
    for r in s.reasoning_similarity:
        console.print(data(f"reasoning similarity vs rater agreement ({r.condition}, "
                           f"{r.dimension}, {r.n_pairs} rater pairs): "
                           f"{similarity_text(r.rho, *r.ci, r.reason)}"))
    t = result.totals
    print_pool(result.out)
    again = (f"  cached failures asked again: {t.cached_failures_asked}"
             if t.cached_failures_asked else "")
    console.print(safe_text(f"model calls this run: {t.model_calls}  cache hits: "
                            f"{t.cache_hits}{again}  failed: {sum(t.failures.values())}  run "
                            f"directory: {result.out}"), markup=False)


@grouped_command
def personalize(
    ratings: Annotated[str, argument("personalize ratings",
                                     fill={"BUNDLED_SETS": BUNDLED_SETS})],
    items: Annotated[Optional[str], declared("personalize --items")] = None,
    rubric: Annotated[str, declared("personalize --rubric",
                                    fill={"BUNDLED_RUBRIC_NAMES": BUNDLED_RUBRIC_NAMES})] = "",
    model: Model = None,
    judges: Annotated[str, declared("personalize --judges", "--configs", show_default=False)
                      ] = "zero-shot,aggregate,personalized",
    shots: Annotated[str, declared("personalize --shots")] = "0,1,2,5,10",
    seeds: Annotated[int, declared("personalize --seeds", min=1, max=MAX_SEEDS)] = 3,
    threshold: Annotated[float, declared("personalize --threshold", min=0, max=100)] = 80.0,
    raters: Annotated[Optional[str], declared("personalize --raters")] = None,
    limit: Annotated[Optional[int], declared("personalize --limit", min=1)] = None,
    dimensions: Annotated[Optional[str], declared("personalize --dimensions")] = None,
    group_field: Annotated[Optional[str], declared("personalize --group-field")] = None,
    *, run: RunFlags, output: OutputOptions, endpoint: EndpointOptions,
    answer_format: Annotated[str, declared("personalize --answer-format")] = "json",
    sim: SimSeedOption, cost: CostOptions, batching: BatchFlags, execution: ExecutorOptions,
) -> None:
    """Rubric judges conditioned on nobody (zero-shot), on other raters (aggregate) or on the
    target rater's own ratings (personalized), evaluated against each rater: alpha, exact
    agreement, MAE and coverage with CIs, a paired test of personalized vs aggregate, and how
    judge reasoning tracks rater agreement."""
    from ..datasets import BUNDLED_ITEMS, BUNDLED_RATINGS, BUNDLED_RUBRICS, resolve_bundled
    from ..personalize import PersonalizeConfig, prepare_personalize, run_personalize
    from ..protocols import RUBRIC_ANSWER_FORMATS
    from ..sim import SimConfig

    url, pool = endpoint.split()  # one URL, or a pool
    if not rubric:
        raise ConfigError(f"--rubric is required: a YAML file or one of "
                          f"{', '.join(BUNDLED_RUBRICS)}")
    if answer_format not in RUBRIC_ANSWER_FORMATS:
        raise ConfigError(f"--answer-format must be one of {', '.join(RUBRIC_ANSWER_FORMATS)}, "
                          f"got {answer_format!r}")
    if items is None:
        resolve_bundled(ratings, BUNDLED_RATINGS)  # a mistyped bundled name: did you mean?
        if ratings not in BUNDLED_ITEMS:
            raise ConfigError("--items is required: a CSV or JSONL file of item texts")
        items = ratings
    try:
        shot_counts = tuple(int(k) for k in shots.split(",") if k.strip())
    except ValueError:
        raise ConfigError(f"--shots takes integers, e.g. 0,2,5; got {shots!r}") from None
    rater_sel: tuple[str, ...] | int | None = None
    if raters is not None:  # "" and "," name no rater: the library refuses them
        count = raters.strip()  # a count past the raters' number means all: 19 digits do
        rater_sel = int(count[:19]) if count.isascii() and count.isdigit() else tuple(
            r.strip() for r in raters.split(",") if r.strip())
    config = PersonalizeConfig(
        ratings=ratings, items=items, rubric=rubric, model=model or "sim",
        judges=tuple(c.strip() for c in judges.split(",") if c.strip()), shots=shot_counts,
        seeds=seeds, threshold=threshold, raters=rater_sel, limit=limit,
        dimensions=None if dimensions is None else tuple(
            d.strip() for d in dimensions.split(",") if d.strip()),
        seed=run.seed, group_field=group_field or ("passage_id" if ratings == "squality" else None),
        base_url=url, sim=SimConfig(bias="none", seed=sim.sim_seed),
        answer_format=cast("RubricAnswerFormat", answer_format))
    judged = RunGroups(run, endpoint, execution, batching, cost).judged(
        config, model=model, data=ratings,
        bundled=ratings in BUNDLED_RATINGS and items in BUNDLED_ITEMS,
        prepare=prepare_personalize,
        plan=lambda p: (p.units, p.judges, f"{Path(config.ratings).name}, {len(p.units)} (rater, "
                        f"item) units, {len(p.judges)} judges"),
        pool=pool, execute=run_personalize,
        out=lambda c: output.out or default_out("personalize",
                                                {**c.as_dict(), "dataset": c.ratings}))
    if judged is None:  # --dry-run: the plan is printed
        return
    result, model = judged
    print_personalize(result, f"{Path(config.ratings).name}: {result.summary.n_units} "
                              f"(rater, item) units, judge: {judged_by(result, model)}")
    finish_run(result)


__all__ = ["personalize", "alignment_table", "error_change", "print_personalize"]
