"""``jurybox score ... --target-agreement``: selective judging and cascades on recorded
judgments (:mod:`jurybox.recorded.selective`), as terminal tables and summary.json
``selective``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

from rich.table import Table

from ..errors import ConfigError
from ..terminal import data, safe_text
from ._common import console
from ._compose import OptionGroup
from ._fit import print_table
from ._declared import declared
from ._tables import pct

if TYPE_CHECKING:
    from ..recorded import Recording
    from ..recorded.selective import CascadeResult, SelectiveResult

__all__ = ["SelectiveFlags", "SelectiveOptions", "after_run", "check_cascade_rule",
           "not_selectable", "print_run_selective", "print_selective", "report_selective",
           "selective_for", "titled"]


TargetOpt = Annotated[Optional[float], declared("--target-agreement")]
DeltaOpt = Annotated[float, declared("--delta")]
ShareOpt = Annotated[float, declared("--calibration-share")]
SplitSeedOpt = Annotated[int, declared("--split-seed")]
SignalOpt = Annotated[Optional[str], declared("--signal")]
CascadeOpt = Annotated[Optional[str], declared("--cascade")]
CascadeRuleOpt = Annotated[str, declared("--cascade-rule")]

#: --cascade-rule's values (jurybox.recorded.selective.CASCADE_RULES; a test keeps them equal)
CASCADE_RULES = ("per-stage", "joint", "auto")


def check_cascade_rule(rule: str) -> None:
    """Raises ConfigError: ``rule`` is not one of :data:`CASCADE_RULES`."""
    if rule not in CASCADE_RULES:
        raise ConfigError(f"--cascade-rule is {', '.join(CASCADE_RULES)}, got {rule!r:.40}")


@dataclass(frozen=True)
class SelectiveFlags(OptionGroup):
    """--target-agreement, --delta, --calibration-share, --split-seed: selective judging of
    a command's verdicts (score, bench, judge)."""

    target_agreement: TargetOpt = None
    delta: DeltaOpt = 0.1
    calibration_share: ShareOpt = 0.5
    split_seed: SplitSeedOpt = 0

    def options(self, signal: str | None = None, cascade: str | None = None,
                cascade_rule: str = "per-stage") -> SelectiveOptions | None:
        """The settings, checked; None without --target-agreement.

        Raises:
            ConfigError: a share outside (0, 1); --signal with --cascade; an unknown
                --cascade-rule, or one without --cascade.
        """
        if self.target_agreement is None:
            return None
        opts = SelectiveOptions(self.target_agreement, self.delta, self.calibration_share,
                                signal, cascade, self.split_seed, cascade_rule)
        opts.check()
        return opts


@dataclass(frozen=True)
class SelectiveOptions:
    """What ``--target-agreement`` and its companions ask for."""

    target: float
    delta: float = 0.1
    share: float = 0.5
    signal: str | None = None
    cascade: str | None = None
    seed: int = 0
    cascade_rule: str = "per-stage"

    def check(self) -> None:
        """Raises ConfigError: a share outside (0, 1); --signal and --cascade together; an
        unknown --cascade-rule, or one other than per-stage without --cascade."""
        for flag, value in (("--target-agreement", self.target), ("--delta", self.delta),
                            ("--calibration-share", self.share)):
            if not 0 < value < 1:
                raise ConfigError(f"{flag} must be in (0, 1), got {value:g}")
        if self.seed < 0:
            raise ConfigError(f"--split-seed must be an integer >= 0, got {self.seed}")
        if self.signal is not None and self.cascade is not None:
            raise ConfigError("give --signal or --cascade, not both (a cascade's stages are "
                              "its judges' signals)")
        check_cascade_rule(self.cascade_rule)
        if self.cascade_rule != "per-stage" and self.cascade is None:
            raise ConfigError(f"--cascade-rule {self.cascade_rule} is how a cascade is "
                              f"calibrated: give --cascade too")


