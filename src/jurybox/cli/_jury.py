"""CLI glue for a jury (``--jury FILE`` or ``--model a,b,c`` on bench and judge): pick the
jury, run it, print its tables. The work is in :mod:`jurybox.jury`."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ..errors import ConfigError
from ..terminal import data, safe_text
from ._common import console, warn
from ._progress import with_progress
from ._fit import print_table

if TYPE_CHECKING:
    from rich.table import Table

    from ..jury import Jury, JuryResult
    from ..jury.summary import JuryProtocol
    from ..run import RunOptions

def jury_for(jury_file: Path | None, model: str | None) -> Jury | None:
    """The jury of a command (``--jury`` or a comma list in ``--model``), or None for one
    judge.

    Raises:
        ConfigError, DataError: both given, or a bad jury.
    """
    from ..jury import jury_from_models, load_jury

    if jury_file is not None:
        if model is not None:
            raise ConfigError("--jury lists the judges: leave --model (and JURYBOX_MODEL) "
                              "unset, or give --model a,b,c without --jury")
        return load_jury(jury_file)
    return jury_from_models(model) if model is not None else None


def command_price(price_in: float | None, price_out: float | None,
                  price_batch: float | None = None) -> Any:
    """``--price-in``/``--price-out`` (and ``--price-batch``) for every judge that gives
    none (None: each judge's bundled price); without ``--price-batch``, each judge's
    provider's batch rate applies.

    Raises:
        ConfigError: as :func:`~jurybox.cost.resolve_price`, or ``--price-batch`` without
            the online prices (a jury has no one bundled price to apply it to).
    """
    from ..cost import resolve_price

    if price_in is None and price_out is None:
        if price_batch is not None:
            raise ConfigError("with a jury, --price-batch goes with --price-in and --price-out "
                              "(one price for every judge); give one judge its batch rate "
                              "with price_batch in the jury file")
        return None
    return resolve_price("", price_in, price_out, price_batch)


def dry_run_jury(config: Any, jury: Jury, out: Path, options: RunOptions, what: str) -> None:
    """Price each judge (no model call) and the whole jury."""
    from ..jury import plan_jury
    from ._plan import plan_for, print_plan

    plans = plan_jury(config, jury, out, options=options)
    low = high = batch_low = batch_high = 0.0
    priced, batched = True, False
    for plan in plans:
        console.print(safe_text(f"judge {plan.juror.label} (weight {plan.juror.weight:g}):"),
                      highlight=False, markup=False)
        p = plan_for(plan.prepared.selection, plan.prepared.protocols, model=plan.config.model,
                     price=plan.options.price)
        print_plan(p, model=plan.config.model, what=what,
                   batch=plan.options.batch is not None)
        usd = p.usd_range()
        if usd is None:
            priced = priced and plan.config.model == "sim"
        else:
            low, high = low + usd[0], high + usd[1]
            batch = p.batch_usd_range()
            batched = batched or batch is not None
            batch_low += usd[0] if batch is None else batch[0]
            batch_high += usd[1] if batch is None else batch[1]
    total = (f"{low:,.4f} to {high:,.4f} USD" if priced else
             "unknown (a judge has no known price; give it price_in and price_out)")
    if priced and batched:
        total += (f" online, {batch_low:,.4f} to {batch_high:,.4f} USD batch (each judge "
                  f"with a batch rate at it, the others online)")
    console.print(safe_text(f"jury of {len(plans)} judges: {total}"), highlight=False,
                  markup=False)


def run_jury_command(config: Any, jury: Jury, out: Path, options: RunOptions, *,
                     per_item: int = 0) -> None:
    """Run the jury with a progress bar, print its tables (and, with ``per_item`` > 0, the
    first ``per_item`` items' decisions, all of them written to OUT/judgments.csv), exit 3
    when some item has no jury decision."""
    from ..jury import run_jury

    result = with_progress(run_jury, config, jury, out, options=options)
    if per_item:
        print_jury_items(result, per_item)
    print_jury_result(result)
    failed = {p: s.jury_items_failed for p, s in result.summary.protocols.items()
              if s.jury_items_failed}
    if failed:
        from ..reports.notes import jury_partial_note  # the report says it in the same words

        print(safe_text(jury_partial_note(failed)), file=sys.stderr)
        raise typer.Exit(3)


def _pct(x: float | None) -> str:
    return "—" if x is None or math.isnan(x) else f"{100 * x:.1f}"


def _acc(a: Any) -> str:
    lo, hi = a.confidence_interval
    ci = "" if math.isnan(lo) or math.isnan(hi) else f" [{_pct(lo)}, {_pct(hi)}]"
    return f"{_pct(a.accuracy)}{ci}" if a.n else "—"


def _versus(name: str, vs: Any, note: str | None) -> str:
    if vs is None:
        return f"jury vs {name}: {note or 'not compared'}"
    lo, hi = vs.confidence_interval
    ci = "" if math.isnan(lo) or math.isnan(hi) else \
        f" [{100 * lo:+.1f}, {100 * hi:+.1f}]"
    p = "—" if math.isnan(vs.p_value) else f"{vs.p_value:.3g}"
    return (f"jury vs {name}: Δ {100 * vs.difference:+.1f} points{ci} on {vs.n} items, "
            f"improved/regressed {vs.improvements}/{vs.regressions}, sign test p {p}")


def _alpha(kind: str, a: Any, note: str | None) -> str:
    if a is None:
        return f"{kind}: {note or 'n/a'}"
    lo, hi = a.confidence_interval
    ci = "" if math.isnan(lo) or math.isnan(hi) else f" [{lo:.3f}, {hi:.3f}]"
    value = "undefined" if math.isnan(a.alpha) else f"{a.alpha:.3f}"
    return f"{kind}: {value}{ci} ({a.n_units} units){'; ' + a.reason if a.reason else ''}"


def jury_protocol_table(s: JuryProtocol, judges: dict[str, dict[str, Any]],
                        title: str) -> Table:
    """One protocol's jury: a row per judge (weight, items, accuracy [95% CI], failed items,
    first-shown and longest-pick rates, flip rate, disagreement with the jury, calls, tokens,
    USD), then the mean judge and the JURY (bold)."""
    from rich.table import Table

    table = Table(title=data(title), title_justify="left")

    def longest(b: Any) -> str:
        return "—" if b is None else _pct(b.observed)

    for col in ("judge", "weight", "n", "acc % [95% CI]", "failed", "first-shown %",
                "longest %", "flip %", "≠ jury %", "calls", "tokens", "USD"):
        table.add_column(col, justify="left" if col == "judge" else "right", overflow="fold")
    for judge, row in s.judges.items():
        t = judges[judge]
        usd = "—" if t.get("usd") is None else f"{t['usd']:.4f}"
        table.add_row(data(judge), f"{row.weight:g}", str(row.accuracy.n), _acc(row.accuracy),
                      str(row.items_failed), _pct(row.first_shown_rate),
                      longest(row.length_bias), _pct(row.flip_rate),
                      _pct(row.disagreement), f"{t['model_calls']:,}",
                      f"{t['prompt_tokens'] + t['completion_tokens']:,}", usd)
    table.add_row("mean judge", "", str(s.mean_judge.n), _acc(s.mean_judge), "", "", "", "",
                  "", "", "", "")
    table.add_row("JURY", "", str(s.jury.n), _acc(s.jury), str(s.jury_items_failed), "",
                  longest(s.length_bias), "", "", "", "", "", style="bold")
    return table


def print_protocol(name: str, s: JuryProtocol, judges: dict[str, dict[str, Any]],
                   task: str, title: str) -> None:
    """One protocol's jury table and its comparison, agreement and disagreement lines."""
    from ._tables import length_line

    print_table(jury_protocol_table(s, judges, title))
    say = [
        _versus(f"best judge ({s.best_judge})" if s.best_judge else "best judge", s.vs_best,
                s.notes.get("vs_best")),
        _versus("mean judge", s.vs_mean, s.notes.get("vs_mean")),
        "agreement between judges, Krippendorff's alpha [95% CI]: " + _alpha(
            "nominal on " + ("verdicts" if task == "pairwise" else "winner sets"),
            s.alpha_nominal, s.notes.get("alpha_nominal")) + (
            "; " + _alpha("interval on C_i", s.alpha_interval, s.notes.get("alpha_interval"))
            if task == "listwise" else ""),
    ]
    if s.length_bias is not None:  # longest %: the same, per judge
        say.append("jury " + length_line(s.length_bias, task == "pairwise"))
    m = s.pairwise_alpha
    if len(m["raters"]) > 1:
        cells = []
        for i, a in enumerate(m["raters"]):
            for j in range(i + 1, len(m["raters"])):
                v = m["matrix"][i][j]
                cells.append(f"{a}~{m['raters'][j]} "
                             f"{'undefined' if v is None else format(v, '.2f')}")
        say.append("pairwise alpha (nominal): " + ", ".join(cells))
    if s.most_disagreeing is not None:
        row = s.judges[s.most_disagreeing]
        say.append(f"disagrees with the jury most: {s.most_disagreeing} "
                   f"({_pct(row.disagreement)}% of {row.n_with_jury} items)")
    for line in say:
        console.print(safe_text(line), highlight=False, markup=False)


def print_jury_items(result: JuryResult, shown: int) -> None:
    """The jury's decision and each judge's per item (the first ``shown``), written in full
    to OUT/judgments.csv; listwise, with the jury's C_i per candidate (the weighted mean of
    the judges' C_i its winners come from) and a line saying how the jury combined."""
    from rich.table import Table

    from ..jury.judgments import judgment_rows, write_jury_judgments
    from ..rundir import iter_records

    judges = list(result.judges)
    records = list(iter_records(result.out / "items.jsonl"))
    rows = judgment_rows(records, judges)
    path = write_jury_judgments(rows, judges, result.out)
    listwise = result.summary.task == "listwise"
    terms = "winning candidates' indices" if listwise else "A, B or tie"
    table = Table(title=data(f"decisions per item ({terms}; failed: no vote)"),
                  title_justify="left")
    for col in ("item", "protocol", "JURY", *(("jury C_i",) if listwise else ()), *judges):
        table.add_column(data(col), overflow="fold")
    for row, record in zip(rows[:shown], records):
        cells = [data(v) for v in row]
        if listwise:
            cells.insert(3, data(" ".join(f"{c:.1f}" for c in record.get("combined") or ())))
        table.add_row(*cells)
    print_table(table, key_columns=2)
    if listwise:
        weights = ", ".join(f"{name} {s.weight:g}" for name, s in
                            next(iter(result.summary.protocols.values())).judges.items())
        console.print(safe_text(
            f"JURY: the weighted mean of the judges' C_i (weights: {weights}), winners "
            f"within the tolerance of the best; its pick may be one no single judge made"),
            highlight=False, markup=False)
    more = f" (the first {shown} shown)" if len(rows) > shown else ""
    console.print(safe_text(f"{len(rows)} decisions{more}: {path}"), highlight=False,
                  markup=False)


def print_jury_result(result: JuryResult) -> None:
    """Every protocol's table, then calls, cost and where the files are."""
    s = result.summary
    sim = " (SIMULATED judges)" if s.simulated else ""
    for name, p in s.protocols.items():
        print_protocol(name, p, s.judges, s.task,
                       f"{s.dataset}: {s.n_items} items, protocol {name}, jury of "
                       f"{len(s.judges)}{sim}")
    calls = ", ".join(f"{n} {r.totals.model_calls}" for n, r in result.judges.items())
    console.print(safe_text(f"model calls this run: {result.model_calls} ({calls})"),
                  highlight=False, markup=False)
    usd = [t["usd"] for t in s.judges.values() if t.get("usd") is not None]
    if usd:
        from ..reports.notes import jury_spent_note

        console.print(safe_text(jury_spent_note(sum(usd))), highlight=False, markup=False)
    console.print(safe_text(
        f"run directory: {result.out}  (jury.json, items.jsonl: the jury's and each judge's "
        f"decision per item, summary.json; each judge's own run in judges/<name>/)"),
        highlight=False, markup=False)
    for name, report in result.judges.items():  # each judge's own (its run's summary.json)
        for warning in report.warnings:
            warn(f"judge {name}: {warning}")
