"""A leaderboard: every ranking figure of every system from one set of comparisons.

Per system: the win rate against the baseline (ties half), AlpacaEval's length-controlled win
rate (where lengths are known), the Bradley-Terry score (Elo points, baseline 1000) with its
rank interval, the style-controlled score (length, and markdown where texts are known) and,
where the judge saw pairs in both orders, the Bradley-Terry score adjusted for its position
bias (a first-shown term: :func:`~jurybox.ranking.fit_bradley_terry`'s ``first_shown``); per
pair of systems the win rate and the judge's order-flip and first-shown rates. Every CI is
a 95% percentile interval from one prompt bootstrap (the same prompts drawn for every figure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..ranking.bootstrap import DEFAULT_ROUNDS, Bootstrap
from ..ranking.bradley_terry import BradleyTerry, fit_bradley_terry
from ..ranking.comparisons import Comparisons
from ..ranking.order import OrderEffects, order_effects
from ..ranking.style import StyleControlled, style_controlled_bt
from ..ranking.winrate import WinRateMatrix, WinRates, win_rate_matrix, win_rates
from ..stats.interval import ConfidenceInterval

__all__ = ["Leaderboard", "SystemRow", "leaderboard"]


@dataclass(frozen=True)
class SystemRow:
    """One system's figures (percent, or Elo points for ``bt``); None where not defined
    (no comparison with the baseline, no lengths, the baseline itself)."""

    name: str
    n: int
    win_rate: float | None = None
    win_rate_ci: ConfidenceInterval | None = None
    lc_win_rate: float | None = None
    lc_win_rate_ci: ConfidenceInterval | None = None
    bt: float | None = None
    bt_ci: ConfidenceInterval | None = None
    rank: int | None = None
    rank_ci: tuple[int, int] | None = None
    bt_style: float | None = None
    bt_style_ci: ConfidenceInterval | None = None
    bt_adjusted: float | None = None
    bt_adjusted_ci: ConfidenceInterval | None = None


@dataclass(frozen=True)
class Leaderboard:
    """Every system's row, best Bradley-Terry score first, with what they were computed from.

    Attributes:
        systems: one :class:`SystemRow` per system.
        baseline: the baseline (None: all pairs, Bradley-Terry's mean at 1000).
        n_comparisons: comparisons used; n_failed: pairs without a decision (left out).
        n_prompts: prompts they cover (the bootstrap resamples these).
        matrix: win rates between every pair that met.
        order: the judge's order effects, per pair and pooled (None: one order recorded).
        bradley_terry, style: the fits (None where not made).
        adjusted: the Bradley-Terry fit with a first-shown term (its ``first_shown``: the
            judge's position bias in logits), or None: no pair was seen with each side first.
        lc_note, notes: why a figure is missing, what a fit left out.
        bootstrap: how the CIs were drawn (rounds, seed, confidence).
        source: what was ranked (a file, a folder, a live run).
    """

    systems: tuple[SystemRow, ...]
    baseline: str | None
    n_comparisons: int
    n_failed: int
    n_prompts: int
    matrix: WinRateMatrix
    order: OrderEffects | None
    bradley_terry: BradleyTerry
    style: StyleControlled | None
    notes: tuple[str, ...]
    bootstrap: Bootstrap
    source: str = ""
    judge: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    adjusted: BradleyTerry | None = None

    def as_dict(self) -> dict[str, Any]:
        """summary.json's content (``systems``: one object per system; CIs as [low, high])."""
        def ci(value: ConfidenceInterval | None) -> list[float | None] | None:
            return None if value is None else [_num(value.low), _num(value.high)]

        rows = [{"name": r.name, "n": r.n, "win_rate": _num(r.win_rate),
                 "win_rate_ci": ci(r.win_rate_ci), "lc_win_rate": _num(r.lc_win_rate),
                 "lc_win_rate_ci": ci(r.lc_win_rate_ci), "bt": _num(r.bt), "bt_ci": ci(r.bt_ci),
                 "rank": r.rank, "rank_ci": list(r.rank_ci) if r.rank_ci else None,
                 "bt_style": _num(r.bt_style), "bt_style_ci": ci(r.bt_style_ci),
                 "bt_adjusted": _num(r.bt_adjusted), "bt_adjusted_ci": ci(r.bt_adjusted_ci)}
                for r in self.systems]
        k = len(self.matrix.systems)
        matrix = {"systems": list(self.matrix.systems),
                  "win_rate": [[_num(float(self.matrix.rate[i, j])) for j in range(k)]
                               for i in range(k)],
                  "n": [[int(self.matrix.n[i, j]) for j in range(k)] for i in range(k)]}
        order = None if self.order is None else [
            {"a": p.a, "b": p.b, "n": p.n, "n_orders": p.n_orders,
             "flip_rate": _num(p.flip_rate), "flip_ci": ci(p.flip_ci),
             "n_decided": p.n_decided, "first_shown_rate": _num(p.first_shown_rate),
             "first_shown_ci": ci(p.first_shown_ci)}
            for p in (self.order.overall, *self.order.pairs)]
        style = None if self.style is None else {
            "features": list(self.style.features),
            "coefficients": {c.feature: {"coefficient": _num(c.coefficient), "ci": ci(c.ci)}
                             for c in self.style.coefficients},
            "notes": list(self.style.notes)}
        return {"kind": "rank", "baseline": self.baseline, "judge": self.judge,
                "source": self.source, "n_comparisons": self.n_comparisons,
                "n_failed": self.n_failed, "n_prompts": self.n_prompts, "systems": rows,
                "matrix": matrix, "order": order, "style": style, "notes": list(self.notes),
                "first_shown": None if self.adjusted is None else {
                    "logits": _num(self.adjusted.first_shown),
                    "ci": ci(self.adjusted.first_shown_ci)},
                "bootstrap": self.bootstrap.as_dict(),
                **self.extra}


def _num(value: float | None) -> float | None:
    """A JSON number: None for None or NaN (JSON has no NaN)."""
    return None if value is None or not math.isfinite(value) else round(float(value), 6)


def leaderboard(comparisons: Comparisons, baseline: str | None = None, *,
                rounds: int = DEFAULT_ROUNDS, seed: int = 0, confidence: float = 0.95,
                n_failed: int = 0, source: str = "", judge: str = "",
                length_controlled: bool = True) -> Leaderboard:
    """Every figure of every system (module docstring).

    Args:
        comparisons: the judged pairs (failures already left out, counted in ``n_failed``).
        baseline: the system win rates are against (and Bradley-Terry's anchor at 1000);
            None: no win rate, Bradley-Terry's mean at 1000.
        rounds: bootstrap rounds over prompts (0: no CIs).
        seed: the bootstrap's seed (every statistic resamples the same prompts).
        confidence: the CIs' level, in (0, 1).
        length_controlled: compute AlpacaEval's LC win rate where lengths are known.

    Raises:
        KeyError: ``baseline`` names no system. ValueError: a system not connected to the
            others by any comparison (Bradley-Terry cannot place it).
    """
    notes: list[str] = []
    bt = fit_bradley_terry(comparisons, baseline, rounds=rounds, seed=seed,
                           confidence=confidence)
    rates: WinRates | None = None
    if baseline is not None:
        rates = win_rates(comparisons, baseline, rounds=rounds, seed=seed,
                          confidence=confidence)
    has_lengths = bool(len(comparisons)) and not (
        _any_nan(comparisons.length_a) or _any_nan(comparisons.length_b))
    style = None
    if has_lengths:
        style = style_controlled_bt(comparisons, baseline, rounds=rounds, seed=seed,
                                    confidence=confidence)
    else:
        notes.append("no style-controlled scores: some outputs' lengths are not known")
    lc: dict[str, tuple[float, ConfidenceInterval]] = {}
    if baseline is not None and length_controlled and has_lengths:
        lc, note = _length_controlled(comparisons, baseline, rounds, seed, confidence)
        if note:
            notes.append(note)
    elif baseline is not None and length_controlled:
        notes.append("no length-controlled win rates: some outputs' lengths are not known")
    with_orders = any(len(r.orders) >= 2 for r in comparisons.rows)
    order = order_effects(comparisons, confidence=confidence) if with_orders else None
    adjusted = None
    if _both_sides_first(comparisons):
        adjusted = fit_bradley_terry(comparisons, baseline, rounds=rounds, seed=seed,
                                     confidence=confidence, first_shown=True)
        notes.append(_first_shown_note(adjusted))
    adjusted_of = {s.system: s for s in adjusted.scores} if adjusted is not None else {}
    n_of = {s: 0 for s in comparisons.systems}
    for row in comparisons.rows:
        n_of[row.a] += 1
        n_of[row.b] += 1
    styled = {s.system: s for s in style.scores} if style is not None else {}
    rows = []
    for score in bt.scores:
        name = score.system
        rate = None
        if rates is not None and name != baseline:
            rate = next((r for r in rates.rates if r.system == name), None)
        lc_value = lc.get(name)
        s = styled.get(name)
        adj = adjusted_of.get(name)
        rows.append(SystemRow(
            name=name, n=n_of[name], win_rate=rate.win_rate if rate else None,
            win_rate_ci=rate.ci if rate else None,
            lc_win_rate=lc_value[0] if lc_value else None,
            lc_win_rate_ci=lc_value[1] if lc_value else None,
            bt=score.score, bt_ci=score.ci, rank=score.rank, rank_ci=score.rank_ci,
            bt_style=s.score if s else None, bt_style_ci=s.ci if s else None,
            bt_adjusted=adj.score if adj else None, bt_adjusted_ci=adj.ci if adj else None))
    return Leaderboard(systems=tuple(rows), baseline=baseline, n_comparisons=len(comparisons),
                       n_failed=n_failed, n_prompts=len(comparisons.prompts),
                       matrix=win_rate_matrix(comparisons), order=order, bradley_terry=bt,
                       style=style, notes=tuple(notes),
                       bootstrap=Bootstrap(rounds, seed, confidence), source=source, judge=judge,
                       adjusted=adjusted)


def _both_sides_first(comparisons: Comparisons) -> bool:
    """Whether some pair was shown with each of its two systems first (then the first-shown
    term is identified: without it, it is confounded with the systems' scores)."""
    seen: dict[frozenset[str], set[str]] = {}
    for row in comparisons.rows:
        firsts = seen.setdefault(frozenset((row.a, row.b)), set())
        firsts.update(o.first for o in row.orders)
        if len(firsts) == 2:
            return True
    return False


def _first_shown_note(fit: BradleyTerry) -> str:
    """The note saying the judge's fitted position bias and where the adjusted scores are."""
    from ..ranking.bradley_terry import ELO_PER_LOGIT

    gamma, ci = fit.first_shown or 0.0, fit.first_shown_ci
    span = "" if ci is None or not math.isfinite(ci.low) else (
        f"; {100 * fit.bootstrap.confidence:g}% CI {ci.low:+.2f} to {ci.high:+.2f}")
    return (f"position bias: the output shown first gains {gamma:+.2f} logits "
            f"({ELO_PER_LOGIT * gamma:+.0f} Elo{span}), fitted from the order verdicts; "
            f"Bradley-Terry adjusted for it: bt_adjusted (summary.json, leaderboard.csv)")


def _any_nan(values: Any) -> bool:
    import numpy as np

    return bool(np.isnan(values).any())


def _length_controlled(comparisons: Comparisons, baseline: str, rounds: int, seed: int,
                       confidence: float) -> tuple[dict[str, tuple[float, ConfidenceInterval]],
                                                   str]:
    """AlpacaEval's LC win rate per system (the ranking.length_controlled module)."""
    from ..ranking.length_controlled import length_controlled_win_rates

    try:
        result = length_controlled_win_rates(comparisons, baseline, rounds=rounds, seed=seed,
                                             confidence=confidence)
    except ValueError as exc:  # too little data for the GLM (a prompt without difficulty)
        return {}, f"no length-controlled win rates: {exc}"
    return {name: (r.lc_win_rate, r.lc_ci) for name, r in result.items()}, ""