def _agree(agreement: float, ci: tuple[float, float]) -> str:
    """``89.5 [75, 96]``: the agreement (percent, one decimal) and its CI (whole percent,
    the low end rounded down and the high end up, so the interval is never narrowed)."""
    if math.isnan(agreement):
        return "—"
    return f"{pct(agreement)} [{math.floor(100 * ci[0])}, {math.ceil(100 * ci[1])}]"


def _cell(*lines: str) -> Any:
    """A table cell of ``lines``, each shown as data (control characters escaped)."""
    from rich.text import Text

    return Text("\n").join(data(line) for line in lines)


def _wrap(name: str, width: int, sep: str) -> list[str]:
    """``name`` in lines of at most ``width`` characters, broken after ``sep`` (a name with
    no ``sep`` stays whole): ``LLMBar/Adversarial/GPTInst`` -> ``["LLMBar/Adversarial/",
    "GPTInst"]``."""
    lines: list[str] = []
    for piece in name.split(sep):
        if lines and len(lines[-1]) + len(sep) + len(piece) <= width:
            lines[-1] += sep + piece
        elif lines:
            lines[-1] += sep
            lines.append(piece)
        else:
            lines.append(piece)
    return lines


def titled(what: str, opts: SelectiveOptions, delta: str, first: str) -> Table:
    """A table titled with the settings (``delta``: how delta is spent), its first column
    ``first`` (the set, folded at 24 characters)."""
    from ..stats.selective import percent

    table = Table(title=f"{what}: target {percent(opts.target)} agreement, delta "
                  f"{opts.delta:g}{delta}, calibrated on {percent(opts.share)} of each set "
                  f"(seed {opts.seed})", title_justify="left")
    table.add_column(first, overflow="fold", max_width=24)
    return table


def _selective_table(rows: list[SelectiveResult], opts: SelectiveOptions) -> Table:
    table = titled("selective judging", opts, "", "set, strategy")
    table.add_column("signal", overflow="fold", max_width=12)
    for name in ("thr", "accepted", "agree % [CI]"):
        table.add_column(name, justify="right")
    for r in rows:
        rule = r.rules[r.signal] if r.signal else None
        tried = r.signal or (next(iter(r.rules)) if len(r.rules) == 1 else "any")
        table.add_row(_cell(*_wrap(r.subset, 20, "/"), r.strategy or "-"),
                      _cell(*_wrap(tried, 12, ":")),
                      "none*" if rule is None or rule.threshold is None
                      else f"{rule.threshold:.2f}",
                      f"{r.test.n_accepted}/{r.test.n} {100 * r.test.coverage:.0f}%",
                      _agree(r.test.agreement, r.test.agreement_ci))
    table.caption = ("thr: the confidence threshold calibrated; none*: cannot certify "
                     "this agreement on this set: nothing accepted; accepted: test items "
                     "accepted of those judged, and the share; CI: Wilson 95%")
    table.caption_justify = "left"
    return table


_SPENT = {"per-stage": " split between the stages", "joint": " for the whole cascade (joint)",
          "auto": " split between the per-stage and joint rules"}


def _cascade_table(rows: list[CascadeResult], opts: SelectiveOptions) -> Table:
    table = titled("cascade", opts, _SPENT[opts.cascade_rule], "set, strategy: stage")
    for name in ("asked", "accepted", "agree % [95% CI]", "calls"):
        table.add_column(name, justify="right")
    for r in rows:
        rule = f" ({r.rule} rule)" if opts.cascade_rule == "auto" else ""
        table.add_row(data(f"{r.subset}, {r.strategy}{rule}"), style="bold")
        for s in r.stages:
            rate = s.agree / s.accepted if s.accepted else math.nan
            table.add_row(data("  " + s.stage),
                          str(s.reached), str(s.accepted) if s.rule.certified else "none*",
                          "—" if math.isnan(rate) else pct(rate), str(s.calls))
        table.add_row("  all stages", str(r.test.n),
                      f"{r.test.n_accepted} ({100 * r.test.coverage:.0f}%)",
                      _agree(r.test.agreement, r.test.agreement_ci),
                      str(sum(s.calls for s in r.stages)), end_section=True)
    table.caption = ("asked: test items that reached the stage; none*: the stage could not "
                     "be certified and accepts nothing; calls: the judge calls its asked "
                     "items cost")
    table.caption_justify = "left"
    return table


