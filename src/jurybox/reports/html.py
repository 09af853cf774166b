"""``report.html``: one self-contained page per run (inline CSS, JS and SVG; no URL at all).

Everything from a dataset or a model is escaped by jinja2's autoescape; the page is readable
without JavaScript (every item's question, candidates, calls and raw judge texts are in the
HTML). The script filters the item browser (reading and writing the URL hash
``#filter=flipped,fixed:pcf``) and puts each call's prompt together when the call is opened: the
page stores each distinct text once (:mod:`.page_texts`), where writing every prompt out made
a page of long candidates about seven times the size of its texts.

The item browser holds at most ``max_items`` items (flagged items first, then the rest, in
run order), so the page of a large run stays small; ``jurybox show RUN ITEM`` shows any item.
Everything else on the page is over every item and read from what the run recorded, not
computed again: the summary table, the accuracy-vs-k curve and the position charts from
summary.json, the totals and warnings from run.json and summary.json (:mod:`.totals`), the
filter counts and the flip-rate chart from items.jsonl's decisions (:mod:`.flags`). Only the
shown items' calls are read and parsed, so writing a report costs about the same for 2,000
items as for 10,000 (``benchmarks/report_speed.py``).
"""

from __future__ import annotations

import json
import logging
import math
import shlex
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import DataError
from .curve import CurveCollector, PermutationCurve
from .flags import Comparison, filter_names, flip_marks
from .reader import RunReader
from ..rundir import read_manifest, write_text_atomic
from .assets import asset, page_script
from .freshness import DEFAULT_MAX_ITEMS, INPUTS_META, report_inputs
from .length_bias import length_bias_section
from .selective_section import selective_section
from .page_texts import PageTexts
from .totals import run_totals, run_warnings, when
from .rubric_sections import personalize_sections
from .sections import (Chart, Table, agreement_sections, curve_chart, flip_chart,
                       position_charts, protocol_label, summary_table)
from .views import ItemView

