"""The report's sections as plain values for the template: tables as rows of strings, charts
as inline SVG (:mod:`.charts`). Each reads summary.json as written (``dict``), tolerating the
fields a kind of run does not have (a section without data is left out, never shown as 0)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from .charts import bar_chart, dot_plot, heatmap, line_chart
from .curve import PermutationCurve

__all__ = ["Chart", "Table", "agreement_sections", "curve_chart", "flip_chart",
           "position_charts", "protocol_label", "summary_table"]


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass(frozen=True)
class Chart:
    title: str
    svg: Markup
    caption: str = ""
    tables: list[Table] = field(default_factory=list)
    collapse_tables: bool = False  # tables that repeat the chart: behind "as a table"


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None


def pct(x: Any, sign: bool = False) -> str:
    v = _num(x)
    if v is None:
        return "—"
    return f"{100 * v:+.1f}" if sign else f"{100 * v:.1f}"


def _ci(ci: Any, sign: bool = False) -> str:
    if not isinstance(ci, (list, tuple)) or len(ci) != 2 or None in map(_num, ci):
        return ""
    return f" [{pct(ci[0], sign)}, {pct(ci[1], sign)}]"


def _p(x: Any) -> str:
    v = _num(x)
    return "—" if v is None else f"{v:.2g}" if v < 0.001 else f"{v:.3f}"


def protocol_label(name: str, params: dict[str, Any]) -> str:
    """As the terminal tables name it: ``both-orders (strict)``, ``pcf (exact)``."""
    rule = params.get("rule") or (params.get("adaptive")
                                  if params.get("adaptive") not in (None, "off") else None)
    return f"{name} ({rule})" if rule else name


def summary_table(summary: dict[str, Any], params: dict[str, dict[str, Any]]) -> Table | None:
    """Protocol rows: n, coverage, accuracy [CI], Δ vs baseline [CI], +/-, sign p, calls,
    failed items; listwise flip %, pairwise macro, consistency and first-shown rate."""
    protocols = summary.get("protocols")
    if not isinstance(protocols, dict) or not protocols:
        return None
    if summary.get("kind") == "judge":
        return _judge_table(summary, params)
    pairwise = summary.get("task") == "pairwise"
    columns = ["protocol", "n", "cover %", "acc % [95% CI]", "Δ % [95% CI]", "+/-", "sign p",
               "calls", "failed calls", "failed items"]
    columns += ["macro %", "consist %", "1st %"] if pairwise else ["flip %"]
    rows = []
    for name, s in protocols.items():
        if not isinstance(s, dict):  # a hand-edited summary.json: no row to show
            continue
        acc, vs = s.get("accuracy") or {}, s.get("vs_baseline") or {}
        row = [protocol_label(name, params.get(name, {})), str(acc.get("n", "—")),
               pct(acc.get("coverage")), pct(acc.get("accuracy")) + _ci(
                   acc.get("confidence_interval")),
               (pct(vs.get("difference"), True) + _ci(vs.get("confidence_interval"), True))
               if vs.get("n") else "—",
               f"{vs['improvements']}/{vs['regressions']}" if vs.get("n") else "—",
               _p(vs.get("p_value")) if vs else "—", str(s.get("calls_planned", "—")),
               _failed_calls(s.get("calls_failed")), str(s.get("items_failed", "—"))]
        if pairwise:
            row += [pct((s.get("buckets") or {}).get("macro")), pct(s.get("order_consistency")),
                    pct(s.get("first_shown_win_rate"))]
        else:
            row.append(pct((s.get("order") or {}).get("flip_rate")))
        rows.append(row)
    baseline = summary.get("baseline", "the baseline")
    return Table(columns, rows, f"Δ, +/- (items improved / regressed) and the exact sign test "
                 f"compare each protocol with {baseline} on the items both judged; CIs are 95% "
                 f"bootstrap intervals. failed calls (the terminal's \"failed\"): calls that "
                 f"ended without a usable judgment after retries and a re-ask; an item may "
                 f"still be decided from its other calls. Failed items have no decision: they "
                 f"are left out of the accuracy and counted against coverage, never scored.")


def _failed_calls(by_kind: Any) -> str:
    """Failed calls of a protocol from summary.json's ``calls_failed`` ({kind: count})."""
    if not isinstance(by_kind, dict):
        return "—"
    counts = [v for v in by_kind.values() if isinstance(v, int) and not isinstance(v, bool)]
    return str(sum(counts))


