"""The jury's summary.json: each judge beside the jury, and the judges as raters.

Per protocol:

- per judge: accuracy (tie credit, bootstrap CI; labelled items), items failed, position
  bias (the share of decisive calls picking what was shown first; pairwise, the share of
  items whose two orders disagree, 1 - order consistency; listwise, the share of items whose
  top pick moves across the shown orders), length bias (how often its decision picks the
  longest candidate: :mod:`jurybox.stats.length`), and how often it disagrees with the jury;
- the jury's accuracy and length bias, the best single judge's and the mean judge's (per
  item, the mean credit of the judges that decided it: the expected credit of a judge drawn
  at random),
  with paired sign tests of the jury against both (:func:`jurybox.stats.paired_comparison`);
- agreement between the judges as raters: Krippendorff's alpha, nominal on the decisions
  (the pairwise verdict A/B/tie; listwise, the winner set), and, listwise, interval on C_i
  (one unit per item and candidate), each with a bootstrap CI; the matrix of alpha for every
  two judges (nominal); and the judge that disagrees with the jury most.

Per judge, over the run: model calls, cache hits, tokens and USD (its run.json totals).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..limits import MIN_UNITS_FOR_CI
from ..rundir import read_manifest
from ..compare.summary import add_length
from ..stats import (AccuracyResult, AlphaResult, LengthBias, LengthTally, PairedComparison,
                     accuracy, krippendorff_alpha, paired_comparison, pairwise_alpha)
from ..stats.interval import ConfidenceInterval
from ..stats.krippendorff import DegenerateAlphaWarning, InsufficientRatingsError

if TYPE_CHECKING:
    from ..run import RunReport
    from .run import JudgePlan

__all__ = ["JudgeRow", "JuryProtocol", "JurySummary", "summarize_jury"]

#: Bootstrap resamples of the alpha CIs.
ALPHA_RESAMPLES = 1000


@dataclass(frozen=True)
class JudgeRow:
    """One judge on one protocol.

    Attributes:
        weight: its weight in the jury.
        accuracy: over labelled items it decided.
        items_failed: items without its decision.
        first_shown_rate: share of its decisive calls picking the response (candidate)
            shown first, in [0, 1] (unbiased: 0.5 pairwise, 1/N listwise); None without
            decisive calls.
        flip_rate: share of its decided items whose decision moved with the shown order
            (pairwise: the two orders disagree; listwise: the top pick differs across the
            permutations); None when no item had several orders.
        disagreement: share of items both it and the jury decided where its decision is not
            the jury's; n_with_jury: those items.
        length_bias: how often its decision picks the longest candidate (None: the jury's
            records carry no lengths, written before they did).
    """

    weight: float
    accuracy: AccuracyResult
    items_failed: int
    first_shown_rate: float | None
    flip_rate: float | None
    disagreement: float | None
    n_with_jury: int
    length_bias: LengthBias | None = None


@dataclass(frozen=True)
class JuryProtocol:
    """The jury on one protocol (see the module docstring); ``length_bias``: the jury's
    decisions' (None: records without lengths)."""

    judges: dict[str, JudgeRow]
    jury: AccuracyResult
    jury_items_failed: int
    mean_judge: AccuracyResult
    best_judge: str | None
    vs_best: PairedComparison | None
    vs_mean: PairedComparison | None
    alpha_nominal: AlphaResult | None
    alpha_interval: AlphaResult | None
    pairwise_alpha: dict[str, Any]
    most_disagreeing: str | None
    notes: dict[str, str] = field(default_factory=dict)
    length_bias: LengthBias | None = None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if v is not None}


@dataclass(frozen=True)
class JurySummary:
    """A jury run's summary.json."""

    task: str
    dataset: str
    n_items: int
    judges: dict[str, dict[str, Any]]
    protocols: dict[str, JuryProtocol]
    simulated: bool

    def to_json(self) -> dict[str, Any]:
        return {"schema": 1, "kind": "jury", "task": self.task, "dataset": self.dataset,
                "n_items": self.n_items, "simulated": self.simulated, "judges": self.judges,
                "protocols": {p: s.to_json() for p, s in self.protocols.items()}}


