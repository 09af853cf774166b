"""A ranking's page, RUN/report.html: the leaderboard with CI bars, the win-rate matrix and
the judge's order effects, from the ranking's summary.json (no statistics computed here)."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._version import __version__
from .assets import asset

__all__ = ["render_leaderboard", "write_leaderboard_page"]


def _fmt(value: float | None, digits: int = 1) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _ci(ci: list[float | None] | None, digits: int = 1) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return "—"
    return f"{ci[0]:.{digits}f} to {ci[1]:.{digits}f}"


def _bars(rows: list[dict[str, Any]]) -> tuple[dict[str, dict[str, float]], float, float]:
    """Per system its BT interval as left offsets and widths (percent of the axis)."""
    values = [v for r in rows for v in (r.get("bt_ci") or []) if v is not None]
    values += [r["bt"] for r in rows if r.get("bt") is not None]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    span = (high - low) or 1.0
    low, high = low - 0.05 * span, high + 0.05 * span

    def at(x: float) -> float:
        return round(100 * (x - low) / (high - low), 2)

    bars = {}
    for r in rows:
        ci = r.get("bt_ci")
        if r.get("bt") is not None and ci and None not in ci:
            bars[r["name"]] = {"low": at(ci[0]), "width": max(at(ci[1]) - at(ci[0]), 0.3),
                               "point": at(r["bt"])}
    return bars, at(1000.0) if low <= 1000 <= high else -10.0, span


def _order_row(label: str, o: dict[str, Any]) -> dict[str, Any]:
    """One row of the order-effects table: a pair of systems, all pairs, or a jury's judge."""
    return {"pair": label, "n": o["n_orders"],
            "flip": _fmt(o.get("flip_rate")), "flip_ci": _ci(o.get("flip_ci")),
            "first": _fmt(o.get("first_shown_rate")), "first_ci": _ci(o.get("first_shown_ci"))}


def render_leaderboard(summary: dict[str, Any], *, title: str, what: str,
                       judge_report: str | None = None) -> str:
    """The page for a ranking's ``summary`` (the dict rank writes to summary.json)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("jurybox.reports", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    systems = summary["systems"]
    bars, ref_left, _ = _bars(systems)
    rows = [{"rank": (f"{r['rank_ci'][0]}-{r['rank_ci'][1]}" if r.get("rank_ci") and
                      r["rank_ci"][0] != r["rank_ci"][1] else r.get("rank") or "—"),
             "name": r["name"], "n": r["n"], "win_rate": _fmt(r.get("win_rate")),
             "win_rate_ci": _ci(r.get("win_rate_ci")), "lc": _fmt(r.get("lc_win_rate")),
             "bt": _fmt(r.get("bt"), 0),
             "bt_ci": "anchor" if r["name"] == summary.get("baseline") else
             _ci(r.get("bt_ci"), 0),
             "style": _fmt(r.get("bt_style"), 0), "adjusted": _fmt(r.get("bt_adjusted"), 0),
             "adjusted_ci": "anchor" if r["name"] == summary.get("baseline") else
             _ci(r.get("bt_adjusted_ci"), 0), "bar": bars.get(r["name"])}
            for r in systems]
    adjusted = any(r.get("bt_adjusted") is not None for r in systems)
    m = summary["matrix"]
    matrix = {"systems": m["systems"], "rows": [
        {"name": name, "cells": [{"text": "" if i == j or m["n"][i][j] == 0 else
                                  _fmt(m["win_rate"][i][j], 0), "n": m["n"][i][j]}
                                 for j in range(len(m["systems"]))]}
        for i, name in enumerate(m["systems"])]}
    order = [_order_row("all pairs" if o["a"] == "*" else f"{o['a']} vs {o['b']}", o)
             for o in summary.get("order") or []]
    by_judge = summary.get("order_by_judge") or {}
    order += [_order_row(f"judge {name}, all pairs", o) for name, o in by_judge.items()]
    boot = summary["bootstrap"]
    return env.get_template("leaderboard.html.j2").render(
        title=title, what=what, simulated=bool(summary.get("simulated")),
        baseline=summary.get("baseline"), rows=rows, ref_left=ref_left, matrix=matrix,
        order=order, by_judge=bool(by_judge), adjusted=adjusted,
        notes=summary.get("notes") or [], n_comparisons=summary["n_comparisons"],
        n_prompts=summary["n_prompts"], n_failed=summary.get("n_failed", 0),
        confidence=boot["confidence"], rounds=boot["rounds"], seed=boot["seed"],
        judge_report=judge_report, css=asset("report.css"), jurybox_version=__version__,
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


def write_leaderboard_page(folder: Path, summary: dict[str, Any], *, title: str, what: str,
                           judge_report: str | None = None) -> Path:
    """Write ``folder/report.html`` for a ranking; returns its path."""
    path = folder / "report.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(render_leaderboard(summary, title=title, what=what,
                                      judge_report=judge_report), encoding="utf-8")
    tmp.replace(path)
    return path
