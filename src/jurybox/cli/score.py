"""``jurybox score``: score judge outputs that already exist, with no model calls."""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.table import Table

from ..errors import ConfigError, did_you_mean
from ..terminal import data, safe_text
from ._common import console, exit_for_status, fail_cleanly, warn
from ._progress import BenchProgress
from ._fit import print_table
from ._options import PANEL_DATA, PANEL_OUTPUT
from ._compose import option_groups
from ._outputs import output_folder as _output_folder
from ._outputs import outputs_table, print_outputs
from ._learned import LearnOpt, SplitsOpt
from ._selective import CascadeOpt, SelectiveFlags, SignalOpt
from ._tables import pct

if TYPE_CHECKING:
    from ..recorded import Recording
    from ..recorded.jury import JuryScore
    from ..recorded.scoring import RecordingScore


def _p(test: object) -> str:
    p = getattr(test, "p_value", None)
    if p is None or math.isnan(p):
        return "—"
    return f"{p:.0e}" if p < 0.001 else f"{p:.3f}"


def _ci(result: object) -> str:
    low, high = result.confidence_interval  # type: ignore[attr-defined]
    return "" if math.isnan(low) or math.isnan(high) else f"{100 * low:.0f}-{100 * high:.0f}"


def recorded_table(subset: str, scores: list[RecordingScore]) -> Table:
    """One subset's recordings, one row per (judge, strategy); fits 100 columns."""
    n = max(s.n for s in scores)
    table = Table(title=data(f"{subset}: {n} pairs"), title_justify="left", box=None,
                  pad_edge=False, padding=(0, 1), header_style="bold")
    for col in ("judge", "strategy", "o1", "o2", "both", "95% CI", "p", "strict", "agree",
                "cov", "cons", "1st", "fail"):
        table.add_column(col, justify="left" if col in ("judge", "strategy") else "right",
                         overflow="fold")
    for s in scores:
        o2 = s.by_order[1] if len(s.by_order) > 1 else None
        table.add_row(data(s.judge), data(s.strategy or "-"), pct(s.by_order[0].accuracy),
                      pct(o2.accuracy) if o2 else "—", pct(s.net.accuracy), _ci(s.net),
                      _p(s.vs_order1.get("net")), pct(s.strict.accuracy),
                      pct(s.agree_only.accuracy), pct(s.agree_only.coverage),
                      pct(s.consistency), pct(s.first_shown_rate), str(s.parse_failures))
    return table


RECORDED_CAPTION = (
    "o1, o2: accuracy in each order (% of parsed verdicts). both: both orders, net rule "
    "(+1 per order for a response; ties at 0 count as wrong), 95% bootstrap CI, p: sign test "
    "vs o1. strict: right in both orders. agree: accuracy where the orders agree; cov: share "
    "of pairs where they do. cons: orders agree (pairs parsed in both). 1st: decisive "
    "verdicts for the output shown first. fail: unparsed verdicts (never scored). CIs of every "
    "figure and all sign tests: summary.json (--out).")


def jury_table(j: JuryScore) -> Table:
    """A recorded jury against its judges (both %: both-orders net-rule accuracy; o1 %: the
    first order alone, for the jury a vote of first-order verdicts)."""
    weighted = len(set(j.weights)) > 1
    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="bold")
    for col in ("", "both %", "95% CI", "o1 %", "vs best p", "differs from jury"):
        table.add_column(col, justify="left" if not col else "right", overflow="fold")
    table.add_row("jury", pct(j.jury.accuracy), _ci(j.jury), pct(j.jury_order1.accuracy),
                  _p(j.vs_best), "")
    for judge in j.judges:
        a, rate = j.judge_net[judge], j.disagreement[judge]
        name = judge + (" (best)" if judge == j.best_judge else "") + (
            f" w={j.weights[j.judges.index(judge)]:g}" if weighted else "")
        table.add_row(data(name), pct(a.accuracy), _ci(a), pct(j.judge_order1[judge].accuracy),
                      "" if judge == j.best_judge else "", f"{pct(rate[0])}% of {rate[1]}")
    table.add_row("mean judge", pct(j.mean_judge), "", "", "", "")
    return table


