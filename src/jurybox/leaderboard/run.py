"""Rank systems: read what to rank, judge it where needed, compute the leaderboard, write it.

What ``path`` is decides how (:func:`source_kind`):

- a folder: AlpacaEval's ``results/`` (``<system>/model_outputs.json``,
  ``<system>/<annotator>/annotations.json``): its recorded annotations, no model call;
- a file of recorded judgments (the generic recorded format with ``systems``): no model call;
- a file of systems' outputs (:mod:`.outputs`): the pairs are planned (:mod:`.pairing`) and
  judged by a pairwise protocol through the judge verb's engine into ``OUT/judge``.

The ranking's own files in ``OUT``: summary.json (the leaderboard, ``systems`` first),
leaderboard.csv (one row a system) and report.html (the leaderboard page).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ConfigError, DataError, write_error
from ..ranking.bootstrap import DEFAULT_ROUNDS
from ..ranking.comparisons import Comparison, Comparisons
from ..rundir.files import write_json_atomic
from .board import Leaderboard, leaderboard
from .outputs import SystemOutputs, looks_like_outputs, read_outputs
from .pairing import Pairing, RankPair, plan_pairs

if TYPE_CHECKING:
    from ..stats.selective import SelectiveResult

__all__ = ["PAIRS_FILE", "RankResult", "SourceKind", "source_kind",
           "recorded_source", "rank_comparisons", "write_ranking", "pairs_file", "plan", "rank",
           "rank_judged"]

SourceKind = Literal["alpaca_eval", "recorded", "outputs"]
#: The planned pairs of a live ranking, as a judge input file, in OUT.
PAIRS_FILE = "pairs.jsonl"


@dataclass(frozen=True)
class RankResult:
    """A ranking: its leaderboard, summary.json's content and where its files are."""

    leaderboard: Leaderboard
    summary: dict[str, Any]
    out: Path


def source_kind(path: str | Path) -> SourceKind:
    """What ``path`` holds (module docstring).

    Raises:
        DataError: it does not exist, or is a file of neither shape.
    """
    path = Path(path)
    if path.is_dir():
        return "alpaca_eval"
    if not path.exists():
        from ..errors import did_you_mean_file

        raise DataError(path, f"not found{did_you_mean_file(path)}")
    from ..recorded.jsonl import looks_recorded

    if looks_recorded(path):
        return "recorded"
    if looks_like_outputs(path):
        return "outputs"
    raise DataError(path, "neither systems' outputs (lines with 'outputs', or 'system' and "
                    "'output') nor recorded judgments (lines with 'judges' and 'systems'); "
                    "see docs/ranking.md", line=1)


def recorded_source(path: Path, kind: SourceKind, *, judge: str | None = None,
                    annotator: str | None = None
                    ) -> tuple[list[Comparison], int, str, str, str | None]:
    """(comparisons, failed, judge name, a description, the source's own baseline or None)
    of a recorded source, read once: no model call. AlpacaEval's baseline is the one its
    files name (their ``generator_1``)."""
    if kind == "alpaca_eval":
        from ..recorded import alpaca_eval

        read = alpaca_eval.read_alpaca_eval(path, annotator=annotator)
        return (list(read.comparisons.rows), sum(read.failed.values()), read.annotator,
                f"AlpacaEval results {path} (annotator {read.annotator})", read.baseline)
    from .recorded import recorded_comparisons

    found = recorded_comparisons(path, judge)
    return list(found), found.failed, found.judge, f"recorded judgments {path}", None


