"""Per-item judgments of candidates without gold: typed results, their files and summary.

One :class:`ItemJudgment` per item, built from the item's items.jsonl record (the decision the
run engine wrote), written to ``judgments.jsonl`` (one object a line) and ``judgments.csv``
(one row an item; list fields joined by ``;``). Nothing here makes a model call.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..compare.summary import BenchSummary
from ..errors import discard, write_error
from ..parsing.verdict_probability import verdict_token_probability
from ..protocols.pairwise import orders_disagree
from ..stats.accuracy import accuracy
from ..stats.interval import ConfidenceInterval

__all__ = ["ItemJudgment", "JudgeSummary", "PairwiseOutcome", "judgment_of", "pairwise_outcome",
           "write_judgments", "read_judgments", "CSV_COLUMNS",
           "JUDGMENTS_SCHEMA"]

JUDGMENTS_SCHEMA = 1


@dataclass(frozen=True)
class ItemJudgment:
    """One item's judgment.

    Attributes:
        item_id, protocol: what was judged, how; task: ``listwise`` or ``pairwise``.
        winners: indices (0-based, into the item's candidates as given) of the winning
            candidates: PCF's winner set (C_i within the tolerance of the best), a pairwise
            verdict's response (``(0,)`` for A, ``(1,)`` for B, ``(0, 1)`` for a tie); empty
            when the item failed.
        verdict: pairwise: ``"A"``, ``"B"``, ``"tie"`` or None (failed); listwise: None.
        combined: listwise: C_i per candidate, 0-100 (PCF's consensus score,
            arXiv 2603.20562 Sec. 3); None for pairwise or a failed item.
        components: listwise: C_i's components per candidate: ``mean`` (mean score 0-100),
            ``borda`` (0-100), ``vote`` (top-set vote share 0-1), ``uncertainty``
            (calibrated-uncertainty share 0-1).
        top_picks: listwise: per successful permutation, the candidate it ranked first;
            pairwise: per call, the verdict in terms of the original responses (None: the
            call failed).
        agreement: per successful permutation (pairwise: per call with a verdict), whether
            its pick agrees with the final pick (top pick among the winners; same verdict).
        agreement_rate: mean of ``agreement`` in [0, 1]; None when nothing agreed or not.
        flipped: the order changed the judge's answer: listwise, the top picks differ across
            permutations; pairwise, a call and the call showing the pair in the reverse order
            gave different verdicts (:func:`~jurybox.protocols.pairwise.orders_disagree`; the
            report's "flipped" too). False for one call.
        failed: no decision (every needed call failed: API error, unparseable, refusal).
        failures: failure kinds of the calls that failed (``api``, ``parse``, ``refusal``).
        n_calls, n_ok: calls asked, calls with a usable answer; k: orders planned (listwise);
            stop: why asking ended (``all``, ``settled``, ``sequential``; listwise).
        gold: listwise: gold indices when the item had them (empty: unlabelled); pairwise:
            the label (``A>B``, ``B>A``, or ``""``).
        credit: share of winners that are gold (pairwise: 1, 0.5 for a tie, 0), in [0, 1];
            None when unlabelled or failed.
        token_probability: pairwise, asked with log-probabilities: the verdict's mean token
            probability over the item's calls
            (:func:`~jurybox.parsing.verdict_probability.verdict_token_probability`), in
            [0, 1]; None otherwise (and then left out of :meth:`to_json`).
    """

    item_id: str
    protocol: str
    task: str
    winners: tuple[int, ...]
    verdict: str | None
    combined: tuple[float, ...] | None
    components: dict[str, tuple[float, ...]] | None
    top_picks: tuple[Any, ...]
    agreement: tuple[bool, ...]
    agreement_rate: float | None
    flipped: bool
    failed: bool
    failures: tuple[str, ...]
    n_calls: int
    n_ok: int
    k: int | None = None
    stop: str | None = None
    gold: Any = ()
    credit: float | None = None
    token_probability: float | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if data["token_probability"] is None:
            del data["token_probability"]
        return {"schema": JUDGMENTS_SCHEMA, **data}


_PAIRWISE_WINNERS = {"A": (0,), "B": (1,), "tie": (0, 1)}


def judgment_of(record: dict[str, Any]) -> ItemJudgment:
    """The judgment in an items.jsonl record (a listwise or pairwise decision)."""
    common = dict(item_id=str(record["item_id"]), protocol=record["protocol"],
                  failed=bool(record.get("failed", record.get("credit") is None)),
                  failures=tuple(record.get("failures", ())), n_calls=record["n_calls"],
                  n_ok=record["n_ok"], credit=record.get("credit"))
    if "top_picks" in record:  # listwise
        winners = tuple(record["winners"])
        picks = tuple(record["top_picks"])
        agree = tuple(p in winners for p in picks)
        return ItemJudgment(task="listwise", winners=winners, verdict=None,
                            combined=None if record.get("combined") is None
                            else tuple(record["combined"]),
                            components={k: tuple(v) for k, v in record["components"].items()}
                            if record.get("components") else None,
                            top_picks=picks, agreement=agree,
                            agreement_rate=sum(agree) / len(agree) if agree else None,
                            flipped=len(set(picks)) > 1, k=record.get("k"),
                            stop=record.get("stop"), gold=tuple(record.get("gold", ())),
                            **common)
    verdict = record["verdict"]
    calls = tuple(record["call_verdicts"])
    decided = [v for v in calls if v is not None]
    agree = tuple(v == verdict for v in decided) if verdict is not None else ()
    return ItemJudgment(task="pairwise", winners=_PAIRWISE_WINNERS.get(verdict, ()),
                        verdict=verdict, combined=None, components=None, top_picks=calls,
                        agreement=agree, agreement_rate=sum(agree) / len(agree) if agree
                        else None, flipped=orders_disagree(record["call_ids"],
                                                           record["shown_first"], calls),
                        gold=record.get("label", ""), token_probability=verdict_token_probability(
                            verdict, calls, record.get("call_probabilities") or ()),
                        **common)


#: judgments.csv columns, in order; lists are joined with ";" (empty: none).
CSV_COLUMNS = ("item_id", "protocol", "task", "winners", "verdict", "combined", "mean",
               "borda", "vote", "uncertainty", "top_picks", "agreement_rate", "flipped",
               "failed", "failures", "n_calls", "n_ok", "k", "stop", "gold", "credit")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ";".join("" if v is None else _cell(v) for v in value)
    return str(value)


def _row(j: ItemJudgment) -> list[str]:
    parts = j.components or {}
    values = {**asdict(j), **{k: parts.get(k) for k in ("mean", "borda", "vote", "uncertainty")}}
    return [_cell(values[c]) for c in CSV_COLUMNS]


def write_judgments(judgments: Iterable[ItemJudgment], out: Path) -> tuple[Path, Path]:
    """Write ``judgments.jsonl`` and ``judgments.csv`` into ``out`` (each atomically: a
    temporary file renamed into place), one item at a time.

    Returns:
        The two paths.

    Raises:
        RunWriteError: a file cannot be written (a full disk, a read-only folder); no
            temporary file is left, and rerunning writes both.
    """
    jsonl, table = out / "judgments.jsonl", out / "judgments.csv"
    tmp_jsonl, tmp_csv = jsonl.with_suffix(".jsonl.tmp"), table.with_suffix(".csv.tmp")
    target = jsonl
    try:
        with tmp_jsonl.open("w", encoding="utf-8") as fj, \
                tmp_csv.open("w", encoding="utf-8", newline="") as fc:
            writer = csv.writer(fc)
            writer.writerow(CSV_COLUMNS)
            for j in judgments:
                fj.write(json.dumps(j.to_json(), ensure_ascii=False) + "\n")
                writer.writerow(_row(j))
        os.replace(tmp_jsonl, jsonl)
        target = table
        os.replace(tmp_csv, table)
    except OSError as exc:
        discard(tmp_jsonl)
        discard(tmp_csv)
        raise write_error(target, exc) from None
    return jsonl, table


def read_judgments(path: Path) -> Iterator[ItemJudgment]:
    """The judgments in a ``judgments.jsonl`` file."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                d = json.loads(line)
                d.pop("schema", None)
                for name in ("winners", "top_picks", "agreement", "failures"):
                    d[name] = tuple(d[name])
                if d["combined"] is not None:
                    d["combined"] = tuple(d["combined"])
                if d["components"] is not None:
                    d["components"] = {k: tuple(v) for k, v in d["components"].items()}
                if isinstance(d["gold"], list):
                    d["gold"] = tuple(d["gold"])
                yield ItemJudgment(**d)


@dataclass(frozen=True)
class PairwiseOutcome:
    """How candidate 0 (response A as given in the input) fared over a pairwise judge run.

    Attributes:
        won, lost, tied: decided items whose verdict was A, B, tie.
        failed: items without a decision (never counted as a tie or a loss).
        win_rate: (won + tied / 2) / decided, in [0, 1] (a tie counts half, as in
            AlpacaEval's and Chatbot Arena's win rates); NaN when nothing was decided.
        confidence_interval: 95% percentile bootstrap CI of ``win_rate`` over decided items
            (:func:`jurybox.stats.accuracy`); NaN bounds under 2 decided items.
    """

    won: int
    lost: int
    tied: int
    failed: int
    win_rate: float
    confidence_interval: ConfidenceInterval

    @property
    def decided(self) -> int:
        return self.won + self.lost + self.tied

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.confidence_interval
        return {"won": self.won, "lost": self.lost, "tied": self.tied, "failed": self.failed,
                "decided": self.decided, "win_rate": _finite(self.win_rate),
                "confidence_interval": [_finite(lo), _finite(hi)]}


def _finite(x: float) -> float | None:
    return None if x != x else x  # NaN: null in JSON


_CANDIDATE_0_CREDIT = {"A": 1.0, "tie": 0.5, "B": 0.0}


def pairwise_outcome(verdicts: Iterable[str | None], *, seed: int = 0) -> PairwiseOutcome:
    """Candidate 0's wins, losses and ties over items' final verdicts, with its win rate.

    Args:
        verdicts: per item ``"A"`` (candidate 0 better), ``"B"``, ``"tie"``, or None (the
            item failed: excluded from the rate and counted in ``failed``).
        seed: bootstrap seed (the run's seed, so the CI is reproducible).

    Raises:
        ValueError: a verdict other than those.

    >>> o = pairwise_outcome(["A", "A", "B", "tie", None])
    >>> (o.won, o.lost, o.tied, o.failed, o.win_rate)
    (2, 1, 1, 1, 0.625)
    """
    verdicts = list(verdicts)
    unknown = {v for v in verdicts if v is not None and v not in _CANDIDATE_0_CREDIT}
    if unknown:
        raise ValueError(f"unknown pairwise verdict(s): {', '.join(sorted(map(str, unknown)))}")
    result = accuracy([None if v is None else _CANDIDATE_0_CREDIT[v] for v in verdicts],
                      seed=seed)
    return PairwiseOutcome(won=verdicts.count("A"), lost=verdicts.count("B"),
                           tied=verdicts.count("tie"), failed=verdicts.count(None),
                           win_rate=result.accuracy,
                           confidence_interval=result.confidence_interval)


@dataclass(frozen=True)
class JudgeSummary:
    """A judge run's summary.json: the bench summary of its one protocol (accuracy counts
    only labelled items; order diagnostics as for a bench) plus what judging unlabelled
    candidates needs.

    Attributes:
        bench: the one-protocol bench summary.
        protocol: the protocol's name; label: as tables show it (``pcf (exact)``).
        n_items, n_failed, n_labelled: items; without a decision; with gold.
        flip_rate: share of decided items whose picks differ across permutations / orders
            (items with one call count as not flipped); None when none was decided.
        mean_agreement: mean over decided items of their agreement rate; None when none.
        outcome: pairwise protocols: candidate 0's wins, losses and ties with its win rate
            (:class:`PairwiseOutcome`); None for listwise ones.
    """

    bench: BenchSummary
    protocol: str
    label: str
    n_items: int
    n_failed: int
    n_labelled: int
    flip_rate: float | None
    mean_agreement: float | None
    outcome: PairwiseOutcome | None = None

    def to_json(self) -> dict[str, Any]:
        return {**self.bench.to_json(), "kind": "judge",
                "judge": {"protocol": self.protocol, "label": self.label,
                          "n_items": self.n_items, "n_failed": self.n_failed,
                          "n_labelled": self.n_labelled, "flip_rate": self.flip_rate,
                          "mean_agreement": self.mean_agreement,
                          **({"outcome": self.outcome.to_json()} if self.outcome else {})}}

    def noise_warnings(self) -> tuple[str, ...]:
        """A simulated judge's run with items without gold: one sentence saying its verdicts
        on them are noise (:func:`~jurybox.run.sim_notes.unlabelled_warning`); else ()."""
        from ..run.sim_notes import unlabelled_warning

        unlabelled = self.n_items - self.n_labelled
        if not self.bench.simulated or unlabelled <= 0:
            return ()
        return (unlabelled_warning(unlabelled, self.n_items),)