def _result_json(r: SelectiveResult | CascadeResult) -> dict[str, Any]:
    from dataclasses import asdict

    out = asdict(r)
    out["guarantee"] = _sentence(r)
    if hasattr(r, "calls_per_accepted"):
        out["calls_per_accepted"] = r.calls_per_accepted
    return out


def _sentence(r: SelectiveResult | CascadeResult) -> str:
    from ..recorded.selective import SelectiveResult
    from ..stats.selective import guarantee_text

    # the calibration items with a verdict (a failed item is left out of calibration)
    if isinstance(r, SelectiveResult):
        used = (r.rules[r.signal] if r.signal else
                max(r.rules.values(), key=lambda c: c.n_calibration)).n_calibration
        return guarantee_text(r.target, r.delta, r.signal, used)
    certified = [s.stage for s in r.stages if s.rule.certified]
    return guarantee_text(r.target, r.delta, " then ".join(certified) if certified else None,
                          r.stages[0].rule.n_calibration)


def not_selectable(path: str, target: Path) -> ConfigError:
    """The error of ``score PATH --target-agreement`` for a PATH that is neither recorded
    judgments nor a judge or bench run (naming a ranking's judge run when it is one)."""
    ranked = (target / "judge" / "run.json").is_file()
    return ConfigError(f"--target-agreement applies to recorded judgments (LLMBar, the generic "
                       f"recorded format) and to a judge or bench run directory, not to "
                       f"{path!r}" + (f" (a ranking: its verdicts are in {target / 'judge'})"
                                      if ranked else ""))


def selective_for(flags: SelectiveFlags, jury: object | None) -> SelectiveOptions | None:
    """bench's and judge's --target-agreement, checked before any model call.

    Raises:
        ConfigError: a share outside (0, 1); given with a jury (its run holds each judge's
            run: score one with ``jurybox score RUN/judges/NAME --target-agreement P``).
    """
    opts = flags.options()
    if opts is not None and jury is not None:
        raise ConfigError("--target-agreement judges one judge's verdicts; for a jury, score "
                          "a judge's run afterwards: jurybox score RUN/judges/NAME "
                          "--target-agreement P")
    return opts


def after_run(run_dir: Path, opts: SelectiveOptions | None) -> None:
    """bench and judge with --target-agreement: the selective table of the run just made,
    after its results, written to ``RUN/selective.json`` (the run's own files untouched)."""
    from ..reports import write_report
    from ..rundir.layout import SELECTIVE_FILE

    if opts is None:
        return
    try:
        print_run_selective(run_dir, opts, out=None, file=run_dir / SELECTIVE_FILE)
    except ConfigError as exc:  # e.g. too few labelled items: the run itself stands
        from ._common import warn

        warn(f"selective judging not done: {exc}")
        return
    write_report(run_dir)  # the report's selective-judging section


def print_run_selective(run_dir: Path, opts: SelectiveOptions, *, out: Path | None,
                        file: Path | None = None) -> list[Any]:
    """Selective judging of a run's own verdicts (:func:`jurybox.judging.selective.
    selective_run`), one row per protocol, as :func:`print_selective` prints them.

    Raises:
        ConfigError: a protocol with too few labelled items, bad settings.
        DataError: not a run of judge or bench.
    """
    from ..judging.selective import selective_run

    opts.check()
    try:
        results = selective_run(run_dir, target=opts.target, delta=opts.delta,
                                calibration_share=opts.share, seed=opts.seed)
    except ValueError as exc:
        raise ConfigError(f"{run_dir}: selective judging: {exc}") from None
    from ..rundir.files import read_manifest
    from ..rundir.layout import MANIFEST_FILE

    status = (read_manifest(run_dir / MANIFEST_FILE) or {}).get("status")
    if status not in (None, "complete"):  # killed, interrupted, partial: say what is counted
        console.print(data(f"note: the run is not complete (run.json status {status}: "
                           f"killed, interrupted or still running): items it never judged are not "
                           f"counted here (coverage is over the items it has decisions or "
                           f"failures for); rerun its command to finish it"))
    return _report(results, [], opts, out, file=file, source=str(run_dir), of="run")


