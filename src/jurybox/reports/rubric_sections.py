"""The personalize page: what ``jurybox personalize`` prints, from summary.json as written.

- Alignment with raters: the terminal's table (mean over raters [95% CI], coverage by rater,
  abstained/failed/blocked and gated/excluded units) and a dot plot of alpha; the notes the
  terminal prints under it (means over too few raters for a CI, example shortfalls).
- Personalized vs aggregate at each k: the paired sign test on absolute error (units where
  personalized is closer to the rater, further, the same) and the change in mean absolute
  error with its 95% paired bootstrap CI, drawn as a dot plot.
- Reasoning similarity vs rater agreement: Spearman's rho per judge and dimension with its CI,
  or why it is undefined.

Every sentence and cell comes from :mod:`.notes`, the functions the terminal prints with.
"""

from __future__ import annotations

import math
from typing import Any

from markupsafe import Markup

from ..limits import MIN_UNITS_FOR_CI
from .charts import dot_plot
from .notes import (ALIGNMENT_CAPTION, error_change, few_raters_note, mean_ci_cell, number,
                    shortfall_note, similarity_text)
from .sections import Chart, Table

__all__ = ["personalize_sections"]


def personalize_sections(summary: dict[str, Any]) -> list[Chart]:
    """Alignment, personalized vs aggregate, and reasoning similarity (sections without
    data left out)."""
    return [c for c in (_alignment(summary), _versus_aggregate(summary),
                        _reasoning(summary)) if c is not None]


def _mean_ci(m: Any) -> tuple[float, float, float, int]:
    """(mean, low, high, n) of a summary.json mean over raters (NaN where null)."""
    m = m if isinstance(m, dict) else {}
    n = m.get("n")
    return number(m.get("mean")), *_pair(m.get("ci")), n if isinstance(n, int) else 0


def _cell(m: Any, pct: bool = False) -> str:
    return mean_ci_cell(*_mean_ci(m), pct=pct)


def _finite(v: float) -> float | None:
    return None if math.isnan(v) else v


def _dot(label: str, value: float, low: float, high: float
         ) -> tuple[str, float | None, float | None, float | None]:
    return label, _finite(value), _finite(low), _finite(high)


def _pair(value: Any) -> tuple[float, float]:
    """A JSON [low, high] as two floats (NaN where null or absent)."""
    if isinstance(value, list) and len(value) == 2:
        return number(value[0]), number(value[1])
    return math.nan, math.nan


def _alignment(summary: dict[str, Any]) -> Chart | None:
    rows = [r for r in summary.get("alignment") or () if isinstance(r, dict)]
    if not rows:
        return None
    table = Table(["condition", "dimension", "raters", "units", "cover %", "alpha (n)",
                   "exact %", "MAE", "abst/fail/block", "gated/excl"],
                  [[str(r.get("condition")), str(r.get("dimension")), str(r.get("n_raters")),
                    str(r.get("units")), _cell(r.get("coverage_by_rater"), pct=True),
                    f"{_cell(r.get('alpha'))} ({_mean_ci(r.get('alpha'))[3]})",
                    _cell(r.get("exact"), pct=True), _cell(r.get("mae")),
                    f"{r.get('abstain', 0)}/{r.get('failed', 0)}/{r.get('blocked', 0)}",
                    f"{r.get('gated', 0)}/{r.get('excluded', 0)}"] for r in rows],
                  ALIGNMENT_CAPTION)
    counts = [_mean_ci(r.get(k))[3] for r in rows
              for k in ("alpha", "exact", "mae", "coverage_by_rater")]
    shortfall = summary.get("shortfall_units")
    notes = [n for n in (few_raters_note(counts, MIN_UNITS_FOR_CI),
                         shortfall_note(shortfall if isinstance(shortfall, int) else 0)) if n]
    dots = [_dot(f"{r.get('condition')} · {r.get('dimension')}", *_mean_ci(r.get("alpha"))[:3])
            for r in rows]
    svg = dot_plot(dots, title="alignment with raters: alpha per condition and dimension")
    return Chart("alignment with raters", svg, " ".join(n[0].upper() + n[1:] + "." for n in notes),
                 [table])


def _versus_aggregate(summary: dict[str, Any]) -> Chart | None:
    shots = [s for s in summary.get("personalized_vs_aggregate") or () if isinstance(s, dict)]
    if not shots:
        return None
    rows, dots, ends = [], [], [0.0]
    for s in shots:
        diff = number(s.get("difference"))
        low, high = _pair(s.get("confidence_interval"))
        p = number(s.get("p_value"))
        rows.append([str(s.get("k")), str(s.get("n")), str(s.get("improvements")),
                     str(s.get("regressions")), str(s.get("ties")),
                     "—" if math.isnan(p) else f"{p:.3g}",
                     "—" if math.isnan(diff) else error_change(diff, low, high)])
        dots.append(_dot(f"k = {s.get('k')}", diff, low, high))
        ends += [abs(v) for v in (diff, low, high) if not math.isnan(v)]
    span = max(ends) * 1.1 or 1.0
    svg = dot_plot(dots, title="mean |error| of aggregate minus personalized, per k",
                   lo=-span, hi=span, fmt="{:+.2f}")
    table = Table(["k", "units", "closer", "further", "same", "sign p",
                   "mean |error|, personalized vs aggregate"], rows,
                  "Per (rater, item, dimension) unit both judges scored: closer / further / "
                  "same: personalized's absolute error against the rater's label below / above "
                  "/ equal to aggregate's; sign p: exact two-sided sign test on closer vs "
                  "further. Right of 0 in the plot: personalized is closer to the raters (95% "
                  "paired bootstrap CI).")
    return Chart("personalized vs aggregate", svg, "", [table])


def _reasoning(summary: dict[str, Any]) -> Chart | None:
    rows = [r for r in summary.get("reasoning_similarity") or () if isinstance(r, dict)]
    if not rows:
        return None
    cells, dots = [], []
    for r in rows:
        rho, (low, high) = number(r.get("rho")), _pair(r.get("ci"))
        reason = r.get("reason") if isinstance(r.get("reason"), str) else None
        cells.append([str(r.get("condition")), str(r.get("dimension")), str(r.get("n_pairs")),
                      similarity_text(rho, low, high, reason)])
        dots.append(_dot(f"{r.get('condition')} · {r.get('dimension')}", rho, low, high))
    defined = any(d[1] is not None for d in dots)
    svg = dot_plot(dots, title="reasoning similarity vs rater agreement: Spearman's rho") \
        if defined else Markup("")
    table = Table(["judge", "dimension", "rater pairs", "Spearman's rho [95% CI]"], cells,
                  "Per pair of target raters with co-rated items: their agreement (1 - mean "
                  "|label difference| / scale span) against the mean TF-IDF cosine similarity "
                  "of the judge's reasonings for each of them on the same items; Spearman's "
                  "rho over the pairs with a 95% bootstrap CI over pairs (arXiv 2604.22517's "
                  "third finding). rho > 0: the judge reasons more alike for raters who agree.")
    return Chart("reasoning similarity vs rater agreement", svg, "", [table])