def pairs_file(pairs: list[RankPair], out: Path) -> Path:
    """Write the planned pairs as the judge's input (``OUT/pairs.jsonl``: id, prompt, the two
    candidates, A first; identical outputs are not judged); returns its path."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / PAIRS_FILE
    tmp = path.with_suffix(".jsonl.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            for p in pairs:
                if p.identical:  # a tie without a call (rank.pairing)
                    continue
                gold = {"A>B": [0], "B>A": [1]}.get(p.item.label, [])
                fh.write(json.dumps({"id": p.item.item_id, "prompt": p.item.question,
                                     "candidates": [p.item.response_a, p.item.response_b],
                                     "gold": gold}, ensure_ascii=False) + "\n")
        tmp.replace(path)
    except OSError as exc:
        raise write_error(path, exc) from None
    return path


def rank_comparisons(comparisons: list[Comparison], *, baseline: str | None,
                     rounds: int = DEFAULT_ROUNDS, seed: int = 0, n_failed: int = 0,
                     source: str = "", judge: str = "",
                     systems: tuple[str, ...] = ()) -> Leaderboard:
    """The leaderboard of ``comparisons``; ``systems``: every system that was to be ranked
    (one without any decided comparison, every pair of it failed, is listed last with n 0
    and no figure, and said in the notes).

    Raises:
        ConfigError: no comparison (every pair failed), or an unknown baseline.
    """
    if not comparisons:
        raise ConfigError(f"nothing to rank: no pair has a decision ({n_failed} failed)")
    table = Comparisons.of(comparisons)
    if baseline is not None and baseline not in table.systems:
        from ..errors import did_you_mean

        raise ConfigError(f"--baseline {baseline!r} is not a ranked system"
                          f"{did_you_mean(baseline, table.systems) or ''}; the systems: "
                          f"{', '.join(table.systems[:10])}")
    try:
        board = leaderboard(table, baseline, rounds=rounds, seed=seed, n_failed=n_failed,
                            source=source, judge=judge)
    except ValueError as exc:  # a system no comparison connects to the others
        raise ConfigError(str(exc)) from None
    unranked = [s for s in systems if s not in table.systems]
    if not unranked:
        return board
    from dataclasses import replace

    from .board import SystemRow

    return replace(board, systems=(*board.systems, *(SystemRow(name=s, n=0) for s in unranked)),
                   notes=(*board.notes, f"not ranked, no pair of theirs has a decision (every "
                          f"judgment failed): {', '.join(unranked)}"))


def write_ranking(board: Leaderboard, out: Path, *, what: str, simulated: bool = False,
                  model: str | None = None, judge_report: str | None = None) -> RankResult:
    """Write OUT/summary.json, OUT/leaderboard.csv and OUT/report.html."""
    from ..reports.export_rank import SYSTEM_COLUMNS, system_rows
    from ..reports.leaderboard import write_leaderboard_page

    out.mkdir(parents=True, exist_ok=True)
    summary = {**board.as_dict(), "simulated": simulated, "model": model, "what": what}
    try:
        write_json_atomic(out / "summary.json", summary)
        with (out / "leaderboard.csv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, SYSTEM_COLUMNS)
            writer.writeheader()
            writer.writerows(system_rows(summary))
        write_leaderboard_page(out, summary, title=out.name, what=what,
                               judge_report=judge_report)
    except OSError as exc:
        raise write_error(out, exc) from None
    return RankResult(board, summary, out)


def plan(path: Path, *, pairing: Pairing, baseline: str | None, budget: int | None,
         seed: int) -> tuple[SystemOutputs, list[RankPair]]:
    """Read systems' outputs and plan their pairs (every check before any model call)."""
    outputs = read_outputs(path)
    return outputs, plan_pairs(outputs, pairing=pairing, baseline=baseline, budget=budget,
                               seed=seed)