def _judge_table(summary: dict[str, Any], params: dict[str, dict[str, Any]]) -> Table:
    """A judge run (candidates without gold): items, failures, how often the order changed the
    pick, agreement with the pick, calls; accuracy only over the items that have gold."""
    judge = summary.get("judge") or {}
    name = str(judge.get("protocol", next(iter(summary["protocols"]))))
    s = summary["protocols"].get(name) or {}
    acc = s.get("accuracy") or {}
    columns = ["protocol", "items", "failed items", "flipped %", "agreement %", "calls"]
    row = [protocol_label(name, params.get(name, {})), str(judge.get("n_items", "—")),
           str(judge.get("n_failed", "—")), pct(judge.get("flip_rate")),
           pct(judge.get("mean_agreement")), str(s.get("calls_planned", "—"))]
    outcome = judge.get("outcome")
    if isinstance(outcome, dict):  # pairwise: how candidate 0 fared
        columns += ["candidate 0 won/lost/tied", "candidate 0 win % [95% CI]"]
        row += ["/".join(str(outcome.get(k, "—")) for k in ("won", "lost", "tied")),
                pct(outcome.get("win_rate")) + _ci(outcome.get("confidence_interval"))]
    labelled = int(judge.get("n_labelled") or 0)
    if labelled:
        columns += ["labelled", "acc % [95% CI]"]
        row += [str(labelled), pct(acc.get("accuracy")) + _ci(acc.get("confidence_interval"))]
    note = ("Candidates without gold: no accuracy is claimed" if not labelled else
            f"Accuracy is over the {labelled} item{'s' * (labelled != 1)} that "
            f"{'have' if labelled != 1 else 'has'} gold only")
    return Table(columns, [row], f"{note}. flipped %: decided items whose pick changed across "
                 f"the orders shown; agreement %: mean share of an item's orders whose pick "
                 f"was the final pick.{_OUTCOME_NOTE if isinstance(outcome, dict) else ''} "
                 f"Failed items have no decision, never a score.")


_OUTCOME_NOTE = (" candidate 0 won/lost/tied: decided items whose verdict preferred candidate "
                 "0 (verdict A), candidate 1 (B) or neither (tie); win %: (won + tied / 2) / "
                 "decided.")


def curve_chart(curve: PermutationCurve | None) -> Chart | None:
    if curve is None or not curve.points or curve.n_items == 0:
        return None
    points = curve.points
    xs = [p.k for p in points]
    labelled = any(p.accuracy is not None for p in points)
    if labelled:
        ys = [p.accuracy.accuracy if p.accuracy else None for p in points]
        cis = [p.accuracy.confidence_interval if p.accuracy else (None, None) for p in points]
        title = f"{curve.protocol}: accuracy on the first k orders"
    else:
        ys = [p.agreement for p in points]
        cis = [(None, None)] * len(points)
        title = f"{curve.protocol}: items whose first k orders give the final winners"
    svg = line_chart(xs, ys, [c[0] for c in cis], [c[1] for c in cis], title=title,
                     x_label="k: orders used (PCF on the first k of K, no new calls)")
    rows = [[str(p.k), (pct(p.accuracy.accuracy) + _ci(p.accuracy.confidence_interval)
                        + f" (n {p.accuracy.n})") if p.accuracy else "—",
             pct(p.agreement) + f" (n {p.n_agree})"] for p in points]
    return Chart(title, svg, "From the run's recorded judgments (no new calls), with its "
                 "weights and tolerance. k = 1 is the direct judgment (the base order); "
                 "k = K is the run's own PCF decision. An item with fewer orders than k (n! "
                 "< K, or an adaptive stop) keeps its recorded decision.",
                 [Table(["k", "accuracy % [95% CI]", "same winners as final %"], rows)],
                 collapse_tables=True)


def position_charts(summary: dict[str, Any], params: dict[str, dict[str, Any]]
                    ) -> list[Chart]:
    """Listwise: top pick by shown position per protocol (the most common candidate count);
    pairwise: first-shown win rate and order consistency per protocol."""
    protocols = summary.get("protocols") or {}
    if summary.get("task") == "pairwise":
        names = [protocol_label(n, params.get(n, {})) for n in protocols]
        first = [_num(s.get("first_shown_win_rate")) for s in protocols.values()]
        charts = [Chart("first-shown win rate", bar_chart(
            names, first, title="decisive verdicts that pick the response shown first",
            ref=0.5, ref_label="no position bias: 50%"),
            "Share of decisive verdicts (not ties) that pick the response shown first.")]
        both = [(n, _num(s.get("order_consistency"))) for n, s in zip(names,
                                                                       protocols.values())]
        both = [(n, v) for n, v in both if v is not None]
        if both:
            charts.append(Chart("order consistency", bar_chart(
                [n for n, _ in both], [v for _, v in both],
                title="both orders give the same verdict"),
                "Items whose two orders (A/B and B/A) agree, of those where both answered."))
        return charts
    charts = []
    for name, s in protocols.items():
        order = s.get("order") or {}
        rates, runs = order.get("win_rate_by_position") or {}, order.get("n_runs") or {}
        if not rates:
            continue
        n = max(rates, key=lambda k: (runs.get(k, 0), int(k)))
        labels = [chr(ord("A") + j) for j in range(int(n))]
        charts.append(Chart(f"{protocol_label(name, params.get(name, {}))}: top pick by shown "
                            f"position", bar_chart(
                                labels, [_num(v) for v in rates[n]], ref=1 / int(n),
                                ref_label=f"unbiased: {100 / int(n):.0f}% each",
                                title=f"{name}: share of top picks by shown position",
                                x_label=f"shown position ({n}-candidate items, "
                                        f"{runs.get(n, '?')} judgments)"),
                            "Which shown position the judge's top pick sat in, over every "
                            "successful call of the protocol."))
    return charts


