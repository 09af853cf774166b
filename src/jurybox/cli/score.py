"""``jurybox score``: score judge outputs that already exist, with no model calls."""

from __future__ import annotations

import warnings
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from ..errors import ConfigError, did_you_mean
from ..terminal import data, safe_text
from ._common import BenchProgress, console, exit_for_status, fail_cleanly, warn
from ._tables import pct

if TYPE_CHECKING:
    from ..compare import OutputsScore


def outputs_table(scores: list[OutputsScore], title: str) -> Table:
    """JudgeBench rule, buckets and order effects, one row per parse rule."""
    table = Table(title=data(title), title_justify="left", caption_justify="left", caption=(
        "parse: arena-hard = every verdict token must agree (the rule that made the recorded "
        "decisions); last-token = jurybox's rule. acc: JudgeBench's two-order rule, ties count "
        "as wrong; per-bucket columns use the same rule. consist: both orders agree. 1st: "
        "decisive verdicts that pick the response shown first."))
    buckets = list(scores[0].buckets.by_bucket)
    short = {"livebench-reasoning": "lb-reason", "livebench-math": "lb-math",
             "livecodebench": "lcb"}
    for col in ["parse", "correct", "incorrect", "tied", "acc %",
                *(short.get(b, b) for b in buckets), "macro %", "consist %", "1st %",
                "no verdict"]:
        table.add_column(data(col), justify="left" if col == "parse" else "right", no_wrap=True)
    names = {"unanimous": "arena-hard", "last": "last-token"}
    for s in scores:
        table.add_row(names[s.rule], str(s.counts.correct), str(s.counts.incorrect),
                      str(s.counts.tie), pct(s.counts.accuracy),
                      *(pct(s.buckets.by_bucket[b][0]) for b in buckets), pct(s.buckets.macro),
                      pct(s.order_consistency), pct(s.first_shown_win_rate), str(s.no_verdict))
    return table


def print_outputs(path: Path, *, out: Path | None, show: int = 50) -> list[OutputsScore]:
    """Score a JudgeBench outputs file under both parse rules and print the comparison."""
    from ..compare import score_outputs
    from ..datasets import load_judgebench_outputs
    from ..reports import write_json_atomic

    pairs = load_judgebench_outputs(path)
    scores = [score_outputs(pairs, rule="unanimous"), score_outputs(pairs, rule="last")]
    judge = pairs[0].judge_name if pairs else "?"
    console.print(outputs_table(scores, f"{path.name}: {len(pairs)} pairs judged in both orders "
                                        f"by a recorded {judge!r} judge (no model calls)"))
    recorded, ours = scores
    console.print(f"Arena-Hard parsing reproduces the recording's decisions: "
                  f"{len(recorded.differences)} of {2 * len(pairs)} judgments differ. "
                  f"jurybox's parse (last verdict token wins) differs in "
                  f"{len(ours.differences)}:")
    if show < len(ours.differences):
        console.print(f"(the first {show}; all are in summary.json with --out)")
    for d in ours.differences[:show]:
        console.print(data(f"  {d.pair_id[:8]} {d.order:8s} recorded {d.recorded!s:5s} parsed "
                           f"{d.parsed!s:5s} {d.reason}"), highlight=False)
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot use {str(out)!r} as the output directory (--out): "
                              f"{exc.strerror or exc}") from None
        write_json_atomic(out / "summary.json", {
            "source": str(path), "n_pairs": len(pairs),
            "scores": [{**asdict(s), "accuracy": s.counts.accuracy} for s in scores]})
        console.print(safe_text(f"written: {out / 'summary.json'}"), markup=False)
    return scores


@fail_cleanly
def score(
    path: Annotated[str, typer.Argument(
        help="A jurybox run directory (re-parse every recorded answer and re-decide), a "
             "JudgeBench outputs .jsonl (raw judge text of both orders per pair), or a bundled "
             "recording: arena-hard-haiku.")],
    out: Annotated[Optional[Path], typer.Option(
        envvar="JURYBOX_OUT", help="Where to write results (default: `<run>/rescored` for a run "
        "directory; nothing for an outputs file).")] = None,
) -> None:
    """Score judge outputs that already exist, with no model calls: rerun a run's decisions
    from its calls.jsonl with the current parser, or score recorded JudgeBench outputs."""
    from ..compare import SkippedLinesWarning, rescore_run
    from ..datasets import BUNDLED_OUTPUTS, bundled_path
    from ._tables import print_bench_result

    target = bundled_path(BUNDLED_OUTPUTS[path]) if path in BUNDLED_OUTPUTS else Path(path)
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
                          f"recording{did_you_mean(path, BUNDLED_OUTPUTS)} "
                          f"({', '.join(BUNDLED_OUTPUTS)})")
    print_outputs(target, out=out)


__all__ = ["score", "print_outputs", "outputs_table"]