__all__ = ["DEFAULT_MAX_ITEMS", "render_report", "write_report"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Filter:
    """One filter of the item browser: its value in the URL and ``data-flags``, its label,
    what it means, and how many of the run's items carry it."""

    value: str
    label: str
    help: str
    count: int


def _filters(reader: RunReader, counts: dict[str, int]) -> list[Filter]:
    comparison, params = reader.comparison, reader.protocol_params
    out = []
    for value in filter_names(comparison):
        kind, _, name = value.partition(":")
        label = f"{kind}: {protocol_label(name, params.get(name, {}))}" if name else kind
        out.append(Filter(value, label, _filter_help(kind, name, comparison, reader.task),
                          counts.get(value, 0)))
    return out


def _filter_help(kind: str, name: str, comparison: Comparison | None, task: str) -> str:
    """What a filter means, in one line (its tooltip and legend)."""
    if kind == "flipped":
        return "the order changed the judge's answer: " + (
            "an order and its reverse gave different verdicts" if task == "pairwise"
            else "the top pick changed across the orders shown")
    if kind in ("fixed", "regressed"):
        base = comparison.baseline if comparison is not None else "the baseline"
        return (f"{name}'s credit {'above' if kind == 'fixed' else 'below'} {base}'s on the "
                f"item: the items the summary's +/- column counts "
                f"({'+' if kind == 'fixed' else '-'})")
    return "a call without a usable judgment, or a protocol without a decision"


@dataclass(frozen=True)
class _Scan:
    """What one pass over every item's decisions gives: flag counts, items to show, charts."""

    counts: dict[str, int]
    n_items: int
    shown: list[str]
    charts: list[Chart]


def _scan(reader: RunReader, max_items: int) -> _Scan:
    """Flags of every item from its decisions (no call read), the items the browser holds
    (flagged first, then the rest, in run order) and the charts."""
    counts: dict[str, int] = {}
    flagged: list[str] = []
    plain: list[str] = []
    disagreements: list[float] = []
    n_flipped = 0
    for item_id in reader.item_ids:
        names = reader.flags(item_id).names()
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        chosen = flagged if names else plain
        if len(chosen) < max_items:
            chosen.append(item_id)
        m = flip_marks(reader.marks(item_id))
        if m is not None and m.disagreement is not None:
            disagreements.append(m.disagreement)
            n_flipped += m.flipped
    keep = set((flagged + plain)[:max_items])
    charts = []
    if (chart := curve_chart(_curve(reader))) is not None:
        charts.append(chart)
    charts += position_charts(reader.summary, reader.protocol_params)
    n_items = len(reader.item_ids)
    if reader.task == "listwise" and (chart := flip_chart(disagreements, n_flipped,
                                                          n_items)) is not None:
        charts.append(chart)
    return _Scan(counts, n_items, [i for i in reader.item_ids if i in keep], charts)


def _curve(reader: RunReader) -> PermutationCurve | None:
    """Accuracy on the first k orders: summary.json's (the bench summary computes it), else,
    for a run without it (written before it existed, or interrupted before its summary),
    from every item's recorded calls."""
    for s in (reader.summary.get("protocols") or {}).values():
        if isinstance(s, dict) and (curve := PermutationCurve.from_json(s.get("curve"))):
            return curve
    k = int((reader.protocol_params.get("pcf") or {}).get("k") or 0)
    if reader.task != "listwise" or k < 2:
        return None
    collector = CurveCollector("pcf", k, *reader.pcf_settings)
    for item in reader.iter_items():
        collector.add(item)
    return collector.curve(int(reader.manifest.get("seed") or 0))


def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("jurybox.reports", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = _pct
    env.filters["score"] = lambda v: "—" if v is None or (
        isinstance(v, float) and math.isnan(v)) else f"{v:g}"
    env.filters["points"] = lambda v: "—" if v is None else f"{v:.1f}"
    env.globals["letter"] = lambda j: chr(ord("A") + j)
    return env


def _pct(v: Any) -> str:
    return "—" if not isinstance(v, (int, float)) or math.isnan(v) else f"{100 * v:.1f}%"


def _header(manifest: dict[str, Any], kind: str, task: str) -> dict[str, Any]:
    model = manifest.get("model") or {}
    dataset = manifest.get("dataset") or {}
    return {"kind": kind, "task": task,
            "model": model.get("label") or model.get("spec") or "",
            "simulated": bool(model.get("simulated")),
            "dataset": dataset.get("name") or "", "n_items": dataset.get("n_items"),
            "status": manifest.get("status") or "", "version": manifest.get("jurybox_version"),
            "started": when(manifest.get("started")),
            "command": shlex.join(map(str, manifest.get("command") or ()))}


def render_report(run_dir: str | Path, *, max_items: int = DEFAULT_MAX_ITEMS) -> str:
    """The report page of a run directory (or of an ``agreement`` output folder) as HTML.

    Raises:
        DataError: neither a run directory (run.json) nor an agreement folder
            (summary.json with groups).
    """
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise DataError(run_dir, "is a file; give a run directory (the folder holding run.json)")
    env = _environment()
    context: dict[str, Any] = {"title": run_dir.resolve().name, "css": asset("report.css"),
                               "js": page_script("report.js"), "generated": datetime.now(
                                   timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                               "jurybox_version": __version__, "summary_table": None,
                               "charts": [], "items": [], "filters": [], "n_items": 0,
                               "max_items": max_items, "notes": [], "texts": PageTexts(),
                               "totals": None, "warnings": [],
                               "inputs_meta": INPUTS_META,
                               "inputs": report_inputs(run_dir, max_items=max_items)
                               if run_dir.is_dir() else ""}
    if read_manifest(run_dir / "run.json") is None:
        ranking = _ranking_summary(run_dir)
        if ranking is not None:  # a ranking's folder: its leaderboard page
            from .leaderboard import render_leaderboard

            judge = run_dir / "judge" / "report.html"
            return render_leaderboard(ranking, title=context["title"],
                                      what=str(ranking.get("what", "")),
                                      judge_report="judge/report.html" if judge.exists()
                                      else None)
        summary = _agreement_summary(run_dir)
        context.update(header={"kind": "agreement", "task": "ratings", "model": "",
                               "simulated": False, "dataset": summary.get("ratings", ""),
                               "n_items": None, "status": "complete", "version": None,
                               "started": "", "command": ""},
                       charts=agreement_sections(summary))
        return env.get_template("report.html.j2").render(**context)
    reader = RunReader(run_dir)
    context.update(header=_header(reader.manifest, reader.kind, reader.task),
                   totals=run_totals(reader.manifest, reader.summary),
                   warnings=run_warnings(reader.manifest, reader.summary,
                                         reader.protocol_params))
    if not reader.summary:
        context["notes"].append("summary.json is missing (the run was interrupted before its "
                                "end): the statistics below come from the recorded items only.")
    if reader.task == "rubric":
        context["charts"] = personalize_sections(reader.summary)
        return env.get_template("report.html.j2").render(**context)
    table: Table | None = summary_table(reader.summary, reader.protocol_params)
    scan = _scan(reader, max_items)
    items: list[ItemView] = list(reader.iter_items(scan.shown, texts=True))
    context.update(summary_table=table, charts=scan.charts, items=items,
                   filters=_filters(reader, scan.counts), n_items=scan.n_items)
    context["length_bias"] = length_bias_section(reader.summary, reader.protocol_params)
    context["selective"] = selective_section(run_dir)
    return env.get_template("report.html.j2").render(**context)


def _ranking_summary(run_dir: Path) -> dict[str, Any] | None:
    """A ranking folder's summary.json (``kind: "rank"``, written by ``jurybox rank``), or
    None when ``run_dir`` is not one."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return summary if isinstance(summary, dict) and summary.get("kind") == "rank" and \
        isinstance(summary.get("systems"), list) else None


def _agreement_summary(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "summary.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        summary = None
    if not isinstance(summary, dict) or "groups" not in summary:
        raise DataError(run_dir, "not a jurybox run directory (no run.json) nor an agreement "
                                 "folder (summary.json with groups)")
    return summary


def write_report(run_dir: str | Path, *, max_items: int = DEFAULT_MAX_ITEMS) -> Path:
    """Write ``run_dir/report.html`` (atomically) and return its path.

    Raises:
        DataError: not a run directory or agreement folder (see :func:`render_report`).
        RunWriteError: the file cannot be written (a read-only folder, a full disk, a
            directory in its place); no temporary file is left.
    """
    path = Path(run_dir) / "report.html"
    write_text_atomic(path, render_report(run_dir, max_items=max_items))
    return path