def flip_chart(disagreements: list[float], n_flipped: int, n_items: int) -> Chart | None:
    """Histogram over items of the share of orders whose top pick is not a final winner."""
    if not disagreements:
        return None
    edges = [(0.0, 0.0, "0%"), (0.0, 0.2, "1-20%"), (0.2, 0.4, "21-40%"),
             (0.4, 0.6, "41-60%"), (0.6, 0.8, "61-80%"), (0.8, 1.0, "81-100%")]
    counts: Counter[str] = Counter()
    for d in disagreements:
        for lo, hi, label in edges:
            if (d == 0 and hi == 0) or lo < d <= hi:
                counts[label] += 1
                break
    labels = [e[2] for e in edges]
    shares = [counts[label] / len(disagreements) for label in labels]
    return Chart("flip-rate distribution", bar_chart(
        labels, shares, title="items by share of orders whose top pick is not the final pick",
        x_label="orders whose top pick differs from the final winners"),
        f"{n_flipped} of {n_items} items flipped (their top pick changed across the orders "
        f"shown). Per item: the share of its successful orders whose top pick is not among "
        f"the final winners ({len(disagreements)} decided items).")


def agreement_sections(summary: dict[str, Any]) -> list[Chart]:
    """alpha [CI] per group, and per group the rater x rater heatmaps of pairwise alpha and
    of coarse Jaccard."""
    groups = summary.get("groups") or []
    if not groups:
        return []
    names = [" · ".join(str(v) for v in (g.get("key") or {}).values()) or "all" for g in groups]
    dots = [_dot(n, g["alpha"].get("alpha"), g["alpha"].get("confidence_interval"))
            for n, g in zip(names, groups)]
    table = Table(["group", "alpha [95% CI]", "units", "raters", "values", "mean Jaccard",
                   "pairs", "note"],
                  [[n, _alpha_cell(g["alpha"]), str(g["alpha"].get("n_units")),
                    str(g["alpha"].get("n_raters")), str(g["alpha"].get("n_pairable_values")),
                    "—" if _num(g["coarse"].get("mean")) is None
                    else f"{g['coarse']['mean']:.3f}",
                    f"{g['coarse'].get('n_pairs_used')}/{g['coarse'].get('n_pairs_eligible')}",
                    g["alpha"].get("reason") or g["coarse"].get("reason") or ""]
                   for n, g in zip(names, groups)],
                  "alpha: Krippendorff's alpha over all raters, 95% bootstrap CI over units. "
                  "Jaccard: overlap of the items each rater scores above their own median.")
    out = [Chart("Krippendorff's alpha per group", dot_plot(
        dots, title="alpha per group with 95% CI"), "", [table])]
    for name, g in zip(names, groups):
        for title, pairs, key in (
                ("pairwise alpha", (g.get("pairwise_alpha") or {}).get("pairs") or [], "alpha"),
                ("coarse Jaccard", (g.get("coarse") or {}).get("pairs") or [], "jaccard")):
            raters = sorted({p["rater_a"] for p in pairs} | {p["rater_b"] for p in pairs})
            if len(raters) < 2 or len(raters) > 60:
                continue
            index = {r: i for i, r in enumerate(raters)}
            values = {(index[p["rater_a"]], index[p["rater_b"]]): _num(p.get(key))
                      for p in pairs}
            values.update({(i, i): 1.0 for i in range(len(raters))})
            out.append(Chart(f"{name}: {title}", heatmap(
                raters, values, title=f"{name}: {title} per rater pair",
                lo=-1.0 if key == "alpha" else 0.0),
                "Rater pairs with too few co-rated items are grey."))
    return out


def _dot(label: str, value: Any, ci: Any) -> tuple[str, float | None, float | None,
                                                   float | None]:
    low, high = ci if isinstance(ci, (list, tuple)) and len(ci) == 2 else (None, None)
    return label, _num(value), _num(low), _num(high)


def _alpha_cell(a: dict[str, Any]) -> str:
    v = _num(a.get("alpha"))
    if v is None:
        return "—"
    ci = a.get("confidence_interval") or (None, None)
    ends = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if None not in map(_num, ci) else ""
    return f"{v:.3f}{ends}"
