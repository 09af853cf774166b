"""Sentences a run's terminal output and its report.html both say, from the same recorded
values (run.json, summary.json): one wording in one place, so the page says what the
terminal said. A light module (no statistics, no templates): the command line imports it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ALIGNMENT_CAPTION", "comparison_notes", "error_change", "few_raters_note",
           "jury_partial_note", "jury_spent_note", "mean_ci_cell", "no_comparison_note",
           "no_sign_test_note", "number", "partial_note", "shortfall_note", "similarity_text",
           "spent_note", "totals_note", "versus_aggregate"]


def partial_note(units: int, api: int, n_units: int | None) -> str:
    """What a partial run says: ``units`` of ``n_units`` have no decision, ``api`` of them
    from API errors, the rest from unusable or refused answers (recorded in calls.jsonl); a
    rerun judges them all again (a failure is never served from the cache)."""
    of = f" of {n_units}" if n_units is not None else ""
    parts = [f"partial: {units}{of} items have no decision."]
    if api:
        parts.append(f"{api} from API errors: rerun the same command to judge them again.")
    if units - api:
        parts.append(f"{units - api} from unusable or refused answers, recorded in "
                     f"calls.jsonl (a rerun asks again: a failure is never served from the "
                     f"cache).")
    return " ".join(parts)


def totals_note(t: Any) -> str:
    """``model calls this run: 1454  cache hits: 0  retries: 60 ...``: one session's
    :class:`~jurybox.runner.Totals` (model calls are HTTP attempts; cache hits are not calls;
    ``cached failures asked again`` only when there were any)."""
    failed = sum(t.failures.values())
    cached = (f" (prompt {t.prompt_tokens:,}, of which the provider's prefix cache served "
              f"{t.cached_tokens:,})" if t.cached_tokens else "")
    asked = getattr(t, "cached_failures_asked", 0)
    again = f"  cached failures asked again: {asked}" if asked else ""
    return (f"model calls this run: {t.model_calls}  cache hits: {t.cache_hits}{again}  "
            f"retries: {t.retries}  re-asks: {t.reasks}  failed judgments: {failed}  "
            f"tokens: {t.prompt_tokens + t.completion_tokens:,}{cached}")


def spent_note(usd: float, batch_usd: float | None = None) -> str:
    """What a priced run spent, over every session of the run directory; with ``batch_usd``
    (summary.json's ``cost.batch_usd``: the run made batch calls), its online and batch
    parts."""
    note = (f"spent: {usd:,.4f} USD over the run's sessions (prompt and completion tokens "
            f"at the given or bundled price)")
    if batch_usd is None:
        return note
    return (f"{note}: online {usd - batch_usd:,.4f} USD, batch {batch_usd:,.4f} USD (batch "
            f"calls at the batch rate)")


def jury_spent_note(usd: float) -> str:
    """What a jury's priced judges spent, over every session of their runs."""
    return f"spent: {usd:,.4f} USD over the judges' sessions"


def jury_partial_note(failed: Mapping[str, int]) -> str:
    """Items without a jury decision (no judge decided them), per protocol."""
    return (f"partial: items without a jury decision (no judge decided them): {dict(failed)}; "
            f"rerun the same command to judge API failures again")


def no_comparison_note(label: str, baseline: str, why: str) -> str:
    """A protocol the summary could not compare with its baseline (``vs_baseline_skipped``)."""
    return f"no comparison of {label} with {baseline}: {why}"


def no_sign_test_note(label: str, baseline: str, reason: str) -> str:
    """A comparison without a sign test (``vs_baseline.reason``: every item tied)."""
    return f"no sign test of {label} against {baseline}: {reason}"


def error_change(difference: float, low: float, high: float) -> str:
    """Personalized's mean absolute error against aggregate's, said by its sign (never "lower
    by -3.5"): ``difference`` = aggregate's - personalized's, its 95% CI ``low``-``high``."""
    if difference == 0:
        return f"mean |error| the same (95% CI of the difference {low:+.3f} to {high:+.3f})"
    word, size, lo, hi = (("lower", difference, low, high) if difference > 0 else
                          ("higher", -difference, -high, -low))
    return f"mean |error| {word} by {size:.3f} (95% CI {lo:.3f} to {hi:.3f})"


def versus_aggregate(k: int, n: int, closer: int, further: int, same: int, p_value: float,
                     difference: float, low: float, high: float) -> str:
    """Personalized vs aggregate at k shots: the paired sign test on absolute error (units
    where personalized is closer to the rater, further, the same) and the change in mean
    absolute error (:func:`error_change`)."""
    p = "—" if math.isnan(p_value) else f"{p_value:.3g}"
    return (f"personalized vs aggregate, k={k}: {n} units, closer {closer}, further "
            f"{further}, same {same}; sign p {p}; {error_change(difference, low, high)}")


#: What the alignment table's columns mean (the terminal's caption and the report's).
ALIGNMENT_CAPTION = (
    "Each metric per target rater, then the mean over raters [95% bootstrap CI over raters]. "
    "alpha: Krippendorff's alpha between the judge's scores and the rater's labels ((n): "
    "raters where it is defined). cover: scored / asked units; abstained (all seeds below the "
    "confidence threshold), failed and blocked (a prerequisite without a usable score) units "
    "count against it; gated units and predicted exclusion codes are missing by design.")


def mean_ci_cell(mean: float, low: float, high: float, n: int, *, pct: bool = False) -> str:
    """A mean over raters with its CI, as the alignment table shows it: ``0.74 [0.61,
    0.86]`` (``pct``: percent, one decimal); no CI when ``low`` is NaN (too few raters); ``—
    (n 0)`` when the mean is undefined."""
    if math.isnan(mean):
        return f"— (n {n})"
    scale, fmt = (100, ".1f") if pct else (1, ".2f")
    ci = "" if math.isnan(low) else f" [{scale * low:{fmt}}, {scale * high:{fmt}}]"
    return f"{scale * mean:{fmt}}{ci}"


def few_raters_note(counts: Sequence[int], min_units: int) -> str | None:
    """The means over fewer than ``min_units`` raters (``counts``) shown without a CI, or None
    when there are none."""
    few = sorted({n for n in counts if 0 < n < min_units})
    if not few:
        return None
    return (f"too few raters for a CI: means over {' or '.join(map(str, few))} raters are "
            f"shown without one (a CI needs {min_units} or more)")


def shortfall_note(units: int) -> str | None:
    """Rubric judgments that had fewer eligible examples than k (None: none)."""
    if not units:
        return None
    return (f"{units} (unit, dimension) judgments had fewer eligible examples than k: all "
            f"were used (see items.jsonl 'shortfall')")


def similarity_text(rho: float, low: float, high: float, reason: str | None) -> str:
    """Spearman's rho of reasoning similarity vs rater agreement with its CI, or why it is
    undefined (NaN) or has no CI."""
    if reason is None:
        return f"rho {rho:+.3f} [{low:+.3f}, {high:+.3f}]"
    return "NaN: " + reason if math.isnan(rho) else f"rho {rho:+.3f} (no CI: {reason})"


def number(value: Any) -> float:
    """A JSON number as a float (null, absent or not a number: NaN)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(
        value, bool) else math.nan


def comparison_notes(summary: Mapping[str, Any], labels: Mapping[str, str]) -> list[str]:
    """summary.json's protocols without a comparison, or without a sign test, as the terminal
    says them after the tables (``labels``: protocol -> its table name)."""
    baseline = str(summary.get("baseline") or "the baseline")
    notes = []
    for name, s in (summary.get("protocols") or {}).items():
        if not isinstance(s, dict):
            continue
        label = labels.get(name, name)
        vs = s.get("vs_baseline")
        if s.get("vs_baseline_skipped"):
            notes.append(no_comparison_note(label, baseline, str(s["vs_baseline_skipped"])))
        elif isinstance(vs, dict) and vs.get("reason"):
            notes.append(no_sign_test_note(label, baseline, str(vs["reason"])))
    return notes