def rank(path: str | Path, *, baseline: str | None = None, model: str | None = None,
         protocol: str = "both-orders", pairing: Pairing = "baseline",
         budget: int | None = None, judge: str | None = None, annotator: str | None = None,
         rounds: int = DEFAULT_ROUNDS, seed: int = 0, out: str | Path | None = None,
         jury: Any = None, options: Any = None, hooks: Any = None,
         target: float | None = None, calibration: str | Path | None = None,
         delta: float = 0.1, calibration_share: float = 0.5,
         **settings: Any) -> RankResult:
    """Rank the systems of ``path`` (module docstring) and write the leaderboard to ``out``.

    Args:
        path: systems' outputs (judged by ``model`` with ``protocol``), recorded judgments
            naming their systems, or an AlpacaEval ``results/`` folder (no model call).
        baseline: the system win rates are against and Bradley-Terry's anchor (AlpacaEval:
            default the folder's own baseline); None with ``pairing="all"``.
        model: the judge of systems' outputs (``sim``, ``openai/gpt-4o-mini``, ...); a
            comma list (``a,b,c``) is a jury of those models, weight 1 each.
        protocol: a pairwise protocol (``both-orders``, ``pairwise``, ``keyed``, ``apoc``).
        pairing, budget: which pairs to judge (:func:`~.pairing.plan_pairs`).
        judge: recorded judgments of several judges: whose; annotator: AlpacaEval's folder.
        rounds, seed: the prompt bootstrap's (and the pairing's seed).
        out: the ranking's folder (default ``runs/rank-<name>``); a live ranking's judge run
            is ``out/judge`` (resumed, and served from the cache, by the same call again).
        jury: instead of ``model``, a jury (a YAML file, a :class:`~jurybox.jury.Jury`, or a
            list of judges, as :func:`jurybox.judge`'s ``jury``): each pair's outcome is the
            jury's weighted vote, its judge run ``out/judge`` a jury's folder, and the order
            effects are each judge's (summary.json ``order_by_judge``).
        options, hooks: the judge run's :class:`~jurybox.RunOptions` and hooks.
        target, calibration, delta, calibration_share: selective judging
            (:mod:`.selective`): rank only the verdicts accepted at ``target`` agreement,
            calibrated on the labelled pairs of ``calibration`` (a judge input file or a
            bundled pairwise dataset, judged into ``out/calibration``) at failure
            probability ``delta``, on a ``calibration_share`` of them; one judge (not a jury).
        settings: other :class:`~jurybox.judging.JudgeConfig` fields (``base_url``,
            ``temperature``, ``criteria``, ...).

    Raises:
        DataError: bad input (file, line, field), before any model call.
        ConfigError: a bad setting; no ``model`` for systems' outputs; nothing decided.
    """
    source = Path(path)
    kind = source_kind(source)
    folder = Path(out) if out is not None else Path("runs") / f"rank-{source.stem or 'run'}"
    if kind != "outputs":
        comparisons, failed, judge_name, what, own_baseline = recorded_source(
            source, kind, judge=judge, annotator=annotator)
        baseline = own_baseline if baseline is None else baseline
        board = rank_comparisons(comparisons, baseline=baseline, rounds=rounds, seed=seed,
                                 n_failed=failed, source=str(source), judge=judge_name)
        return write_ranking(board, folder, what=what)
    if jury is None and model is not None and "," in model:
        from ..jury import jury_from_models

        jury, model = jury_from_models(model), None
    if model is None and jury is None:
        raise ConfigError("ranking systems' outputs needs a judge: model='provider/model' "
                          "(or 'sim' to try the tool), or jury=")
    if model is not None and jury is not None:
        raise ConfigError("give model= or jury=, not both (a jury names its judges' models)")
    if (target is None) != (calibration is None):
        raise ConfigError("selective ranking needs target= and calibration= (the labelled "
                          "pairs the judge's confidence is calibrated on), both or neither")
    if target is not None and jury is not None:
        raise ConfigError("selective ranking calibrates one judge's confidence: give model=, "
                          "not a jury")
    from ..judging import JudgeConfig
    from .live import JUDGE_FOLDER

    outputs, pairs = plan(source, pairing=pairing, baseline=baseline, budget=budget,
                          seed=seed)
    input_file = str(pairs_file(pairs, folder))
    if jury is not None:
        from ..jury.api import judge_with_jury

        judged = judge_with_jury(input_file, jury, protocol=protocol,
                                 out=folder / JUDGE_FOLDER, options=options, hooks=hooks,
                                 seed=seed, **settings)
        return rank_judged(source, folder, pairs, outputs, baseline=baseline, rounds=rounds,
                           seed=seed, judge="jury of " + ", ".join(sorted(judged.judges)),
                           protocol=protocol, simulated=judged.simulated, jury=True)
    from ..judging import run_judge

    config = JudgeConfig(input=input_file, model=str(model), protocol=protocol, seed=seed,
                         **settings)
    chosen = None
    if target is not None:
        from dataclasses import replace

        from ..judging import prepare_judge
        from ..stats.selective import check_shares
        from .selective import CALIBRATION_FOLDER, selective_pairs

        check_shares(target=target, delta=delta, calibration_share=calibration_share)
        calibrating = replace(config, input=str(calibration))
        prepare_judge(calibrating)  # its data checked before any model call
    result = run_judge(config, folder / JUDGE_FOLDER, options=options, hooks=hooks)
    if target is not None:
        run_judge(calibrating, folder / CALIBRATION_FOLDER, options=options, hooks=hooks)
        rule, accepted = selective_pairs(folder / CALIBRATION_FOLDER, folder / JUDGE_FOLDER,
                                         target=target, delta=delta,
                                         calibration_share=calibration_share, seed=seed)
        chosen = (rule, accepted, str(calibration))
    return rank_judged(source, folder, pairs, outputs, baseline=baseline, rounds=rounds,
                       seed=seed, judge=str(model), protocol=protocol,
                       simulated=result.simulated, selective=chosen)


