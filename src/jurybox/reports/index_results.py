"""The one-line results of a run for the index of runs, from its summary.json alone.

Each function takes a summary (a dict as read from summary.json, possibly hand-edited or
damaged) and returns a short text; a field of the wrong JSON type reads as absent, never as
an exception. Figures are as the run's own report states them:

- bench (and a replayed run, ``score``): each protocol's accuracy (tie credit, labelled
  items), e.g. ``direct 65.5% · pcf 85.8%``;
- judge: items judged, the flip rate (share of decided items whose pick or verdict moved
  with the shown order), and the accuracy when some items carry gold;
- jury: per protocol the jury's accuracy and the best judge's, and Krippendorff's alpha
  (nominal) between the judges;
- agreement: Krippendorff's alpha per group (dimension, domain);
- personalize: per judge kind (zero-shot, aggregate, personalized) the condition with the
  highest mean alpha against the raters, averaged over dimensions;
- score results of recorded outputs: accuracy per parse rule or per recording;
- rank: the systems by Bradley-Terry score, e.g. ``truthful 1120 · sometimes 1000 · misled 880``;
- selective judging: how many sets were certified at the target, and the mean coverage.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["agreement_results", "bench_results", "judge_results", "jury_results",
           "personalize_results", "rank_results", "recorded_results", "selective_results",
           "SEPARATOR"]

#: Between the parts of a results text.
SEPARATOR = " · "
#: Parts shown at most (then ``+N more``).
MAX_PARTS = 4


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _num(value: Any) -> float | None:
    """A finite JSON number, else None (a bool, a string, null, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _pct(value: Any) -> str:
    x = _num(value)
    return "—" if x is None else f"{100 * x:.1f}%"


def _accuracy(acc: Any) -> str:
    """An accuracy record (``{"accuracy": 0.655, "n": 200, ...}``) as ``65.5%``; ``—`` when
    no labelled item was decided (n = 0)."""
    acc = _dict(acc)
    return _pct(acc.get("accuracy")) if _num(acc.get("n")) else "—"


def _join(parts: list[str], most: int = MAX_PARTS) -> str:
    if len(parts) > most:
        parts = [*parts[:most], f"+{len(parts) - most} more"]
    return SEPARATOR.join(parts)


def bench_results(summary: dict[str, Any]) -> str:
    """``direct 65.5% · pcf 85.8%``: each protocol's accuracy, in summary order."""
    return _join([f"{name} {_accuracy(_dict(p).get('accuracy'))}"
                  for name, p in _dict(summary.get("protocols")).items()])


def judge_results(summary: dict[str, Any]) -> str:
    """``6 items · flips 83.3%`` (and ``· 1 failed``; ``· 91.7% on 6 labelled`` with gold,
    over the labelled items judged; pairwise: ``· candidate 0 3 won, 2 lost, 1 tied``)."""
    judge = _dict(summary.get("judge"))
    n_items = _num(judge.get("n_items"))
    parts = [] if n_items is None else [f"{n_items:.0f} items"]
    if (failed := _num(judge.get("n_failed"))):
        parts.append(f"{failed:.0f} failed")
    if (flip := _num(judge.get("flip_rate"))) is not None:
        parts.append(f"flips {_pct(flip)}")
    if _num(judge.get("n_labelled")):  # over the labelled items judged, as the terminal says
        accuracy = _dict(_dict(_dict(summary.get("protocols")).get(
            str(judge.get("protocol")))).get("accuracy"))
        if (judged := _num(accuracy.get("n"))) is not None:
            parts.append(f"{_accuracy(accuracy)} on {judged:.0f} labelled")
    outcome = _dict(judge.get("outcome"))  # pairwise: candidate 0's wins, losses, ties
    if all(_num(outcome.get(k)) is not None for k in ("won", "lost", "tied")):
        parts.append("candidate 0 " + ", ".join(f"{_num(outcome.get(k)):.0f} {k}"
                                                 for k in ("won", "lost", "tied")))
    return _join(parts, most=MAX_PARTS + 1)


def jury_results(summary: dict[str, Any]) -> str:
    """Per protocol ``apoc: jury 75.0%, best judge 83.3%, α 0.30`` (without gold: the
    items and alpha only)."""
    parts = []
    for name, p in _dict(summary.get("protocols")).items():
        p = _dict(p)
        jury = _dict(p.get("jury"))
        figures = []
        if _num(jury.get("n")):
            figures.append(f"jury {_accuracy(jury)}")
            best = _dict(_dict(p.get("judges")).get(str(p.get("best_judge"))))
            if best:
                figures.append(f"best judge {_accuracy(best.get('accuracy'))}")
        elif (n := _num(summary.get("n_items"))) is not None:
            figures.append(f"{n:.0f} items")
        alpha = _num(_dict(p.get("alpha_nominal")).get("alpha"))
        figures.append("α undefined" if alpha is None else f"α {alpha:.2f}")
        parts.append(f"{name}: {', '.join(figures)}")
    return _join(parts)


def agreement_results(summary: dict[str, Any]) -> str:
    """``correctness α 0.534 · selection α 0.716 · ...``: alpha per group."""
    parts = []
    for group in _list(summary.get("groups")):
        group = _dict(group)
        key = "/".join(str(v) for v in _dict(group.get("key")).values())
        alpha = _num(_dict(group.get("alpha")).get("alpha"))
        value = "α undefined" if alpha is None else f"α {alpha:.3f}"
        parts.append(f"{key} {value}" if key else value)
    return _join(parts)


def personalize_results(summary: dict[str, Any]) -> str:
    """``zero-shot@0 α 0.871 · aggregate@5 α 0.885 · personalized@2 α 0.877``: per judge
    kind, the condition (kind@shots) with the highest mean alpha, averaged over dimensions."""
    alphas: dict[str, list[float]] = {}
    for row in _list(summary.get("alignment")):
        row = _dict(row)
        alpha = _num(_dict(row.get("alpha")).get("mean"))
        if alpha is not None and isinstance(row.get("condition"), str):
            alphas.setdefault(row["condition"], []).append(alpha)
    best: dict[str, tuple[float, str]] = {}
    for condition, values in alphas.items():
        kind, mean = condition.split("@")[0], sum(values) / len(values)
        if kind not in best or mean > best[kind][0]:
            best[kind] = (mean, condition)
    return _join([f"{condition} α {mean:.3f}" for mean, condition in best.values()])


def recorded_results(summary: dict[str, Any]) -> str:
    """Scores of recorded outputs: ``arena-hard 32.2% · last-token 32.2%`` (JudgeBench
    outputs, per parse rule, named as ``jurybox score`` names them), or per recording
    ``judge subset: net 71.2%``."""
    from ..parsing.verdict import RULE_NAMES

    parts = []
    for score in _list(summary.get("scores")):
        score = _dict(score)
        if "rule" in score:
            rule = str(score["rule"])
            parts.append(f"{RULE_NAMES.get(rule, rule)} {_pct(score.get('accuracy'))}")
        else:
            name = " ".join(str(score[k]) for k in ("judge", "subset") if score.get(k))
            parts.append(f"{name}: net {_accuracy(score.get('net'))}")
    return _join(parts)


def rank_results(summary: dict[str, Any]) -> str:
    """A ranking's systems in its order, each with its Bradley-Terry score (Elo points):
    ``truthful 1120 · sometimes 1000 · misled 880`` (``—`` for a system not ranked)."""
    parts = []
    for row in _list(summary.get("systems")):
        row = _dict(row)
        bt = _num(row.get("bt"))
        parts.append(f"{row.get('name')} {'—' if bt is None else f'{bt:.0f}'}")
    return _join(parts)


def selective_results(summary: dict[str, Any]) -> str:
    """Selective judging (``jurybox score ... --target-agreement``): ``target 85% · 2 of 6
    sets certified · coverage 57.5%`` (the mean test coverage of the certified sets)."""
    sel = _dict(summary.get("selective"))
    sets = [_dict(s) for s in _list(sel.get("sets"))]
    covered = [c for s in sets if (c := _num(_dict(s.get("test")).get("coverage"))) and c > 0]
    target = _num(sel.get("target"))
    parts = [f"target {'—' if target is None else f'{100 * target:.0f}%'}",
             f"{len(covered)} of {len(sets)} sets certified"]
    if covered:
        parts.append(f"coverage {100 * sum(covered) / len(covered):.1f}%")
    return _join(parts)
