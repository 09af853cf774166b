"""``jurybox agreement``: how much raters agree, per dimension (and domain)."""

from __future__ import annotations

import math
import re
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from rich.table import Table

from ..agreement import GroupAgreement, analyze, plot_alpha, plot_jaccard
from ..datasets import BUNDLED_RATINGS, bundled_path, load_ratings
from ..errors import ConfigError, DataError
from ..reports import write_json_atomic
from ._common import console, fail_cleanly

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _num(x: float, digits: int = 3) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def agreement_table(results: list[GroupAgreement], title: str) -> Table:
    """Group, alpha [CI], units, raters, values, mean Jaccard, pairs used, note."""
    table = Table(title=title, title_justify="left", caption_justify="left", caption=(
        "alpha: Krippendorff's alpha over all raters, 95% bootstrap CI over units. Jaccard: "
        "overlap of the items each rater scores above their own median, mean over rater pairs "
        "with enough co-rated items (pairs: defined / eligible)."))
    for col in ("group", "alpha [95% CI]", "units", "raters", "values", "mean Jaccard",
                "pairs", "note"):
        table.add_column(col, justify="left" if col in ("group", "note") else "right")
    for g in results:
        a, c = g.alpha, g.coarse
        lo, hi = a.confidence_interval
        ci = "" if math.isnan(lo) else f" [{lo:.3f}, {hi:.3f}]"
        table.add_row(g.label, _num(a.alpha) + ci, str(a.n_units), str(a.n_raters),
                      str(a.n_pairable_values), _num(c.mean),
                      f"{c.n_pairs_used}/{c.n_pairs_eligible}",
                      a.reason or g.note or c.reason or "")
    return table


def _summary(results: list[GroupAgreement], **meta) -> dict:
    groups = []
    for g in results:
        groups.append({
            "key": g.key, "n_ratings": g.n_ratings, "alpha": asdict(g.alpha),
            "coarse": {"mean": g.coarse.mean, "n_pairs_used": g.coarse.n_pairs_used,
                       "n_pairs_eligible": g.coarse.n_pairs_eligible,
                       "min_common": g.coarse.min_common, "reason": g.coarse.reason,
                       "pairs": [asdict(p) for p in g.coarse.pairs]},
            "profiles": [{**asdict(p), "distribution": {str(k): v for k, v in
                                                        p.distribution.items()}}
                         for p in g.profiles],
            # pairs, not dense matrices: thousands of raters make n^2 mostly-empty cells
            "pairwise_alpha": {"skipped": g.pairwise.skipped, "pairs": [
                {"rater_a": g.pairwise.raters[i], "rater_b": g.pairwise.raters[j],
                 "alpha": float(g.pairwise.matrix[i, j]),
                 "n_common": int(g.pairwise.n_common[i, j])}
                for i, j in zip(*np.nonzero(np.triu(g.pairwise.n_common, 1)))]}})
    return {**meta, "groups": groups}


def run_agreement(ratings: str, *, by: str = "dimension", level: str = "ordinal",
                  min_common: int = 10, resamples: int = 1000, seed: int = 0,
                  exclude_codes: str = "", out: Path | None = None, plots: bool = True
                  ) -> list[GroupAgreement]:
    """Load, analyze, print the table, write summary.json and plots; returns the results."""
    if level not in LEVELS:
        raise ConfigError(f"--level must be one of {LEVELS}, got {level!r}")
    try:
        codes = [float(c) for c in exclude_codes.split(",") if c.strip()]
        if not all(math.isfinite(c) for c in codes):
            raise ValueError
    except ValueError:
        raise ConfigError(f"--exclude-codes takes finite numbers, e.g. 0 or 0,99; got "
                          f"{exclude_codes!r}") from None
    out = out or Path("runs") / f"agreement-{Path(ratings).stem}"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {str(out)!r} is a file, not a folder")
    path = bundled_path(BUNDLED_RATINGS[ratings]) if ratings in BUNDLED_RATINGS else Path(ratings)
    table = load_ratings(path, numeric=level != "nominal", exclusion_codes=codes)
    fields = tuple(f.strip() for f in by.split(",") if f.strip())
    try:
        results = analyze(table, by=fields, level=level, min_common=min_common,  # type: ignore
                          n_resamples=resamples, seed=seed)
    except ValueError as exc:  # ratings alpha cannot take: say which file
        raise DataError(path, str(exc)) from None
    console.print(agreement_table(results, f"{path.name}: {len(table)} ratings, "
                                           f"{len(table.raters)} raters, level {level}"
                                  + (f", {table.excluded} excluded codes" if codes else "")))
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / "summary.json", _summary(
        results, ratings=str(path), by=list(fields), level=level, min_common=min_common,
        n_resamples=resamples, seed=seed, exclusion_codes=codes, excluded=table.excluded))
    written = [out / "summary.json"]
    if plots:
        written.append(plot_alpha(results, out / "alpha.png", ci=resamples > 0))
        for k, g in enumerate(results, start=1):
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", "_".join(g.key.values()))[:60]
            if (png := plot_jaccard(g, out / f"jaccard_{k:02d}_{slug}.png")) is not None:
                written.append(png)
    console.print("written: " + ", ".join(str(p) for p in written))
    return results


@fail_cleanly
def agreement(
    ratings: Annotated[str, typer.Argument(
        help="Long-format ratings (CSV, JSONL or parquet with item_id, rater_id, dimension, "
             f"score, optional domain, group), or a bundled set: {', '.join(BUNDLED_RATINGS)}.")],
    by: Annotated[str, typer.Option(envvar="JURYBOX_BY", help="Group by these fields: "
                                    "dimension, domain, group (comma list).")] = "dimension",
    level: Annotated[str, typer.Option(envvar="JURYBOX_LEVEL", help="Level of measurement "
                                       "for alpha: nominal, ordinal, interval or ratio.")
                     ] = "ordinal",
    min_common: Annotated[int, typer.Option(envvar="JURYBOX_MIN_COMMON", min=1, help="Co-rated "
                                            "items a rater pair needs for Jaccard and pairwise "
                                            "alpha.")] = 10,
    resamples: Annotated[int, typer.Option(envvar="JURYBOX_RESAMPLES", min=0, help="Bootstrap "
                                           "resamples for alpha's CI (0: no CI).")] = 1000,
    seed: Annotated[int, typer.Option(envvar="JURYBOX_SEED", help="Bootstrap seed.")] = 0,
    exclude_codes: Annotated[str, typer.Option(
        envvar="JURYBOX_EXCLUDE_CODES", help="Scores that mean 'not applicable' (e.g. 0), "
        "treated as missing; comma list (default: none).")] = "",
    out: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_OUT", help="Folder for summary.json and PNG plots (default: "
        "runs/agreement-<file stem>).")] = None,
    no_plots: Annotated[bool, typer.Option("--no-plots", envvar="JURYBOX_NO_PLOTS",
                                           help="Skip the PNG plots.")] = False,
) -> None:
    """How much raters agree: Krippendorff's alpha with bootstrap CIs (fine agreement) and
    Jaccard of above-median item sets (coarse agreement), per dimension and domain, with rater
    profiles and pairwise alpha in summary.json and plots as PNG."""
    run_agreement(ratings, by=by, level=level, min_common=min_common, resamples=resamples,
                  seed=seed, exclude_codes=exclude_codes, out=out, plots=not no_plots)


__all__ = ["agreement", "agreement_table", "run_agreement"]