def jury_lines(j: JuryScore) -> list[str]:
    """Agreement of the jury's judges, in words."""
    lines = []
    if j.alpha is not None:
        low, high = j.alpha.confidence_interval
        lines.append(f"  judges' agreement (Krippendorff's alpha, nominal, on decisions): "
                     f"{j.alpha.alpha:.3f} [{low:.3f}, {high:.3f}], {j.alpha.n_units} pairs")
    m, names = j.pairwise.matrix, j.pairwise.raters
    pairs = [f"{names[a]}-{names[b]} {m[a, b]:.2f}" for a in range(len(names))
             for b in range(a + 1, len(names))]
    lines.append("  pairwise alpha: " + ", ".join(pairs))
    gap = j.jury.accuracy - j.judge_net[j.best_judge].accuracy
    lines.append(f"  disagrees with the jury most: {j.most_disagreeing} "
                 f"({pct(j.disagreement[j.most_disagreeing][0])}%); jury vs best judge "
                 f"({j.best_judge}): {100 * gap:+.1f} points, sign test p = {_p(j.vs_best)}")
    return lines


def parse_weights(text: str | None, judges: set[str]) -> dict[str, float] | None:
    """``--weights GPT-4=3,LLaMA2=0.5`` as judge -> weight (judges not named weigh 1).

    Raises:
        ConfigError: a part without ``=``, an unknown judge, a repeated judge, a weight that
            is not a finite number >= 0, or every judge at weight 0.
    """
    if text is None:
        return None
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, eq, value = part.strip().rpartition("=")
        name = name.strip()
        if not eq or not name:
            raise ConfigError(f"--weights: {part.strip()!r} is not judge=weight (e.g. "
                              f"--weights GPT-4=3,LLaMA2=1)")
        if name not in judges:
            raise ConfigError(f"--weights: no judge {name!r} in these recordings"
                              f"{did_you_mean(name, judges)} (judges: "
                              f"{', '.join(sorted(judges))})")
        if name in weights:
            raise ConfigError(f"--weights: judge {name!r} is given twice")
        try:
            w = float(value)
        except ValueError:
            w = math.nan
        if not math.isfinite(w) or w < 0:
            raise ConfigError(f"--weights: {name}'s weight must be a finite number >= 0, got "
                              f"{value.strip()!r}")
        weights[name] = w
    if not any(weights.get(j, 1.0) for j in judges):
        raise ConfigError("--weights: every judge has weight 0; at least one must count")
    return weights


def _read_recorded(target: Path, name: str | None) -> list[Recording]:
    from ..recorded.read import read_recordings

    return read_recordings(name if name is not None else target)


def _jsonable(score: object) -> dict:
    out = asdict(score)  # type: ignore[call-overload]
    for key in ("net_decisions", "net_credits", "order_credits", "decisions"):
        out.pop(key, None)
    return out


def print_recorded(recordings: list[Recording], *, source: str, out: Path | None,
                   weights: str | None = None, pool: bool = True) -> list[RecordingScore]:
    """Score recorded judgments: a table per subset, LLMBar's statistics checked, the jury
    tables where several judges judged the same items, summary.json with ``out``."""
    from ..recorded.jury import jury_groups, score_jury
    from ..recorded.pool import pool_subsets
    from ..recorded.scoring import score_recording
    from ..rundir import write_json_atomic

    weight_map = parse_weights(weights, {r.judge for r in recordings})
    every = recordings + (pool_subsets(recordings) if pool else [])
    scores = [score_recording(r) for r in every]
    by_subset: dict[str, list[RecordingScore]] = {}
    for s in scores:
        by_subset.setdefault(s.subset, []).append(s)
    console.print(safe_text(f"{source}: {len(recordings)} recorded (subset, judge, strategy) "
                            f"sets, rescored with no model call"), markup=False)
    for subset, group in by_subset.items():
        console.print()
        print_table(recorded_table(subset, sorted(group, key=lambda s: (s.strategy, s.judge))),
                    key_columns=2)
    console.print(RECORDED_CAPTION, markup=False)
    checked = [s for s in scores if s.reference_mismatches is not None]
    if checked:
        bad = [s for s in checked if s.reference_mismatches]
        console.print(f"LLMBar's own statistics.json (correct_False, correct_True, "
                      f"correct_average, correct_both, equal) reproduced exactly for "
                      f"{len(checked) - len(bad)} of {len(checked)} files.", markup=False)
        for s in bad[:20]:
            console.print(data(f"  differs: {s.subset} {s.judge} {s.strategy}: "
                               f"{', '.join(s.reference_mismatches or [])}"))
    juries = [score_jury(g, weight_map) for g in jury_groups(every).values()]
    for j in juries:
        console.print()
        console.print(data(f"jury on {j.subset}, {j.strategy or '-'}: {len(j.judges)} judges, "
                           f"{j.n} pairs" + (" (weighted)" if len(set(j.weights)) > 1 else
                                             " (unweighted)"), style="italic"))
        print_table(jury_table(j))
        for line in jury_lines(j):
            console.print(data(line))
    if out is not None:
        _output_folder(out)
        summary = {"source": source, "n_recordings": len(recordings),
                   "scores": [{**_jsonable(s), "llmbar_written": s.llmbar.as_written()
                               if s.llmbar else None} for s in scores],
                   "juries": [{**_jsonable(j), "pairwise": {
                       "raters": list(j.pairwise.raters),
                       "matrix": j.pairwise.matrix.tolist(),
                       "n_common": j.pairwise.n_common.tolist()}} for j in juries]}
        write_json_atomic(out / "summary.json", summary)
        console.print(safe_text(f"written: {out / 'summary.json'}"), markup=False)
    return scores