def print_selective(recordings: list[Recording], opts: SelectiveOptions, *,
                    out: Path | None, weights: dict[str, float] | None = None,
                    source: str = "") -> list[Any]:
    """Calibrate and apply selective judging (or a cascade) on each (subset, strategy) of
    ``recordings``; print the table and the guarantee; write ``out/summary.json`` with
    ``selective`` when ``out`` is given.

    Raises:
        ConfigError: an unknown signal or cascade stage, a set too small to split.
    """
    from ..recorded.selective import selective_sets

    opts.check()
    try:
        results, skipped = selective_sets(recordings, target=opts.target, delta=opts.delta,
                                          calibration_share=opts.share, seed=opts.seed,
                                          signal=opts.signal, cascade=opts.cascade,
                                          weights=weights, cascade_rule=opts.cascade_rule)
    except ValueError as exc:
        raise ConfigError(f"selective judging: {exc}") from None
    if not results:
        raise ConfigError("selective judging: no recorded set to judge")
    return _report(results, skipped, opts, out, source=source, of="recorded",
                   weights=weights)


def report_selective(results: list[Any], opts: SelectiveOptions) -> None:
    """Print selective judging's table and guarantee (``rank --target-agreement``: the rule
    calibrated on the calibration pairs; its unlabelled items are the ranking's pairs)."""
    _report(results, [], opts, None)


def _report(results: list[Any], skipped: list[str], opts: SelectiveOptions,
            out: Path | None, *, file: Path | None = None, source: str = "",
            of: str = "recorded", weights: dict[str, float] | None = None) -> list[Any]:
    """Print the table, the guarantee and what was skipped; write ``out/summary.json`` (or
    ``file``)."""
    from ..stats.selective import percent

    from ..recorded.selective import CascadeResult
    from ..rundir import write_json_atomic
    from ..stats.selective import SelectiveResult

    if opts.cascade is not None:
        print_table(_cascade_table([r for r in results if isinstance(r, CascadeResult)], opts))
    else:
        print_table(_selective_table([r for r in results if isinstance(r, SelectiveResult)],
                                     opts), key_columns=2)
    for r in results:
        if isinstance(r, SelectiveResult) and r.unlabelled[1]:
            console.print(data(f"{r.subset} {r.strategy}: {r.unlabelled[0]} of "
                               f"{r.unlabelled[1]} unlabelled items accepted by the rule "
                               f"(judged, never calibrated on or scored)"))
    certified = sum(bool(_certified(r)) for r in results)
    console.print(safe_text(
        f"guarantee, for each certified row: with probability at least {percent(1 - opts.delta)} "
        f"over the calibration draw, its accepted verdicts agree with the labels at least "
        f"{percent(opts.target)} of the time; {certified} of {len(results)} sets certified, the "
        f"others accept nothing. Agreement is measured on the items not calibrated on."),
        markup=False)
    if skipped:
        console.print(data(f"not applicable to {len(skipped)} sets, e.g. {skipped[0]}"))
    target = file if file is not None else None if out is None else out / "summary.json"
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(target, {"selective": {
            "target": opts.target, "delta": opts.delta, "calibration_share": opts.share,
            "seed": opts.seed, "signal": opts.signal, "cascade": opts.cascade,
            "cascade_rule": opts.cascade_rule if opts.cascade else None, "weights": weights,
            "source": source, "of": of, "sets": [_result_json(r) for r in results],
            "not_applicable": skipped}})
        console.print(safe_text(f"written: {target}"), markup=False)
    return results


def _certified(r: SelectiveResult | CascadeResult) -> bool:
    from ..recorded.selective import SelectiveResult

    if isinstance(r, SelectiveResult):
        return r.signal is not None
    return any(s.rule.certified for s in r.stages)