def rank_judged(source: Path, folder: Path, pairs: list[RankPair], outputs: SystemOutputs, *,
                baseline: str | None, rounds: int, seed: int, judge: str, protocol: str,
                simulated: bool, jury: bool = False,
                selective: tuple[SelectiveResult, set[str], str] | None = None) -> RankResult:
    """Rank the decisions of the judge run in ``folder/judge`` (one judge's, or a jury's
    with each judge's order effects) and write the ranking to ``folder``; with
    ``selective`` (the rule, the pairs it accepts, the calibration file:
    :func:`.selective.selective_pairs`), only the accepted pairs' decisions.

    Raises:
        ConfigError: no pair decided (or, selective, none accepted); an unknown baseline.
    """
    from .live import JUDGE_FOLDER, comparisons_of_run, judges_order_effects

    judged = folder / JUDGE_FOLDER
    only = selective[1] if selective is not None else None
    comparisons, failed = comparisons_of_run(judged, pairs, outputs, only=only)
    if selective is not None:
        from dataclasses import replace

        from .selective import selective_summary

        rule, accepted, calibration = selective
        summary = selective_summary(rule, calibration)
        if not accepted:
            raise ConfigError(f"nothing to rank: {summary['guarantee']} (selective judging "
                              f"accepted none of the {rule.unlabelled[1]} pairs; rank "
                              f"without --target-agreement ranks every verdict)")
    board = rank_comparisons(comparisons, baseline=baseline, rounds=rounds, seed=seed,
                             n_failed=failed, source=str(source), judge=judge,
                             systems=outputs.systems)
    if selective is not None:
        board = replace(board, extra={**board.extra, "selective": summary}, notes=(
            *board.notes, f"selective judging: only the {len(accepted)} of "
            f"{rule.unlabelled[1]} judged pairs accepted at {100 * rule.target:g}% "
            f"guaranteed agreement are ranked (abstained pairs left out, never a tie): "
            f"{summary['guarantee']}"))
    if jury:
        from dataclasses import replace

        board = replace(board, extra={**board.extra, "order_by_judge": judges_order_effects(
            judged, pairs, outputs)})
    return write_ranking(board, folder, what=f"{source.name} judged by {judge} ({protocol})",
                         simulated=simulated, model=judge,
                         judge_report=f"{JUDGE_FOLDER}/report.html")

