"""Shared CLI plumbing: error handling, default paths, progress display, summary table."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..errors import JuryboxError
from ..runner import CallRecord

# Logs and CI are not terminals; give tables room there instead of rich's 80 columns.
console = Console(width=None if sys.stdout.isatty() else 132)
err_console = Console(stderr=True)


def fail_cleanly(fn: Callable) -> Callable:
    """Run a command; a JuryboxError or bad value becomes one line on stderr and exit 2,
    Ctrl-C a note on how to resume and exit 130."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except pydantic.ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}"
                                 for e in exc.errors())
            _error(f"invalid {exc.title} setting: {problems}")
            raise typer.Exit(2) from None
        except (JuryboxError, ValueError) as exc:
            _error(str(exc))
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            print("\ninterrupted: everything finished so far is saved; run the same command "
                  "again to resume.", file=sys.stderr)
            raise typer.Exit(130) from None
    return wrapper


def _error(message: str) -> None:
    """One line on stderr, never wrapped or marked up."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr)


def default_cache() -> Path:
    """``$JURYBOX_CACHE``, else ``$XDG_CACHE_HOME/jurybox/cache.sqlite`` (~/.cache)."""
    if os.environ.get("JURYBOX_CACHE"):
        return Path(os.environ["JURYBOX_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "jurybox" / "cache.sqlite"


def default_out(kind: str, config: dict) -> Path:
    """``runs/<kind>-<dataset>-<model>-<hash of config>``: the same command reuses (and
    resumes) the same folder, a changed one gets a new folder."""
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()
    name = f"{kind}-{Path(str(config.get('dataset', 'data'))).stem}-" \
           f"{str(config.get('model', 'model')).replace('/', '_')}-{digest[:8]}"
    return Path("runs") / name


class BenchProgress:
    """A rich progress bar: items, model calls, cache hits, failures, tokens."""

    def __init__(self) -> None:
        self.calls = self.hits = self.failures = self.tokens = 0
        self.progress = Progress(
            TextColumn("[bold]judging"), BarColumn(), MofNCompleteColumn(),
            TextColumn("items  {task.fields[stats]}"), TimeElapsedColumn(),
            console=err_console, transient=False, disable=not sys.stderr.isatty()
            and os.environ.get("JURYBOX_PROGRESS") != "1")
        self.task = self.progress.add_task("judging", total=None, stats="")

    def on_start(self, total: int, done: int) -> None:
        self.progress.update(self.task, total=total, completed=done)

    def on_call(self, record: CallRecord) -> None:
        if record.cached:
            self.hits += 1
        else:
            self.calls += record.attempts
            self.tokens += record.usage.prompt_tokens + record.usage.completion_tokens
        if record.error or record.parse_error:
            self.failures += 1
        self.progress.update(self.task, stats=(
            f"calls {self.calls}  cache hits {self.hits}  failed {self.failures}  "
            f"tokens {self.tokens:,}"))

    def on_item(self, _item: object) -> None:
        self.progress.advance(self.task)

    def __enter__(self) -> BenchProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _pct(x: float | None, sign: bool = False) -> str:
    return "—" if _missing(x) else f"{100 * x:+.1f}" if sign else f"{100 * x:.1f}"


def _ci(low: float | None, high: float | None, sign: bool = False) -> str:
    return "" if _missing(low) or _missing(high) else \
        f" [{_pct(low, sign)}, {_pct(high, sign)}]"


def _p(x: float | None) -> str:
    if _missing(x):
        return "—"
    return f"{x:.2g}" if x < 0.001 else f"{x:.3f}"


def summary_table(summary: dict, title: str) -> Table:
    """The bench table: protocol, n, coverage, accuracy [CI], vs baseline, p, calls, flips."""
    table = Table(title=title, title_justify="left")
    for col in ("protocol", "n", "cover %", "accuracy % [95% CI]",
                f"Δ vs {summary['baseline']} [95% CI]", "impr/regr", "sign p", "calls",
                "failed", "flip %"):
        table.add_column(col, justify="left" if col == "protocol" else "right", no_wrap=True)
    for name, s in summary["protocols"].items():
        acc, order = s["accuracy"], s["order"]
        vs = s.get("vs_baseline")
        diff = (_pct(vs["difference"], sign=True) + _ci(*vs["confidence_interval"], sign=True)
                if vs and vs["n"] else "—")
        table.add_row(name, str(acc["n"]), _pct(acc["coverage"]),
                      _pct(acc["accuracy"]) + _ci(*acc["confidence_interval"]), diff,
                      f"{vs['improvements']}/{vs['regressions']}" if vs else "—",
                      _p(vs["p_value"]) if vs else "—", str(s["calls_planned"]),
                      str(sum(s["calls_failed"].values())), _pct(order["flip_rate"]))
    return table


def exit_if_nothing_judged(result: Any) -> None:
    """Exit 1 when no protocol judged any item: every call failed (see calls.jsonl)."""
    if all(s["accuracy"]["n"] == 0 for s in result.summary["protocols"].values()):
        _error(f"no item was judged: every call failed; the raw answers and errors are in "
               f"{result.out / 'calls.jsonl'}")
        raise typer.Exit(1)


def print_bench_result(result: Any, title: str) -> None:
    """Table plus one line of totals and where the run directory is."""
    console.print(summary_table(result.summary, title))
    t = result.totals
    failed = sum(t.get("failures", {}).values()) if t else 0
    console.print(f"model calls this run: {t.get('model_calls', 0)}  cache hits: "
                  f"{t.get('cache_hits', 0)}  retries: {t.get('retries', 0)}  re-asks: "
                  f"{t.get('reasks', 0)}  failed judgments: {failed}  tokens: "
                  f"{t.get('prompt_tokens', 0) + t.get('completion_tokens', 0):,}")
    for name, s in result.summary["protocols"].items():
        runs = s["order"]["n_runs"]
        if runs:  # the most common candidate count; the others are in summary.json
            n = max(runs, key=lambda key: runs[key])
            rates = s["order"]["win_rate_by_position"][n]
            console.print(f"top pick by shown position, {name}, {n}-candidate items "
                          f"(unbiased: {100 / int(n):.0f}% each): " + "  ".join(
                              f"{chr(65 + i)} {100 * w:.0f}%" for i, w in enumerate(rates)))
    console.print(f"run directory: {result.out}  (run.json, calls.jsonl, items.jsonl, "
                  f"summary.json)")