#: A ``jurybox score`` filter of recorded judgments: the ones it names, comma-separated.
_ONLY = "only these {} (comma-separated{})."


def _recorded(name: str, help: str) -> Any:
    """The option ``--NAME`` of recorded judgments only: ``JURYBOX_SCORE_NAME``, in the data
    panel, its help led by "Recorded judgments:"."""
    return typer.Option(envvar=f"JURYBOX_SCORE_{name.upper()}", rich_help_panel=PANEL_DATA,
                        help=f"Recorded judgments: {help}")


@fail_cleanly
@option_groups
def score(
    path: Annotated[str, typer.Argument(
        help="A jurybox run directory (re-parse every recorded answer and re-decide), a "
             "JudgeBench outputs .jsonl (raw judge text of both orders per pair), recorded "
             "judgments (a generic recorded .jsonl or .jsonl.gz, see docs/recorded-format.md; "
             "an LLMBar result.json, a judge's folder or a whole LLMBar Dataset/ tree), or a "
             "bundled recording: arena-hard-haiku, llmbar.")],
    out: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_OUT", rich_help_panel=PANEL_OUTPUT,
        help="Where to write results (default: `<run>/rescored` for a run "
        "directory; nothing for an outputs file, recorded judgments or "
        "--target-agreement).")] = None,
    weights: Annotated[Optional[str], _recorded("weights", "the jury's judge weights, "
                                                "judge=weight,... (judges not named weigh 1; "
                                                "default: unweighted).")] = None,
    subset: Annotated[Optional[str], _recorded("subset", _ONLY.format(
        "subsets", "; a folder such as LLMBar/Adversarial takes the subsets under it"))] = None,
    judge: Annotated[Optional[str], _recorded("judge", _ONLY.format("judges", ""))] = None,
    strategy: Annotated[Optional[str], _recorded("strategy", _ONLY.format("strategies", ""))
                        ] = None,
    pool: Annotated[bool, _recorded("pool", "also score subsets pooled by folder (LLMBar "
                                    "Adversarial's four subsets as its 319 pairs).")] = True,
    *, selective: SelectiveFlags,
    signal: SignalOpt = None,
    cascade: CascadeOpt = None,
    learn_weights: LearnOpt = False,
    splits: SplitsOpt = 100,
) -> None:
    """Score judge outputs that already exist, with no model calls: rerun a run's decisions
    from its calls.jsonl with the current parser, score recorded JudgeBench outputs, or
    rescore recorded pairwise judgments (LLMBar, the generic recorded format) with a jury
    table where several judges judged the same items."""
    from ..compare import SkippedLinesWarning, rescore_run
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
    chosen = {"--signal": signal, "--cascade": cascade}
    target_agreement = selective.target_agreement
    if target_agreement is None and any(v is not None for v in chosen.values()):
        raise ConfigError(f"{', '.join(k for k, v in chosen.items() if v is not None)} "
                          f"choose how selective judging decides: give --target-agreement")
    opts = selective.options(signal, cascade)
    if recorded and target.is_file() and looks_listwise(target):  # listwise recorded lines
        from ._listwise import print_listwise_file

        print_listwise_file(target, source=path, out=out, filters=filters, refused={
            "--weights": weights is not None, "--learn-weights": learn_weights,
            "--target-agreement": target_agreement is not None})
        return
    if not recorded:
        given = [k for k, v in filters.items() if v is not None] + (
            ["--weights"] if weights is not None else []) + (
            ["--target-agreement"] if target_agreement is not None
            and not (target / "run.json").is_file() else []) + [
            k for k, v in chosen.items() if v is not None] + (
            ["--learn-weights"] if learn_weights else [])
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
        print_recorded(recordings, source=path, out=out, weights=weights, pool=pool)
        return
    if target.is_dir() and opts is not None:  # a run's own verdicts
        from ._selective import print_run_selective

        if out is not None:
            _output_folder(out)
        print_run_selective(target, opts, out=out)
        return
    if target.is_dir():
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
