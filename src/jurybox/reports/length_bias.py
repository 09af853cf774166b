"""The report's length-bias panel: per protocol, how often the decision picks the longest
candidate (pairwise: the longer response wins) with its 95% CI, beside the rate of a judge
that ignores length and the gold's own rate (:mod:`jurybox.stats.length` defines them).

Reads summary.json as written (``protocols.<name>.length_bias``); a run without it (written
before jurybox measured it, or an agreement or rubric run) gets no panel. Labels pass through
:func:`markupsafe.escape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from .sections import Chart, Table, _ci, _num, _p, pct, protocol_label

__all__ = ["length_bias_section"]

_W, _LEFT, _RIGHT, _TOP, _ROW = 560, 150, 20, 34, 30
_OBSERVED, _UNBIASED, _GOLD = "#2563eb", "#dc2626", "#059669"

#: A plot row: label, observed, CI low, CI high, unbiased rate, gold rate.
_Row = tuple[str, float | None, float | None, float | None, float | None, float | None]

#: Dubois et al. 2024, the reason the statistic exists.
CITATION = ("Dubois et al. 2024, \"Length-Controlled AlpacaEval: A Simple Way to Debias "
            "Automatic Evaluators\", arXiv 2404.04475")


def length_bias_section(summary: dict[str, Any], params: dict[str, dict[str, Any]]
                        ) -> Chart | None:
    """The panel: a plot (observed with its CI, the unbiased rate, the gold's rate) and a
    table with n, the p-value and what was left out; None when no protocol has the
    statistic."""
    protocols = summary.get("protocols")
    if not isinstance(protocols, dict):
        return None
    found = {name: s["length_bias"] for name, s in protocols.items()
             if isinstance(s, dict) and isinstance(s.get("length_bias"), dict)}
    if not found:
        return None
    pairwise = summary.get("task") == "pairwise"
    what = "the longer response wins" if pairwise else "the pick is the longest candidate"
    rows: list[list[str]] = []
    plot: list[_Row] = []
    for name, b in found.items():
        label = protocol_label(name, params.get(name, {}))
        ci = b.get("confidence_interval")
        low, high = (_num(ci[0]), _num(ci[1])) if isinstance(ci, list) and len(ci) == 2 else (
            None, None)
        plot.append((label, _num(b.get("observed")), low, high, _num(b.get("expected")),
                     _num(b.get("gold"))))
        rows.append([label, str(b.get("n", "—")), pct(b.get("observed")) + _ci(ci),
                     pct(b.get("expected")), pct(b.get("gold")), _p(b.get("p_value")),
                     _left_out(b)])
    unit = "decisive verdict" if pairwise else "decided item"
    table = Table(["protocol", "n", ("longer" if pairwise else "longest") + " % [95% CI]",
                   "unbiased %", "gold %", "p", "left out"], rows,
                  f"n: {unit}s counted. unbiased: the rate of a judge that ignores length "
                  f"(per item, the share of its candidates that are longest: 1/n, 50% for a "
                  f"pair); gold: the rate of a perfectly accurate judge on the same items. p: "
                  f"exact two-sided test of the observed rate against the unbiased one. CI: "
                  f"Wilson 95%.")
    caption = (("Per decisive verdict: did the longer response win, by characters (tie "
                "verdicts, failed items and pairs of equal length left out)") if pairwise else
               ("Per decided item: is the pick the longest candidate, by characters (a tie "
                "of winners splits the credit; failed items and items whose candidates all "
                "have one length left out)")) + (
        f". Judges favour length ({CITATION}). Where the gold answers are longer, an accurate "
        f"judge picks the longest too: read the rate against both the unbiased and the gold "
        f"mark.")
    return Chart(f"length bias: how often {what}", _plot(plot, what), caption, [table])


def _left_out(b: dict[str, Any]) -> str:
    parts = [f"{b[key]} {label}" for key, label in (
        ("n_failed", "failed"), ("n_tied", "tie verdicts"), ("n_equal_length", "equal length"),
        ("n_unmeasured", "no lengths")) if isinstance(b.get(key), int) and b[key]]
    return ", ".join(parts) or "none"


def _x(v: float) -> float:
    return _LEFT + (_W - _LEFT - _RIGHT) * min(max(v, 0.0), 1.0)


def _plot(rows: Sequence[_Row], what: str) -> Markup:
    """One row per protocol: the observed rate (dot) with its CI (line), the unbiased rate
    (red bar) and the gold's rate (green diamond), on 0-100%."""
    height = _TOP + _ROW * len(rows) + 30
    body = [f'<circle cx="{_LEFT}" cy="10" r="4" fill="{_OBSERVED}"/>'
            f'<text x="{_LEFT + 8}" y="14" class="tick">judge [95% CI]</text>'
            f'<line x1="{_LEFT + 120}" x2="{_LEFT + 120}" y1="4" y2="16" stroke="{_UNBIASED}" '
            f'stroke-width="3"/><text x="{_LEFT + 127}" y="14" class="tick">unbiased</text>'
            f'<path d="{_diamond(_LEFT + 200, 10)}" fill="{_GOLD}"/>'
            f'<text x="{_LEFT + 208}" y="14" class="tick">gold (accurate judge)</text>']
    for t in range(5):
        x = _x(t / 4)
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_TOP - 6}" y2="{height - 24}" '
                    f'stroke="#e5e7eb"/><text x="{x:.1f}" y="{height - 10}" '
                    f'text-anchor="middle" class="tick">{25 * t}%</text>')
    for i, (label, observed, low, high, expected, gold) in enumerate(rows):
        y = _TOP + _ROW * i + _ROW / 2
        body.append(f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" class="tick">'
                    f'{escape(label)}</text>')
        if expected is not None:
            body.append(f'<line x1="{_x(expected):.1f}" x2="{_x(expected):.1f}" '
                        f'y1="{y - 9:.1f}" y2="{y + 9:.1f}" stroke="{_UNBIASED}" '
                        f'stroke-width="3"><title>unbiased: {expected:.1%}</title></line>')
        if gold is not None:
            body.append(f'<path d="{_diamond(_x(gold), y)}" fill="{_GOLD}" opacity="0.85">'
                        f'<title>gold: {gold:.1%}</title></path>')
        if low is not None and high is not None:
            body.append(f'<line x1="{_x(low):.1f}" x2="{_x(high):.1f}" y1="{y:.1f}" '
                        f'y2="{y:.1f}" stroke="#111827" stroke-width="1.5"/>')
        if observed is None:
            body.append(f'<text x="{_LEFT + 4}" y="{y + 4:.1f}" class="tick">undefined</text>')
        else:
            body.append(f'<circle cx="{_x(observed):.1f}" cy="{y:.1f}" r="4.5" '
                        f'fill="{_OBSERVED}"><title>{escape(label)}: {observed:.1%}</title>'
                        f'</circle>')
    return Markup(f'<svg class="chart" viewBox="0 0 {_W} {height}" width="{_W}" '
                  f'height="{height}" role="img"><title>{escape(what)}</title>'
                  f'{"".join(body)}</svg>')


def _diamond(x: float, y: float, r: float = 5.5) -> str:
    return f"M{x:.1f},{y - r:.1f} L{x + r:.1f},{y:.1f} L{x:.1f},{y + r:.1f} L{x - r:.1f},{y:.1f} Z"
