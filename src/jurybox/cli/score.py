"""``jurybox score``: score judge outputs that already exist, with no model calls."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional


from ._declared import argument, declared
from ..errors import ConfigError, did_you_mean
from ._common import exit_for_status, grouped_command, warn
from ._progress import BenchProgress
from ._options import DecimalsOpt, DetailOpt, UnparsedOpt
from ._outputs import output_folder as _output_folder
from ._outputs import outputs_table, print_outputs
from ._learned import LearnOpt, SplitsOpt
from ._recorded import (UNPARSED_RULES, jury_table, parse_weights, print_recorded,
                        recorded_table)
from ._selective import (CascadeOpt, CascadeRuleOpt, SelectiveFlags, SignalOpt,
                         check_cascade_rule)
from ._tables import pct_decimals

if TYPE_CHECKING:
    from ..recorded import Recording


def _read_recorded(target: Path, name: str | None) -> list[Recording]:
    from ..recorded.read import read_recordings

    return read_recordings(name if name is not None else target)


@grouped_command
def score(
    path: Annotated[str, argument("score path")],
    out: Annotated[Optional[Path], declared("score --out")] = None,
    weights: Annotated[Optional[str], declared("score --weights")] = None,
    subset: Annotated[Optional[str], declared("score --subset")] = None,
    judge: Annotated[Optional[str], declared("score --judge")] = None,
    strategy: Annotated[Optional[str], declared("score --strategy")] = None,
    pool: Annotated[bool, declared("score --pool/--no-pool")] = True,
    detail: DetailOpt = False,
    decimals: DecimalsOpt = 1,
    unparsed: UnparsedOpt = "excluded",
    *, selective: SelectiveFlags,
    signal: SignalOpt = None,
    cascade: CascadeOpt = None,
    cascade_rule: CascadeRuleOpt = "per-stage",
    learn_weights: LearnOpt = False,
    splits: SplitsOpt = 100,
) -> None:
    """Score judge outputs that already exist, with no model calls: rerun a run's decisions
    from its calls.jsonl with the current parser, score recorded JudgeBench outputs, or
    rescore recorded pairwise judgments (LLMBar, the generic recorded format): per set the
    position-bias figures of one strategy, or with --detail every strategy, every rule and a
    jury table where several judges judged the same items."""
    from ..datasets import BUNDLED_OUTPUTS, bundled_path
    from ..recorded.bundle import BUNDLED_RECORDED
    from ..recorded.jsonl import looks_recorded
    from ..recorded.listwise import looks_listwise
    from ..recorded.llmbar import find_llmbar_results
    from ._tables import print_bench_result

    bundled = [*BUNDLED_OUTPUTS, *BUNDLED_RECORDED]
    target = bundled_path(BUNDLED_OUTPUTS[path]) if path in BUNDLED_OUTPUTS else Path(path)
    recorded = path in BUNDLED_RECORDED or (
        target.is_dir() and not (target / "run.json").exists()
        and bool(find_llmbar_results(target))) or (
        target.is_file() and (target.suffix == ".json" or (
            target.suffix in (".jsonl", ".gz") and looks_recorded(target))))
    filters = {"--subset": subset, "--judge": judge, "--strategy": strategy}
    check_cascade_rule(cascade_rule)  # a bad JURYBOX_CASCADE_RULE too, selective or not
    chosen = {"--signal": signal, "--cascade": cascade,
              "--cascade-rule": None if cascade_rule == "per-stage" else cascade_rule}
    target_agreement = selective.target_agreement
    if target_agreement is None and any(v is not None for v in chosen.values()):
        raise ConfigError(f"{', '.join(k for k, v in chosen.items() if v is not None)} "
                          f"choose how selective judging decides: give --target-agreement")
    opts = selective.options(signal, cascade, cascade_rule)
    if unparsed not in UNPARSED_RULES:
        raise ConfigError(f"--unparsed is {' or '.join(UNPARSED_RULES)}, got {unparsed!r}")
    if recorded and target.is_file() and looks_listwise(target):  # listwise recorded lines
        from ._listwise import print_listwise_file

        with pct_decimals(decimals):
            print_listwise_file(target, source=path, out=out, filters=filters, refused={
                "--weights": weights is not None, "--learn-weights": learn_weights,
                "--target-agreement": target_agreement is not None}, unparsed=unparsed)
        return
    if not recorded:
        given = [k for k, v in filters.items() if v is not None] + (
            ["--weights"] if weights is not None else []) + (
            ["--target-agreement"] if target_agreement is not None
            and not (target / "run.json").is_file() else []) + [
            k for k, v in chosen.items() if v is not None] + (
            ["--learn-weights"] if learn_weights else []) + (["--detail"] if detail else []) + (
            ["--unparsed"] if unparsed != "excluded" else []) + (
            ["--decimals"] if decimals != 1 else [])
        if given == ["--target-agreement"]:
            from ._selective import not_selectable

            raise not_selectable(path, target)
        if given:
            raise ConfigError(f"{', '.join(given)} apply to recorded judgments (LLMBar, the "
                              f"generic recorded format), not to {path!r}"
                              + (" (a run takes --target-agreement, --delta, "
                                 "--calibration-share and --split-seed)"
                                 if (target / "run.json").is_file() else ""))
    if recorded:
        from ..recorded.read import select_recordings

        recordings = _read_recorded(target, path if path in BUNDLED_RECORDED else None)
        for option, attr in (("--subset", "subset"), ("--judge", "judge"),
                             ("--strategy", "strategy")):
            recordings = select_recordings(recordings, option, filters[option], attr)
        if learn_weights:
            if opts is not None:
                raise ConfigError("give --learn-weights or --target-agreement, not both")
            from ._learned import print_learned

            if out is not None:
                _output_folder(out)
            print_learned(recordings, share=selective.calibration_share,
                          seed=selective.split_seed, splits=splits, out=out)
            return
        if opts is not None:
            from ._selective import print_selective

            if out is not None:
                _output_folder(out)
            print_selective(recordings, opts, out=out, source=path, weights=parse_weights(
                weights, {r.judge for r in recordings}))
            return
        with pct_decimals(decimals):
            print_recorded(recordings, source=path, out=out, weights=weights, pool=pool,
                           detail=detail, unparsed=unparsed)
        return
    if target.is_dir() and opts is not None:  # a run's own verdicts
        from ._selective import print_run_selective

        if out is not None:
            _output_folder(out)
        print_run_selective(target, opts, out=out)
        return
    if target.is_dir():
        from ..compare import SkippedLinesWarning, rescore_run  # the engine: only for a run

        out = out or target / "rescored"
        with BenchProgress() as progress, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SkippedLinesWarning)
            result = rescore_run(target, out, hooks=progress.hooks())
        for w in caught:
            if issubclass(w.category, SkippedLinesWarning):
                warn(str(w.message))
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        print_bench_result(result, f"{target}: re-parsed from calls.jsonl (no model calls)")
        exit_for_status(result, strict=False)
        return
    if not target.exists():
        raise ConfigError(f"{path!r} is neither a run directory, a file, nor a bundled "
                          f"recording{did_you_mean(path, bundled)} "
                          f"({', '.join(bundled)})")
    print_outputs(target, out=out)


__all__ = ["score", "print_outputs", "outputs_table", "print_recorded", "recorded_table",
           "jury_table", "parse_weights"]
