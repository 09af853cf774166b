"""``jurybox score OUTPUTS.jsonl``: recorded JudgeBench outputs scored under both parse rules
(the recording's own rule and jurybox's), no model call."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from ..errors import ConfigError
from ..terminal import data, safe_text
from ._common import console
from ._fit import print_table
from ._tables import pct

if TYPE_CHECKING:
    from ..compare import OutputsScore

__all__ = ["output_folder", "outputs_table", "print_outputs"]


def output_folder(out: Path) -> None:
    """Create ``--out`` (and its parents), or a one-line error saying why it cannot be."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot use {str(out)!r} as the output directory (--out): "
                          f"{exc.strerror or exc}") from None


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
        table.add_column(data(col), justify="left" if col == "parse" else "right",
                         overflow="fold")
    from ..parsing.verdict import RULE_NAMES

    for s in scores:
        table.add_row(RULE_NAMES[s.rule], str(s.counts.correct), str(s.counts.incorrect),
                      str(s.counts.tie), pct(s.counts.accuracy),
                      *(pct(s.buckets.by_bucket[b][0]) for b in buckets), pct(s.buckets.macro),
                      pct(s.order_consistency), pct(s.first_shown_win_rate), str(s.no_verdict))
    return table


def print_outputs(path: Path, *, out: Path | None, show: int = 50) -> list[OutputsScore]:
    """Score a JudgeBench outputs file under both parse rules and print the comparison."""
    from ..compare import score_outputs
    from ..datasets import load_judgebench_outputs
    from ..rundir import write_json_atomic

    pairs = load_judgebench_outputs(path)
    scores = [score_outputs(pairs, rule="unanimous"), score_outputs(pairs, rule="last")]
    judge = pairs[0].judge_name if pairs else "?"
    print_table(outputs_table(scores, f"{path.name}: {len(pairs)} pairs judged in both orders "
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
        output_folder(out)
        write_json_atomic(out / "summary.json", {
            "source": str(path), "n_pairs": len(pairs),
            "scores": [{**asdict(s), "accuracy": s.counts.accuracy} for s in scores]})
        console.print(safe_text(f"written: {out / 'summary.json'}"), markup=False)
    return scores