def _decision(view: dict[str, Any], task: str) -> str | None:
    """A judge's (or the jury's) decision as a nominal label; None when failed."""
    if view.get("failed"):
        return None
    if task == "pairwise":
        return view.get("verdict")
    winners = view.get("winners") or []
    return ",".join(map(str, winners)) if winners else None


def _first_shown(views: Sequence[dict[str, Any]], task: str) -> float | None:
    shown = first = 0
    for v in views:
        if task == "pairwise":
            for s in v.get("shown_verdicts") or ():
                if s in ("A", "B"):
                    shown += 1
                    first += s == "A"
        else:
            for pos in v.get("top_positions") or ():
                shown += 1
                first += pos == 0
    return first / shown if shown else None


def _flip_rate(views: Sequence[dict[str, Any]], task: str) -> float | None:
    several = [v for v in views if not v.get("failed") and (
        v.get("consistent") is not None if task == "pairwise"
        else len(v.get("top_picks") or ()) > 1)]
    if not several:
        return None
    return sum(bool(v.get("flipped")) for v in several) / len(several)




def _length_bias(records: list[dict[str, Any]], task: str,
                 judge: str | None = None) -> LengthBias | None:
    """The length bias of the jury's decisions (``judge`` None) or one judge's; None when the
    records carry no lengths."""
    if not any(r.get("lengths") for r in records):
        return None
    tally = LengthTally()
    for r in records:
        add_length(tally, task, r if judge is None else r["judges"][judge], r.get("lengths"),
                   r.get("gold") if task == "listwise" else r.get("label"))
    return tally.result()


def _alpha(rows: list[list[float]], level: str, seed: int) -> AlphaResult | str:
    """Krippendorff's alpha of a (judges x units) matrix (NaN missing), or why none."""
    if len(rows) < 2:
        return "one judge: agreement needs two raters"
    data = np.array(rows, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateAlphaWarning)
        try:
            result = krippendorff_alpha(data, level=level,  # type: ignore[arg-type]
                                        n_resamples=ALPHA_RESAMPLES, seed=seed)
        except InsufficientRatingsError as exc:
            return str(exc)
    if result.n_units < MIN_UNITS_FOR_CI:  # a bootstrap of 1-4 items is no interval
        nan = float("nan")
        return dataclasses.replace(result, confidence_interval=ConfidenceInterval(nan, nan))
    return result


def _compare(a: dict[str, float | None], b: dict[str, float | None], seed: int
             ) -> PairedComparison | str:
    try:
        return paired_comparison(a, b, seed=seed)
    except ValueError as exc:
        return str(exc)


