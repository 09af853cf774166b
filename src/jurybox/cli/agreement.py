"""``jurybox agreement``: how much raters agree, per dimension (and domain)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

from rich.table import Table

from ._declared import argument, declared
from ..errors import ConfigError
from ..terminal import data, safe_text
from ._common import console, fail_cleanly
from ._fit import print_table
from ._options import Seed

if TYPE_CHECKING:
    from ..agreement import AgreementReport, GroupAgreement


def _num(x: float, digits: int = 3) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def agreement_table(results: list[GroupAgreement], title: str) -> Table:
    """Group, alpha [CI], units, raters, values, mean Jaccard, pairs used, note."""
    table = Table(title=data(title), title_justify="left", caption_justify="left", caption=(
        "alpha: Krippendorff's alpha over all raters, 95% bootstrap CI over units. Jaccard: "
        "overlap of the items each rater scores above their own median, mean over rater pairs "
        "with enough co-rated items (pairs: defined / eligible)."))
    for col in ("group", "alpha [95% CI]", "units", "raters", "values", "mean Jaccard",
                "pairs", "note"):
        table.add_column(col, justify="left" if col in ("group", "note") else "right",
                         overflow="fold")
    for g in results:
        a, c = g.alpha, g.coarse
        lo, hi = a.confidence_interval
        ci = "" if math.isnan(lo) else f" [{lo:.3f}, {hi:.3f}]"
        table.add_row(data(g.label), _num(a.alpha) + ci, str(a.n_units), str(a.n_raters),
                      str(a.n_pairable_values), _num(c.mean),
                      f"{c.n_pairs_used}/{c.n_pairs_eligible}",
                      data(a.reason or g.note or c.reason or ""))
    return table


def print_agreement(report: AgreementReport) -> None:
    """The table and where the files went."""
    codes = report.exclusion_codes
    print_table(agreement_table(report.results, f"{report.path.name}: {report.n_ratings} "
                                f"ratings, {report.n_raters} raters, level {report.level}"
                                + (f", {report.excluded} excluded codes" if codes else "")))
    console.print(safe_text("written: " + ", ".join(str(p) for p in report.written)),
                  markup=False)


@fail_cleanly
def agreement(
    ratings: Annotated[str, argument("agreement ratings")],
    by: Annotated[str, declared("agreement --by")] = "dimension",
    level: Annotated[str, declared("agreement --level")
                     ] = "ordinal",
    min_common: Annotated[int, declared("agreement --min-common", min=1)] = 10,
    resamples: Annotated[int, declared("agreement --resamples", min=0)] = 1000,
    seed: Seed = 0,
    exclude_codes: Annotated[str, declared("agreement --exclude-codes")] = "",
    out: Annotated[Optional[Path], declared("agreement --out")
                               ] = None,
    no_plots: Annotated[bool, declared("agreement --no-plots")] = False,
) -> None:
    """How much raters agree: Krippendorff's alpha with bootstrap CIs (fine agreement) and
    Jaccard of above-median item sets (coarse agreement), per dimension and domain, with rater
    profiles and pairwise alpha in summary.json and plots as PNG."""
    from ..agreement import run_agreement

    entries = exclude_codes.split(",") if exclude_codes.strip() else []
    if any(not c.strip() for c in entries):
        raise ConfigError(f"--exclude-codes has an empty entry in {exclude_codes!r}; give "
                          f"numbers separated by commas, e.g. 0 or 0,99")
    try:
        codes = [float(c) for c in entries]
    except ValueError:
        raise ConfigError(f"--exclude-codes takes finite numbers, e.g. 0 or 0,99; got "
                          f"{exclude_codes!r}") from None
    print_agreement(run_agreement(
        ratings, by=[f.strip() for f in by.split(",") if f.strip()], level=level,
        min_common=min_common, resamples=resamples, seed=seed, exclusion_codes=codes, out=out,
        plots=not no_plots))


__all__ = ["agreement", "agreement_table", "print_agreement"]
