"""Rendering summaries as rich tables (listwise and pairwise)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from rich.table import Table

from .._context import scoped
from ..reports.notes import no_comparison_note, no_sign_test_note, totals_note
from ..terminal import data, safe_text
from ._common import console
from ._fit import print_table

if TYPE_CHECKING:
    from pathlib import Path

    from ..compare import BenchResult, BenchSummary, ProtocolSummary
    from ..stats import LengthBias

__all__ = ["length_line", "length_table", "print_bench_result", "listwise_table", "pairwise_tables",
           "decimals", "pct", "pct_decimals", "print_pool"]

#: Decimals :func:`pct` shows (``jurybox score --decimals``); 1 unless set by
#: :func:`pct_decimals`.
_DECIMALS: ContextVar[int] = ContextVar("jurybox_pct_decimals", default=1)


@contextmanager
def pct_decimals(decimals: int) -> Iterator[None]:
    """Within the block, :func:`pct` shows ``decimals`` decimals (0 to 4)."""
    if not 0 <= decimals <= 4:
        raise ValueError(f"decimals must be 0 to 4, got {decimals}")
    with scoped(_DECIMALS, decimals):
        yield


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def decimals() -> int:
    """The decimals :func:`pct` shows now (1, or as :func:`pct_decimals` set)."""
    return _DECIMALS.get()


def pct(x: float | None, sign: bool = False) -> str:
    """A share as a percentage with one decimal, or as :func:`pct_decimals` sets ('—' when
    missing).

    >>> pct(0.5996), pct(None)
    ('60.0', '—')
    >>> with pct_decimals(2):
    ...     pct(0.5996)
    '59.96'
    """
    if x is None or math.isnan(x):
        return "—"
    d = _DECIMALS.get()
    return f"{100 * x:+.{d}f}" if sign else f"{100 * x:.{d}f}"


def _ci(low: float | None, high: float | None, sign: bool = False) -> str:
    return "" if _missing(low) or _missing(high) else f" [{pct(low, sign)}, {pct(high, sign)}]"


def _p(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "—"
    return f"{x:.2g}" if x < 0.001 else f"{x:.3f}"


def _table(title: str, columns: list[str], caption: str | None = None) -> Table:
    """A table whose title and column names may come from data (a dataset's name, its
    buckets): printed as written, control characters escaped (:mod:`jurybox.terminal`).
    Its cells wrap and fold rather than end in "…"; print it with :func:`print_table`."""
    table = Table(title=data(title), title_justify="left", caption=caption,
                  caption_justify="left")
    for col in columns:
        table.add_column(data(col), justify="left" if col in ("protocol", "bucket") else "right",
                         overflow="fold")
    return table


def _common_cells(s: ProtocolSummary) -> list[str]:
    acc, vs = s.accuracy, s.vs_baseline
    diff = (pct(vs.difference, sign=True) + _ci(*vs.confidence_interval, sign=True)
            if vs and vs.n else "—")
    return [str(acc.n), pct(acc.coverage), pct(acc.accuracy) + _ci(*acc.confidence_interval),
            diff, f"{vs.improvements}/{vs.regressions}" if vs else "—",
            _p(vs.p_value) if vs else "—"]


_COMMON = ["protocol", "n", "cover %", "acc % [95% CI]", "Δ % [95% CI]", "+/-", "sign p"]


def _caption(baseline: str, extra: str = "") -> str:
    return (f"Δ, +/- (items improved/regressed) and the exact sign test compare each protocol "
            f"with {baseline} on the items both judged. {extra}").strip()


def listwise_table(summary: BenchSummary, title: str) -> Table:
    """Protocol, n, coverage, accuracy [CI], Δ vs baseline [CI], impr/regr, p, calls, flips."""
    table = _table(title, _COMMON + ["calls", "failed", "flip %"], _caption(
        summary.baseline, "flip %: items whose top pick changes across the orders shown."))
    for name, s in summary.protocols.items():
        table.add_row(data(summary.label(name)), *_common_cells(s), str(s.calls_planned),
                      str(sum(s.calls_failed.values())),
                      pct(s.order.flip_rate if s.order else None))
    return table


def pairwise_tables(summary: BenchSummary, title: str) -> list[Table]:
    """The protocol table (with macro accuracy over buckets, order consistency and the first
    shown response's win rate) and accuracy per bucket."""
    main = _table(title, _COMMON + ["macro %", "calls", "failed", "consist %", "1st %"],
                  _caption(summary.baseline, "macro: mean over buckets. consist: both "
                           "orders agree. 1st: decisive verdicts that pick the response shown "
                           "first (50% without position bias)."))
    for name, s in summary.protocols.items():
        assert s.buckets is not None
        main.add_row(data(summary.label(name)), *_common_cells(s), pct(s.buckets.macro),
                     str(s.calls_planned), str(sum(s.calls_failed.values())),
                     pct(s.order_consistency), pct(s.first_shown_win_rate))
    first = next(iter(summary.protocols.values())).buckets
    buckets = list(first.by_bucket) if first else []
    per = _table("accuracy % per bucket (n)", ["protocol", *buckets, "micro", "macro"])
    for name, s in summary.protocols.items():
        b = s.buckets
        assert b is not None
        cells = (f"{pct(b.by_bucket[k][0])} ({b.by_bucket[k][1]})" if k in b.by_bucket
                 else "—" for k in buckets)
        per.add_row(data(summary.label(name)), *cells, pct(b.micro), pct(b.macro))
    return [main, per]


def length_table(summary: BenchSummary) -> Table | None:
    """Length bias per protocol: how often the decision picks the longest candidate (pairwise:
    the longer response wins) [Wilson 95% CI], the rate of a judge that ignores length, the
    gold's own rate, the exact test's p and the items counted; what was left out below.
    None when no protocol has it (a run written before it existed)."""
    rows = {n: s.length_bias for n, s in summary.protocols.items() if s.length_bias}
    if not rows:
        return None
    pairwise = summary.task == "pairwise"
    excluded = "; ".join(
        f"{data(summary.label(name))} " + ", ".join(f"{count} {what}" for count, what in (
            (b.n_failed, "failed"), (b.n_tied, "tie verdicts"),
            (b.n_equal_length, "equal length"), (b.n_unmeasured, "no lengths")) if count)
        for name, b in rows.items() if b.n_excluded)
    table = _table(
        "length bias: how often " + ("the longer response wins" if pairwise else
                                     "the pick is the longest candidate"),
        ["protocol", "n", ("longer" if pairwise else "longest") + " % [95% CI]",
         "unbiased %", "gold %", "p"],
        "unbiased: a judge that ignores length; gold: a perfectly accurate judge (where gold "
        "answers are longer, accuracy alone raises the rate). Per "
        + ("decisive verdict." if pairwise else "decided item, ties split.")
        + (f" Left out: {excluded}." if excluded else ""))
    for name, b in rows.items():
        table.add_row(data(summary.label(name)), str(b.n),
                      pct(b.observed) + _ci(*b.confidence_interval), pct(b.expected),
                      pct(b.gold), _p(b.p_value))
    return table


def length_line(b: LengthBias, pairwise: bool) -> str:
    """The length bias as one sentence (``jurybox judge``)."""
    if not b.n:
        return f"length bias: {b.reason}"
    one = b.n == 1
    what = (f"the longer response won {{}} of {{}} decisive verdict{'' if one else 's'}"
            if pairwise else
            f"the pick was the longest candidate for {{}} of {{}} decided item{'' if one else 's'}")
    gold = f", gold {pct(b.gold)}%" if b.gold is not None else ""
    low, high = b.confidence_interval
    return (f"length bias: {what.format(pct(b.observed) + '%', b.n)} (95% CI {pct(low)} to "
            f"{pct(high)}; unbiased {pct(b.expected)}%{gold}; p {_p(b.p_value)})")


def first_shown_line(s: ProtocolSummary) -> str:
    """A pairwise protocol's first-shown rate as one sentence (``jurybox judge``): the decisive
    verdicts (calls, not ties) that picked the response shown first, with Wilson's 95% CI
    (:func:`jurybox.stats.length.wilson_interval`, each call counted as a trial) and the
    exact two-sided binomial test against 50%, the rate of a judge without position bias
    (:func:`jurybox.stats.sign_test_p`)."""
    from ..stats.length import wilson_interval
    from ..stats.paired import sign_test_p

    n = s.n_decisive_calls or 0
    if not n or s.first_shown_win_rate is None:
        return "first-shown rate: no decisive verdict (every call was a tie or failed)"
    k = round(s.first_shown_win_rate * n)
    low, high = wilson_interval(k / n, n)
    return (f"first-shown rate: {k} of {n} decisive verdict{'' if n == 1 else 's'} picked "
            f"the response shown first: {pct(k / n)}% (95% CI {pct(low)} to {pct(high)}; "
            f"50% without position bias; p {_p(sign_test_p(k, n))})")


def print_bench_result(result: BenchResult, title: str) -> None:
    """Tables plus totals, position effects and where the run directory is."""
    summary = result.summary
    if summary.task == "pairwise":
        for table in pairwise_tables(summary, title):
            print_table(table)
        for name, s in summary.protocols.items():
            if (r := s.judgebench_rule) is not None:
                console.print(f"JudgeBench's two-order rule ({name}): {r.correct} correct, "
                              f"{r.incorrect} incorrect, {r.tie} tied of {r.n} "
                              f"= {pct(r.accuracy)}%")
    else:
        print_table(listwise_table(summary, title))
        for name, s in summary.protocols.items():
            runs = s.order.n_runs if s.order else {}
            if s.order and runs:  # the most common candidate count; the others: summary.json
                n = max(runs, key=lambda key: runs[key])
                rates = s.order.win_rate_by_position[n]
                console.print(f"top pick by shown position, {name}, {n}-candidate items "
                              f"(unbiased: {100 / int(n):.0f}% each): " + "  ".join(
                                  f"{chr(65 + i)} {100 * w:.0f}%" for i, w in enumerate(rates)))
            early = sum(v for k, v in (s.stops or {}).items() if k != "all")
            if early and s.calls_per_item:  # adaptive PCF: how many orders items needed
                dist = ", ".join(f"{k}: {v}" for k, v in s.calls_per_item["distribution"].items())
                console.print(data(f"{summary.label(name)}: {s.calls_per_item['mean']:.2f} "
                                   f"calls per item (calls: items {dist}); {early} of "
                                   f"{s.accuracy.n_total} items stopped before all orders"))
    if (lengths := length_table(summary)) is not None:
        print_table(lengths)
    for name, s in summary.protocols.items():
        if s.vs_baseline_skipped:
            console.print(data(no_comparison_note(summary.label(name), summary.baseline,
                                                  s.vs_baseline_skipped)))
        elif s.vs_baseline is not None and s.vs_baseline.reason:
            console.print(data(no_sign_test_note(summary.label(name), summary.baseline,
                                                 s.vs_baseline.reason)))
    t = result.totals
    failed = sum(t.failures.values())
    if summary.replayed:
        console.print(f"answers replayed from calls.jsonl: {t.cache_hits} (no model "
                      f"calls)  failed judgments: {failed}")
        console.print(safe_text(f"run directory: {result.out}"), markup=False)
        return
    console.print(totals_note(t), highlight=False)
    print_pool(result.out)
    console.print(safe_text(f"run directory: {result.out}  (run.json, calls.jsonl, "
                            f"items.jsonl, summary.json, report.html)"), markup=False)


def print_pool(out: Path) -> None:
    """After a run through an endpoint pool: each replica's calls, share, failures and mean
    latency this session, and how many items kept every call on one replica (run.json's
    last session); nothing for one endpoint."""
    from ..reports.totals import pool_lines
    from ..rundir import read_manifest

    try:
        manifest = read_manifest(out / "run.json") or {}
    except (OSError, ValueError):
        return
    sessions = manifest.get("sessions") or [{}]
    for line in pool_lines(sessions[-1] if isinstance(sessions[-1], dict) else {}):
        console.print(data(line), highlight=False)
