"""Selective judging and cascades on recorded judgments (Trust or Escalate, Jung et al., ICLR
2025, arXiv 2407.18370, sections 3.1-3.2), with no model call.

A seeded share of a group's items is the calibration set; there each candidate confidence
signal (:mod:`.confidence`) gets its threshold by
:func:`jurybox.stats.selective.calibrate_threshold` with an equal share of ``delta`` (a union
bound, so that the signal chosen afterwards keeps the guarantee), and the signal accepting the
most calibration items is chosen. The rest of the items are the test set: the chosen rule
accepts or abstains on each, and the realized agreement of the accepted ones is reported with
its CI.

A cascade (section 3.2) tries its stages cheapest first: a stage's threshold is calibrated, with
``delta / stages``, on the calibration items no earlier stage accepted; an item goes to the next
stage when its confidence at this one falls short, and is abstained on when the last falls short.
With ``rule="joint"`` the stages' thresholds are chosen together instead, at the full delta, for
the cascade's accepted verdicts as a whole (:mod:`jurybox.stats.joint_cascade`); with
``rule="auto"`` both are calibrated, each at ``delta / 2`` (a union bound), and the one
accepting more calibration items is used (a tie: the one sending fewer to the last stage).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..stats.joint_cascade import JointCalibration, calibrate_cascade, cascade_stage_of
from ..stats.selective import (Calibration, SelectiveOutcome, SelectiveResult, calibrate_on,
                               check_shares, choose_signal, selective_outcome, split_items)
from .confidence import Signal, SignalTable, named_signal, signal_table
from .model import Recording

__all__ = ["CASCADE_RULES", "CascadeResult", "SelectiveResult", "StageResult", "cascade_split",
           "selective_sets", "selective_split", "stage_signal"]


def selective_split(table: SignalTable, *, target: float, delta: float,
                    calibration_share: float = 0.5, seed: int = 0,
                    signals: Sequence[str] | None = None) -> SelectiveResult:
    """Calibrate on a seeded share of ``table``'s items, choose the signal accepting the most
    calibration items, and apply it to the rest.

    Args:
        table: from :func:`jurybox.recorded.confidence.signal_table`.
        target: the agreement to guarantee, in (0, 1).
        delta: the probability that the guarantee fails, in (0, 1).
        calibration_share: the share of items calibrated on, in (0, 1).
        seed: the split's seed.
        signals: the signals to choose from (default: all of ``table``'s).

    Raises:
        ValueError: an unknown signal, or as :func:`split_items` and
            :func:`~jurybox.stats.selective.calibrate_threshold`.
    """
    names = list(signals or table.signals)
    found = {s: named_signal(table, s) for s in names}
    unknown = [s for s, sig in found.items() if sig is None]
    if unknown:
        raise ValueError(f"unknown signal(s) {', '.join(unknown)}; this group has "
                         f"{', '.join(table.signals)}"
                         f"{' (and lex:JUDGE when named)' if len(table.judges) > 1 else ''}")
    known = {s: sig for s, sig in found.items() if sig is not None}
    cal, test = split_items(table.n, calibration_share, seed)
    rules, best = choose_signal({s: (sig.confidence, sig.agree) for s, sig in known.items()},
                                cal, target=target, delta=delta)
    chosen = best if rules[best].certified else None
    sig = known[best]
    outcome = selective_outcome(rules[best], sig.confidence[test], sig.agree[test])
    return SelectiveResult(table.subset, table.strategy, target, delta, chosen, rules, len(cal),
                           outcome, len(sig.judges) * table.orders if chosen else 0)


def stage_signal(table: SignalTable, stage: str) -> Signal:
    """A cascade stage's signal: a judge (``GPT-4``: ``order:GPT-4``), a signal's name
    (:func:`~jurybox.recorded.confidence.named_signal`: ``lex:GPT-4`` too), or a jury of some
    judges (``ChatGPT+LLaMA2+PaLM2``: their ``jury``).

    Raises:
        ValueError: a judge or signal the table does not have.
    """
    judges = list(dict.fromkeys(j.strip() for j in stage.split("+")))  # each judge once
    if len(judges) == 1 and f"order:{judges[0]}" in table.signals:
        return table.signals[f"order:{judges[0]}"]
    signal = named_signal(table, stage)
    if signal is not None:
        return signal
    raise ValueError(f"cascade stage {stage!r}: not a judge of {table.subset} "
                     f"({', '.join(table.judges)}), a signal, or a jury a+b")


@dataclass(frozen=True)
class StageResult:
    """One stage of a cascade on the test items.

    Attributes:
        stage: its name. rule: its calibration (``delta / stages``, on the calibration items
            no earlier stage accepted; with the joint rule, its threshold of the joint
            calibration and its calibration items, no bound of its own). reached: test items
            that reached it. accepted:
            those it accepted. agree: of those, agreeing with the label. calls: judge calls
            its reached items cost (its judges x orders each).
    """

    stage: str
    rule: Calibration
    reached: int
    accepted: int
    agree: int
    calls: int


@dataclass(frozen=True)
class CascadeResult:
    """A cascade on one group's split.

    Attributes:
        stages: per stage, cheapest first. test: the whole cascade on the test items
            (accepted at any stage; ``agreement`` over all accepted).
        n_calibration: calibration items.
        rule: ``"per-stage"`` (each stage at ``delta / stages``) or ``"joint"``.
        joint: the joint calibration (``rule="joint"``), else None.
    """

    subset: str
    strategy: str
    target: float
    delta: float
    stages: tuple[StageResult, ...]
    n_calibration: int
    test: SelectiveOutcome
    rule: str = "per-stage"
    joint: JointCalibration | None = None

    def share_reaching(self, stage: int) -> float:
        """The share of test items that reached stage ``stage`` (0-based)."""
        return self.stages[stage].reached / self.test.n if self.test.n else 0.0


CASCADE_RULES = ("per-stage", "joint", "auto")


def _check_rule(rule: str) -> None:
    if rule not in CASCADE_RULES:
        raise ValueError(f"the cascade rule is per-stage, joint or auto, got {rule!r:.40}")


def cascade_split(table: SignalTable, stages: Sequence[str], *, target: float, delta: float,
                  calibration_share: float = 0.5, seed: int = 0,
                  rule: str = "per-stage") -> CascadeResult:
    """Calibrate each stage on what the earlier ones left (``rule="per-stage"``), every
    stage together (``"joint"``) or both at ``delta / 2``, keeping the one accepting more
    calibration items (``"auto"``), then run the cascade on the test items (module
    docstring). The result's ``rule`` is the one used.

    Raises:
        ValueError: fewer than one stage, an unknown rule, and as :func:`stage_signal`,
            :func:`split_items`.
    """
    if not stages:
        raise ValueError("a cascade needs at least one stage")
    _check_rule(rule)
    signals = [stage_signal(table, s) for s in stages]
    cal, test = split_items(table.n, calibration_share, seed)
    if rule == "auto":
        both = [_joint_split(table, stages, signals, cal, test, target=target, delta=delta / 2),
                _stage_split(table, stages, signals, cal, test, target=target, delta=delta / 2)]
        best = max(both, key=lambda r: (sum(s.rule.n_accepted for s in r.stages),
                                        -r.stages[-1].rule.n_calibration))
        return replace(best, delta=delta)
    if rule == "joint":
        return _joint_split(table, stages, signals, cal, test, target=target, delta=delta)
    return _stage_split(table, stages, signals, cal, test, target=target, delta=delta)


def _stage_split(table: SignalTable, stages: Sequence[str], signals: Sequence[Signal],
                 cal: np.ndarray, test: np.ndarray, *, target: float, delta: float
                 ) -> CascadeResult:
    share = delta / len(signals)
    left_cal, left_test = cal, test
    results = []
    taken = agreeing = 0
    for name, sig in zip(stages, signals):
        calibrated = calibrate_on(sig.confidence, sig.agree, left_cal, target=target,
                                  delta=share)
        if calibrated.certified:
            left_cal = left_cal[~(sig.confidence[left_cal] >= calibrated.threshold)]
            accepted = sig.confidence[left_test] >= calibrated.threshold
        else:
            accepted = np.zeros(len(left_test), bool)
        acc_idx = left_test[accepted]
        n_ok = int(sig.agree[acc_idx].sum())
        results.append(StageResult(name, calibrated, len(left_test), len(acc_idx), n_ok,
                                   len(left_test) * len(sig.judges) * table.orders))
        taken, agreeing = taken + len(acc_idx), agreeing + n_ok
        left_test = left_test[~accepted]
    outcome = SelectiveOutcome.of(len(test), taken, agreeing)
    return CascadeResult(table.subset, table.strategy, target, delta, tuple(results), len(cal),
                         outcome)


def _joint_split(table: SignalTable, stages: Sequence[str], signals: Sequence[Signal],
                 cal: np.ndarray, test: np.ndarray, *, target: float, delta: float
                 ) -> CascadeResult:
    conf, agree = [s.confidence for s in signals], [s.agree for s in signals]
    joint = calibrate_cascade(conf, agree, cal, target=target, delta=delta)
    at_cal = cascade_stage_of(conf, joint.thresholds, cal)
    at_test = cascade_stage_of(conf, joint.thresholds, test)
    results, reached_cal, reached = [], len(cal), len(test)
    for s, (name, sig) in enumerate(zip(stages, signals)):
        taken_cal = cal[at_cal == s]
        rule = Calibration(target, delta, joint.thresholds[s], reached_cal, len(taken_cal),
                           int((~sig.agree[taken_cal]).sum()), None, ())
        taken = test[at_test == s]
        results.append(StageResult(name, rule, reached, len(taken), int(sig.agree[taken].sum()),
                                   reached * len(sig.judges) * table.orders))
        reached_cal, reached = reached_cal - len(taken_cal), reached - len(taken)
    outcome = SelectiveOutcome.of(len(test), sum(r.accepted for r in results),
                                  sum(r.agree for r in results))
    return CascadeResult(table.subset, table.strategy, target, delta, tuple(results), len(cal),
                         outcome, "joint", joint)


def _names(text: str, what: str) -> list[str]:
    """A comma list's names, each once, in order.

    Raises:
        ValueError: no name, or a name given twice.
    """
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError(f"the {what} names nothing: give names, comma-separated")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"the {what} names {', '.join(twice)} twice: give each once")
    return names


def _signals_of(table: SignalTable, signal: str | None) -> list[str]:
    if signal is None:
        return ["jury"] if "jury" in table.signals else list(table.signals)
    if signal == "auto":
        return list(table.signals)
    return _names(signal, "signal list")


def _judges_needed(names: Sequence[str], judges: Sequence[str]) -> list[str]:
    """The judges the signals or cascade stages ``names`` read (all for a jury)."""
    needed: list[str] = []
    for name in names:
        kind, _, rest = name.partition(":")
        if kind in ("order", "probability") and rest:
            parts = [rest]
        elif kind in ("jury", "lex"):  # the jury, or a judge backed by it: every judge
            return list(judges)
        else:
            parts = [p.strip() for p in name.split("+")]
        needed += [p for p in parts if p not in needed]
    return needed


def selective_sets(recordings: Sequence[Recording], *, target: float, delta: float = 0.1,
                   calibration_share: float = 0.5, seed: int = 0, signal: str | None = None,
                   cascade: Sequence[str] | str | None = None,
                   weights: dict[str, float] | None = None, cascade_rule: str = "per-stage"
                   ) -> tuple[list[SelectiveResult | CascadeResult], list[str]]:
    """Selective judging (or a cascade) on each (subset, strategy) of ``recordings``.

    Args:
        recordings: any recordings; grouped by (subset, strategy), each group's judges
            judging the same items.
        target: the agreement to guarantee, in (0, 1).
        delta: the probability that the guarantee fails, in (0, 1).
        calibration_share: the share of each group's items calibrated on, in (0, 1).
        seed: the calibration split's seed.
        signal: None (``jury`` where a group has several judges, else its judge's
            ``order:``), ``"auto"`` (every signal, delta split between them), or signal
            names, comma-separated (delta split between them).
        cascade: stage names, cheapest first (:func:`stage_signal`), a list or a comma
            list; instead of ``signal``.
        weights: judge -> weight of the ``jury`` signals (judges not named weigh 1).
        cascade_rule: ``"per-stage"`` or ``"joint"`` (:func:`cascade_split`).

    A group is judged on the items every judge it needs judged: with named signals or
    stages, only the judges they read (``order:A`` keeps every item A judged).

    Returns:
        (one result per group that has what was asked for, one line per group that has not:
        e.g. a cascade stage's judge missing from it).

    Raises:
        ValueError: both ``signal`` and ``cascade``; a setting out of range; a signal list
            or cascade naming nothing or a name twice; no group with what was asked for;
            with neither, a group that cannot be judged selectively (too few items, no
            label); as :func:`selective_split`.
    """
    if signal is not None and cascade is not None:
        raise ValueError("give a signal or a cascade, not both (a cascade's stages are its "
                         "judges' signals)")
    _check_rule(cascade_rule)
    if cascade_rule != "per-stage" and cascade is None:
        raise ValueError(f"the cascade rule {cascade_rule!r} is how a cascade is calibrated: "
                         f"give a cascade too")
    check_shares(target=target, delta=delta, calibration_share=calibration_share)
    if isinstance(cascade, str):
        cascade = _names(cascade, "cascade")
    elif cascade is not None:
        cascade = _names(",".join(cascade), "cascade")
    asked = cascade if cascade is not None else (
        None if signal in (None, "auto") else _names(str(signal), "signal list"))
    groups: dict[tuple[str, str], list[Recording]] = {}
    for r in recordings:
        groups.setdefault((r.subset, r.strategy), []).append(r)
    results: list[SelectiveResult | CascadeResult] = []
    skipped: list[str] = []
    for (subset, strategy), group in groups.items():
        try:
            if asked is not None:  # only the judges asked for: items the others skipped stay
                needed = _judges_needed(asked, sorted({r.judge for r in group}))
                group = [r for r in group if r.judge in needed] or group
            table = signal_table(group, weights=weights)
            if cascade is not None:
                results.append(cascade_split(table, cascade, target=target, delta=delta,
                                             calibration_share=calibration_share, seed=seed,
                                             rule=cascade_rule))
            else:
                results.append(selective_split(table, target=target, delta=delta,
                                               calibration_share=calibration_share, seed=seed,
                                               signals=_signals_of(table, signal)))
        except ValueError as exc:
            if cascade is None and signal is None:
                raise ValueError(f"{subset} {strategy}: {exc}") from None
            skipped.append(f"{subset} {strategy}: {exc}")
    if not results and skipped:
        raise ValueError(f"no set has what was asked for: {skipped[0]}")
    return results, skipped
