"""``jurybox personalize``: zero-shot, aggregate and personalized rubric judges vs each rater."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from ..datasets import BUNDLED_ITEMS, BUNDLED_RATINGS, BUNDLED_RUBRICS, bundled_path
from ..errors import ConfigError
from ..personalize import PersonalizeConfig, PersonalizeResult, run_personalize
from ..runner import RetryPolicy
from ..sim import SimConfig
from ._common import BenchProgress, console, default_cache, default_out, fail_cleanly


def _resolve(value: str, bundled: dict[str, str]) -> str:
    return str(bundled_path(bundled[value])) if value in bundled else value


def _cell(m: dict, pct: bool = False) -> str:
    if m["mean"] is None or math.isnan(m["mean"]):
        return f"— (n {m['n']})"
    scale, fmt = (100, ".1f") if pct else (1, ".2f")
    lo, hi = m["ci"]
    ci = "" if lo is None or math.isnan(lo) else f" [{scale * lo:{fmt}}, {scale * hi:{fmt}}]"
    return f"{scale * m['mean']:{fmt}}{ci}"


def alignment_table(summary: dict, title: str) -> Table:
    """One row per (condition, dimension): n raters, units, coverage, alpha, exact, MAE."""
    table = Table(title=title, title_justify="left", caption_justify="left", caption=(
        "Each metric per target rater, then the mean over raters [95% bootstrap CI over "
        "raters]. "
        "alpha: Krippendorff's alpha between the judge's scores and the rater's labels ((n): "
        "raters where it is defined). cover: scored / asked units; abstained (all seeds below "
        "the confidence threshold), failed and blocked (a prerequisite without a usable score) "
        "units count against it; gated units and predicted exclusion codes are missing by "
        "design."))
    for col in ("condition", "dimension", "raters", "units", "cover %", "alpha (n)", "exact %",
                "MAE", "abst/fail/block", "gated/excl"):
        table.add_column(col, justify="left" if col in ("condition", "dimension") else "right",
                         no_wrap=True)
    for row in summary["alignment"]:
        table.add_row(row["condition"], row["dimension"], str(row["n_raters"]),
                      str(row["units"]), _cell(row["coverage_by_rater"], pct=True),
                      f"{_cell(row['alpha'])} ({row['alpha']['n']})",
                      _cell(row["exact"], pct=True), _cell(row["mae"]),
                      f"{row['abstain']}/{row['failed']}/{row['blocked']}",
                      f"{row['gated']}/{row['excluded']}")
    return table


def print_personalize(result: PersonalizeResult, title: str) -> None:
    """Alignment table, personalized vs aggregate, reasoning similarity, totals."""
    s = result.summary
    console.print(alignment_table(s, title))
    for p in s["personalized_vs_aggregate"]:
        lo, hi = p["confidence_interval"]
        console.print(f"personalized vs aggregate, k={p['k']}: {p['n']} units, closer "
                      f"{p['improvements']}, further {p['regressions']}, same {p['ties']}; "
                      f"sign p {p['p_value']:.3g}; mean |error| lower by {p['difference']:+.3f}"
                      f" [{lo:+.3f}, {hi:+.3f}]")
    if s.get("shortfall_units"):
        console.print(f"{s['shortfall_units']} (unit, dimension) judgments had fewer eligible "
                      f"examples than k: all were used (see items.jsonl 'shortfall')")
    for r in s["reasoning_similarity"]:
        text = (f"rho {r['rho']:+.3f} [{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]"
                if r["reason"] is None else
                "NaN: " + r["reason"] if math.isnan(r["rho"]) else
                f"rho {r['rho']:+.3f} (no CI: {r['reason']})")
        console.print(f"reasoning similarity vs rater agreement ({r['condition']}, "
                      f"{r['dimension']}, {r['n_pairs']} rater pairs): {text}")
    t = result.totals
    console.print(f"model calls this run: {t.get('model_calls', 0)}  cache hits: "
                  f"{t.get('cache_hits', 0)}  failed: {sum(t.get('failures', {}).values())}  "
                  f"run directory: {result.out}")


@fail_cleanly
def personalize(
    ratings: Annotated[str, typer.Argument(help="Long-format ratings (item_id, rater_id, "
                                           "dimension, score, ...) or a bundled set: "
                                           f"{', '.join(BUNDLED_RATINGS)}.")],
    items: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_ITEMS", help="Item texts: CSV/JSONL with item_id and text (or "
        "response) (default: the bundled items of a bundled ratings set).")] = None,
    rubric: Annotated[str, typer.Option(envvar="JURYBOX_RUBRIC", help="Rubric YAML, or a "
                                        f"bundled one: {', '.join(BUNDLED_RUBRICS)}.")] = "",
    model: Annotated[str, typer.Option(envvar="JURYBOX_MODEL", help="provider/model, or sim "
                                       "(the simulated judge).")] = "sim",
    configs: Annotated[str, typer.Option(envvar="JURYBOX_CONFIGS", help="Comma list of "
                                         "zero-shot, aggregate, personalized.")
                       ] = "zero-shot,aggregate,personalized",
    shots: Annotated[str, typer.Option(envvar="JURYBOX_SHOTS", help="Few-shot counts, comma "
                                       "list.")] = "0,1,2,5,10",
    seeds: Annotated[int, typer.Option(envvar="JURYBOX_SEEDS", min=1, help="Seeds per "
                                       "prediction (example sample and decoding seed).")] = 3,
    threshold: Annotated[float, typer.Option(envvar="JURYBOX_THRESHOLD", min=0, max=100,
                                             help="Drop predictions with confidence below "
                                             "this (0-100).")] = 80.0,
    raters: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_RATERS", help="Target raters: comma list of ids, or a number N for a "
        "seeded sample of N (default: all).")] = None,
    limit: Annotated[Optional[int], typer.Option(envvar="JURYBOX_LIMIT", min=1, help="Items "
                                                 "per rater (default: all they rated).")
                     ] = None,
    dimensions: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_DIMENSIONS", help="Dimensions to judge, comma list (default: the "
        "rubric's dimensions found in the ratings).")] = None,
    group_field: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_GROUP_FIELD", help="Items-file field grouping items for leave-one-out "
        "example selection (default: group, when present; passage_id for squality).")] = None,
    seed: Annotated[int, typer.Option(envvar="JURYBOX_SEED", help="Run seed.")] = 0,
    out: Annotated[Optional[Path], typer.Option(envvar="JURYBOX_OUT", help="Run directory "
                                                "(default: runs/personalize-<...>).")] = None,
    cache: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_CACHE", help="SQLite response cache (default "
        "~/.cache/jurybox/cache.sqlite).")] = None,
    concurrency: Annotated[int, typer.Option(envvar="JURYBOX_CONCURRENCY", min=1,
                                             help="Model calls in flight at once.")] = 16,
    base_url: Annotated[Optional[str], typer.Option(envvar="JURYBOX_BASE_URL",
                                                    help="Endpoint base URL.")] = None,
) -> None:
    """Rubric judges conditioned on nobody (zero-shot), on other raters (aggregate) or on the
    target rater's own ratings (personalized), evaluated against each rater: alpha, exact
    agreement, MAE and coverage with CIs, a paired test of personalized vs aggregate, and how
    judge reasoning tracks rater agreement."""
    if not rubric:
        raise ConfigError(f"--rubric is required: a YAML file or one of "
                          f"{', '.join(BUNDLED_RUBRICS)}")
    if items is None:
        if ratings not in BUNDLED_ITEMS:
            raise ConfigError("--items is required: a CSV or JSONL file of item texts")
        items = ratings
    try:
        shot_counts = tuple(int(k) for k in shots.split(",") if k.strip())
    except ValueError:
        raise ConfigError(f"--shots takes integers, e.g. 0,2,5; got {shots!r}") from None
    rater_sel: tuple[str, ...] | int | None = None
    if raters:
        rater_sel = int(raters) if raters.strip().isdigit() else tuple(
            r.strip() for r in raters.split(",") if r.strip())
    config = PersonalizeConfig(
        ratings=_resolve(ratings, BUNDLED_RATINGS), items=_resolve(items, BUNDLED_ITEMS),
        rubric=_resolve(rubric, BUNDLED_RUBRICS), model=model,
        configs=tuple(c.strip() for c in configs.split(",") if c.strip()), shots=shot_counts,
        seeds=seeds, threshold=threshold, raters=rater_sel, limit=limit,
        dimensions=tuple(d.strip() for d in dimensions.split(",")) if dimensions else None,
        seed=seed, group_field=group_field or ("passage_id" if ratings == "squality" else None),
        base_url=base_url, sim=SimConfig(bias="none", seed=seed))
    out = out or default_out("personalize", {**config.as_dict(), "dataset": config.ratings})
    with BenchProgress() as progress:
        result = run_personalize(config, out, cache_path=cache or default_cache(),
                                 concurrency=concurrency, retry=RetryPolicy(),
                                 on_call=progress.on_call, on_item=progress.on_item,
                                 on_start=progress.on_start)
    judge = f"SIMULATED ({model})" if result.simulated else model
    print_personalize(result, f"{Path(config.ratings).name}: {result.summary['n_units']} "
                              f"(rater, item) units, judge: {judge}")


__all__ = ["personalize", "alignment_table", "print_personalize"]