def _protocol(records: list[dict[str, Any]], names: list[str], task: str,
              seed: int) -> JuryProtocol:
    notes: dict[str, str] = {}
    keys = [r["item_id"] for r in records]
    jury_credit = {r["item_id"]: r["credit"] for r in records}
    credits = {n: {r["item_id"]: r["judges"][n]["credit"] for r in records} for n in names}
    mean_credit: dict[str, float | None] = {}
    for k in keys:
        got = [credits[n][k] for n in names if credits[n][k] is not None]
        mean_credit[k] = sum(got) / len(got) if got else None
    rows: dict[str, JudgeRow] = {}
    for n in names:
        views = [r["judges"][n] for r in records]
        both = [(d, _decision(r, task)) for r, d in
                ((r, _decision(r["judges"][n], task)) for r in records)
                if d is not None and _decision(r, task) is not None]
        rows[n] = JudgeRow(
            weight=views[0]["weight"] if views else 0.0,
            accuracy=accuracy([credits[n][k] for k in sorted(credits[n])], seed=seed),
            items_failed=sum(bool(v["failed"]) for v in views),
            first_shown_rate=_first_shown(views, task), flip_rate=_flip_rate(views, task),
            disagreement=sum(a != b for a, b in both) / len(both) if both else None,
            n_with_jury=len(both), length_bias=_length_bias(records, task, n))
    jury_acc = accuracy([jury_credit[k] for k in sorted(jury_credit)], seed=seed)
    mean_acc = accuracy([mean_credit[k] for k in sorted(mean_credit)], seed=seed)
    ranked = [n for n in names if not math.isnan(rows[n].accuracy.accuracy)]
    best = max(ranked, key=lambda n: rows[n].accuracy.accuracy) if ranked else None
    vs_best: PairedComparison | None = None
    vs_mean: PairedComparison | None = None
    if best is not None and not math.isnan(jury_acc.accuracy):
        for note, base in (("vs_best", credits[best]), ("vs_mean", mean_credit)):
            compared = _compare(base, jury_credit, seed)
            if isinstance(compared, str):
                notes[note] = compared
            elif note == "vs_best":
                vs_best = compared
            else:
                vs_mean = compared
    else:
        notes["vs_best"] = "no labelled item decided: no accuracy to compare"
    # the judges as raters
    labels: dict[str, int] = {}
    nominal = []
    for n in names:
        row = []
        for r in records:
            d = _decision(r["judges"][n], task)
            row.append(math.nan if d is None else float(labels.setdefault(d, len(labels))))
        nominal.append(row)
    nominal_alpha = _alpha(nominal, "nominal", seed)
    alpha_nominal = nominal_alpha if isinstance(nominal_alpha, AlphaResult) else None
    if isinstance(nominal_alpha, str):
        notes["alpha_nominal"] = nominal_alpha
    alpha_interval: AlphaResult | None = None
    if task == "listwise":
        interval = []
        for n in names:
            row = []
            for r in records:
                size = max((len(r["judges"][m].get("combined") or ()) for m in names),
                           default=0)
                c = r["judges"][n].get("combined")
                row.extend([math.nan] * size if not c else [float(x) for x in c])
            interval.append(row)
        interval_alpha = _alpha(interval, "interval", seed)
        if isinstance(interval_alpha, str):
            notes["alpha_interval"] = interval_alpha
        else:
            alpha_interval = interval_alpha
    scores = {n: {k: v for k, v in zip(keys, row)} for n, row in zip(names, nominal)}
    matrix = pairwise_alpha(scores, level="nominal", min_common=2)
    order = {n: i for i, n in enumerate(matrix.raters)}
    pair = {"raters": names, "level": "nominal",
            "matrix": [[_finite(matrix.matrix[order[a], order[b]]) for b in names]
                       for a in names],
            "n_common": [[int(matrix.n_common[order[a], order[b]]) for b in names]
                         for a in names]}
    disagreeing = [n for n in names if rows[n].disagreement is not None]
    most = max(disagreeing, key=lambda n: rows[n].disagreement or 0.0) if disagreeing else None
    return JuryProtocol(rows, jury_acc, sum(bool(r["failed"]) for r in records), mean_acc,
                        best, vs_best, vs_mean, alpha_nominal, alpha_interval,
                        pair, most, notes, _length_bias(records, task))


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _judge_totals(plan: JudgePlan, report: RunReport[Any]) -> dict[str, Any]:
    """A judge's whole-run figures (every session: its run.json totals) and this session's
    model calls."""
    totals = (read_manifest(plan.out / "run.json") or {}).get("totals") or {}
    return {"model": plan.config.model, "weight": plan.juror.weight,
            "simulated": report.simulated, "label": report.judge,
            "out": str(plan.out), "status": report.status,
            "model_calls": int(totals.get("model_calls", 0)),
            "cache_hits": int(totals.get("cache_hits", 0)),
            "prompt_tokens": int(totals.get("prompt_tokens", 0)),
            "completion_tokens": int(totals.get("completion_tokens", 0)),
            "usd": report.cost_usd,
            "model_calls_this_session": report.totals.model_calls}


def summarize_jury(records: list[dict[str, Any]], plans: Sequence[JudgePlan],
                   reports: dict[str, RunReport[Any]], *, task: str, seed: int,
                   dataset: str) -> JurySummary:
    """The jury's summary from its items.jsonl records (:func:`~.combine.combine`) and the
    judges' run reports."""
    names = [p.juror.label for p in plans]
    protocols: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        protocols.setdefault(r["protocol"], []).append(r)
    n_items = len({r["item_id"] for r in records})
    return JurySummary(
        task=task, dataset=dataset, n_items=n_items,
        judges={p.juror.label: _judge_totals(p, reports[p.juror.label]) for p in plans},
        protocols={p: _protocol(rs, names, task, seed) for p, rs in protocols.items()},
        simulated=all(r.simulated for r in reports.values()))
