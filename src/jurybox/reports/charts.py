"""Small inline SVG charts for the HTML report (no scripts, no external resources).

Each function returns :class:`markupsafe.Markup`; every label passes through
:func:`markupsafe.escape`, so rater ids, protocol and dimension names cannot inject markup.
Values that are None or NaN are drawn as gaps (and said so in the label), never as 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeGuard

from markupsafe import Markup, escape

__all__ = ["bar_chart", "dot_plot", "heatmap", "line_chart"]

_W, _H = 560, 240
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 52, 16, 22, 40
_ACCENT, _BAND, _GRID, _REF = "#2563eb", "#bfdbfe", "#e5e7eb", "#dc2626"


def _ok(v: float | None) -> TypeGuard[float]:
    return v is not None and not math.isnan(v)


def _svg(body: list[str], title: str, width: int = _W, height: int = _H) -> Markup:
    return Markup(f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" '
                  f'height="{height}" role="img">'
                  f'<title>{escape(title)}</title>{"".join(body)}</svg>')


def _y_axis(lo: float, hi: float, ticks: int, fmt: str, body: list[str]) -> None:
    for t in range(ticks + 1):
        v = lo + (hi - lo) * t / ticks
        y = _H - _PAD_B - (_H - _PAD_T - _PAD_B) * t / ticks
        body.append(f'<line x1="{_PAD_L}" x2="{_W - _PAD_R}" y1="{y:.1f}" y2="{y:.1f}" '
                    f'stroke="{_GRID}"/><text x="{_PAD_L - 6}" y="{y + 4:.1f}" '
                    f'text-anchor="end" class="tick">{escape(fmt.format(v))}</text>')


def _y(v: float, lo: float, hi: float) -> float:
    return _H - _PAD_B - (_H - _PAD_T - _PAD_B) * (v - lo) / ((hi - lo) or 1)


def line_chart(xs: Sequence[int], ys: Sequence[float | None], lows: Sequence[float | None],
               highs: Sequence[float | None], *, title: str, x_label: str,
               lo: float = 0.0, hi: float = 1.0, fmt: str = "{:.0%}") -> Markup:
    """A line with its CI band, over integer x (e.g. permutations used)."""
    body: list[str] = []
    _y_axis(lo, hi, 4, fmt, body)
    span = max(len(xs) - 1, 1)

    def x(i: int) -> float:
        return _PAD_L + 12 + (_W - _PAD_L - _PAD_R - 24) * i / span

    band = [(x(i), low, high) for i, (low, high) in enumerate(zip(lows, highs))
            if _ok(low) and _ok(high)]
    if band:
        upper = " ".join(f"{px:.1f},{_y(h, lo, hi):.1f}" for px, _, h in band)
        lower = " ".join(f"{px:.1f},{_y(lw, lo, hi):.1f}" for px, lw, _ in reversed(band))
        body.append(f'<polygon points="{upper} {lower}" fill="{_BAND}" opacity="0.7"/>')
    pts = [(x(i), _y(v, lo, hi)) for i, v in enumerate(ys) if _ok(v)]
    if len(pts) > 1:
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
        body.append(f'<polyline points="{path}" fill="none" stroke="{_ACCENT}" '
                    f'stroke-width="2"/>')
    for i, v in enumerate(ys):
        body.append(f'<text x="{x(i):.1f}" y="{_H - _PAD_B + 16}" text-anchor="middle" '
                    f'class="tick">{escape(str(xs[i]))}</text>')
        if _ok(v):
            body.append(f'<circle cx="{x(i):.1f}" cy="{_y(v, lo, hi):.1f}" r="3.5" '
                        f'fill="{_ACCENT}"><title>{escape(xs[i])}: {escape(fmt.format(v))}'
                        f'</title></circle>')
    body.append(f'<text x="{(_PAD_L + _W - _PAD_R) / 2}" y="{_H - 6}" text-anchor="middle" '
                f'class="axis">{escape(x_label)}</text>')
    return _svg(body, title)


def bar_chart(labels: Sequence[str], values: Sequence[float | None], *, title: str,
              lows: Sequence[float | None] | None = None,
              highs: Sequence[float | None] | None = None, ref: float | None = None,
              ref_label: str = "", lo: float = 0.0, hi: float = 1.0,
              fmt: str = "{:.0%}", x_label: str = "") -> Markup:
    """Vertical bars with optional CI whiskers and a dashed reference line (e.g. the share an
    unbiased judge would give)."""
    body: list[str] = []
    _y_axis(lo, hi, 4, fmt, body)
    n = max(len(labels), 1)
    slot = (_W - _PAD_L - _PAD_R) / n
    width = min(slot * 0.7, 60)
    for i, (label, v) in enumerate(zip(labels, values)):
        cx = _PAD_L + slot * (i + 0.5)
        shown = escape(fmt.format(v)) if _ok(v) else "undefined"
        if _ok(v):
            top = _y(v, lo, hi)
            body.append(f'<rect x="{cx - width / 2:.1f}" y="{top:.1f}" width="{width:.1f}" '
                        f'height="{_H - _PAD_B - top:.1f}" fill="{_ACCENT}"><title>'
                        f'{escape(label)}: {shown}</title></rect>'
                        f'<text x="{cx:.1f}" y="{top - 4:.1f}" text-anchor="middle" '
                        f'class="value">{shown}</text>')
        else:
            body.append(f'<text x="{cx:.1f}" y="{_H - _PAD_B - 6}" text-anchor="middle" '
                        f'class="tick">—</text>')
        low, high = (lows[i], highs[i]) if lows is not None and highs is not None else (
            None, None)
        if _ok(low) and _ok(high):
            y1, y2 = _y(low, lo, hi), _y(high, lo, hi)
            body.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y1:.1f}" y2="{y2:.1f}" '
                        f'stroke="#111827" stroke-width="1.5"/>')
        body.append(f'<text x="{cx:.1f}" y="{_H - _PAD_B + 16}" text-anchor="middle" '
                    f'class="tick">{escape(label)}</text>')
    if ref is not None:
        y = _y(ref, lo, hi)
        body.append(f'<line x1="{_PAD_L}" x2="{_W - _PAD_R}" y1="{y:.1f}" y2="{y:.1f}" '
                    f'stroke="{_REF}" stroke-dasharray="5,4"/>'
                    f'<line x1="{_W - _PAD_R - 150}" x2="{_W - _PAD_R - 130}" y1="7" y2="7" '
                    f'stroke="{_REF}" stroke-dasharray="5,4"/><text x="{_W - _PAD_R - 126}" '
                    f'y="11" class="ref">{escape(ref_label)}</text>')
    if x_label:
        body.append(f'<text x="{(_PAD_L + _W - _PAD_R) / 2}" y="{_H - 6}" '
                    f'text-anchor="middle" class="axis">{escape(x_label)}</text>')
    return _svg(body, title)


def dot_plot(rows: Sequence[tuple[str, float | None, float | None, float | None]], *,
             title: str, lo: float = -1.0, hi: float = 1.0, fmt: str = "{:.2f}") -> Markup:
    """One row per (label, value, ci low, ci high): a dot with its CI as a horizontal line."""
    left, row_h = 200, 24
    height = _PAD_T + row_h * len(rows) + 30
    width = _W + 80

    def x(v: float) -> float:
        return left + (width - left - _PAD_R) * (v - lo) / ((hi - lo) or 1)

    body: list[str] = []
    for t in range(5):
        tick = lo + (hi - lo) * t / 4
        body.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{_PAD_T}" '
                    f'y2="{height - 24}" stroke="{_GRID}"/><text x="{x(tick):.1f}" '
                    f'y="{height - 10}" text-anchor="middle" class="tick">'
                    f'{escape(fmt.format(tick))}</text>')
    for i, (label, v, low, high) in enumerate(rows):
        y = _PAD_T + row_h * i + row_h / 2
        body.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end" class="tick">'
                    f'{escape(label)}</text>')
        if _ok(low) and _ok(high):
            body.append(f'<line x1="{x(max(low, lo)):.1f}" x2="{x(min(high, hi)):.1f}" '
                        f'y1="{y:.1f}" y2="{y:.1f}" stroke="#111827" stroke-width="1.5"/>')
        if _ok(v):
            body.append(f'<circle cx="{x(min(max(v, lo), hi)):.1f}" cy="{y:.1f}" r="4" '
                        f'fill="{_ACCENT}"><title>{escape(label)}: {escape(fmt.format(v))}'
                        f'</title></circle>')
        else:
            body.append(f'<text x="{left + 4}" y="{y + 4:.1f}" class="tick">undefined</text>')
    return _svg(body, title, width, height)


def heatmap(names: Sequence[str], values: dict[tuple[int, int], float | None], *, title: str,
            lo: float = 0.0, hi: float = 1.0, fmt: str = "{:.2f}") -> Markup:
    """A symmetric rater x rater matrix; cells without a value are grey with an en dash."""
    n = len(names)
    cell = max(18, min(44, 420 // max(n, 1)))
    left, top = 110, 100
    width, height = left + cell * n + 10, top + cell * n + 10
    body: list[str] = []
    for i, name in enumerate(names):
        body.append(f'<text x="{left - 6}" y="{top + cell * i + cell / 2 + 4:.1f}" '
                    f'text-anchor="end" class="tick">{escape(name)}</text>'
                    f'<text transform="translate({left + cell * i + cell / 2 + 4:.1f},'
                    f'{top - 6}) rotate(-60)" class="tick">{escape(name)}</text>')
        for j in range(n):
            v = values.get((i, j), values.get((j, i)))
            if _ok(v):
                t = min(max((v - lo) / ((hi - lo) or 1), 0.0), 1.0)
                fill = (f"rgb({int(239 - 202 * t)},{int(246 - 147 * t)},"
                        f"{int(255 - 20 * t)})")
                label = escape(fmt.format(v))
            else:
                fill, label = "#f3f4f6", Markup("&#8211;")
            ink = "#ffffff" if _ok(v) and (v - lo) / ((hi - lo) or 1) > 0.6 else "#111827"
            x, y = left + cell * j, top + cell * i
            body.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" '
                        f'stroke="#ffffff"><title>{escape(names[i])} / {escape(names[j])}: '
                        f'{label}</title></rect>')
            if cell >= 30:
                body.append(f'<text x="{x + cell / 2}" y="{y + cell / 2 + 4}" '
                            f'text-anchor="middle" class="cell" fill="{ink}">{label}</text>')
    return _svg(body, title, width, height)
