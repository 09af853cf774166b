"""``jurybox rank``: which system is better, by how much, and how sure we are."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional


from ._declared import argument, declared
from ._common import console, exit_for_status, grouped_command, print_warnings
from ._fit import print_table
from ._groups import (BatchFlags, CostOptions, EndpointOptions, ExecutorOptions, JudgeChoice,
                      OutputOptions, PromptOptions, ProtocolOptions, RunFlags, RunGroups,
                      SamplingOptions, SimOptions, protocol_settings)
from ._plan import cost_line
from ._progress import with_progress
from ._selective import SelectiveFlags, SelectiveOptions, report_selective, selective_for

if TYPE_CHECKING:
    from ..leaderboard.run import RankResult


@grouped_command
def rank(
    path: Annotated[str, argument("rank path")],
    *, baseline: Annotated[Optional[str], declared("rank --baseline")] = None,
    choice: JudgeChoice,
    protocol: Annotated[str, declared("rank --protocol")] = "both-orders",
    pairing: Annotated[str, declared("rank --pairing")] = "baseline",
    budget: Annotated[Optional[int], declared("rank --budget", min=1)] = None,
    judge_name: Annotated[Optional[str], declared("rank --judge")] = None,
    annotator: Annotated[Optional[str], declared("rank --annotator")] = None,
    rounds: Annotated[int, declared("rank --rounds", min=10, max=100000)] = 1000,
    prompt: PromptOptions, run: RunFlags, output: OutputOptions, endpoint: EndpointOptions,
    settings: ProtocolOptions, sampling: SamplingOptions, sim: SimOptions, cost: CostOptions,
    batching: BatchFlags, execution: ExecutorOptions, selective: SelectiveFlags,
    calibration: Annotated[Optional[str], declared("rank --calibration")] = None,
) -> None:
    """Rank systems against a baseline: per system the win rate (ties half), AlpacaEval's
    length-controlled win rate, the Bradley-Terry score (Elo points, baseline 1000) with its
    rank interval and the style-controlled score, each with a 95% CI from resampling
    prompts, and per pair of systems the judge's order-flip and first-shown rates. Judges
    systems' outputs in pairs (any pairwise protocol, through the judge's engine: cache,
    resume, batch, dry run), or reads recorded judgments with no model call. Writes
    RUN/summary.json, RUN/leaderboard.csv and RUN/report.html."""
    from ..leaderboard.run import rank as rank_path
    from ..leaderboard.run import source_kind

    from ..errors import ConfigError

    source = Path(path)
    kind = source_kind(source)
    for flag, value, takes in (("--judge", judge_name, "recorded"),
                               ("--annotator", annotator, "alpaca_eval")):
        if value is not None and kind != takes:  # never ignored silently
            what = "recorded judgments" if takes == "recorded" else "an AlpacaEval folder"
            raise ConfigError(f"{flag} {value!r} is for {what}; {path} holds "
                              f"{kind.replace('_', ' ')}")
    out = Path(output.out) if output.out else Path("runs") / f"rank-{source.stem or 'run'}"
    chosen = selective.options()
    if (chosen is None) != (calibration is None):
        raise ConfigError("--target-agreement and --calibration go together: the judge's "
                          "confidence is calibrated on --calibration's labelled pairs")
    if chosen is not None and kind != "outputs":
        raise ConfigError("--target-agreement ranks a live judge's accepted verdicts; for "
                          "recorded judgments use jurybox score FILE --target-agreement P")
    if kind != "outputs":  # recorded: no model call
        print_ranking(rank_path(source, baseline=baseline, judge=judge_name,
                                annotator=annotator, rounds=rounds, seed=run.seed, out=out))
        return
    model, panel = choice.model, choice.panel()
    selective_for(selective, panel)  # one judge's confidence, not a jury's
    groups = RunGroups(run, endpoint, execution, batching, cost)
    if panel is not None:
        _rank_jury(source, out, panel, protocol=protocol, pairing=pairing, budget=budget,
                   baseline=baseline, rounds=rounds, prompt=prompt, settings=settings,
                   sampling=sampling, sim=sim, groups=groups)
        return
    _rank_live(source, out, model=model, protocol=protocol, pairing=pairing, budget=budget,
               baseline=baseline, rounds=rounds, prompt=prompt, settings=settings,
               sampling=sampling, sim=sim, groups=groups,
               selective=(chosen, calibration) if chosen and calibration else None)


def _rank_live(source: Path, out: Path, *, model: str | None, protocol: str, pairing: str,
               budget: int | None, baseline: str | None, rounds: int, prompt: PromptOptions,
               settings: ProtocolOptions, sampling: SamplingOptions, sim: SimOptions,
               groups: RunGroups, selective: tuple[SelectiveOptions, str] | None = None
               ) -> None:
    """Plan the pairs, judge them into OUT/judge (and, selective, the calibration pairs
    into OUT/calibration), rank the (accepted) decisions."""
    import tempfile
    from dataclasses import replace

    from ..errors import ConfigError
    from ..judging import JudgeConfig, prepare_judge, run_judge
    from ..protocols import protocol_class
    from ..leaderboard.live import JUDGE_FOLDER
    from ..leaderboard.run import pairs_file, plan, rank_judged
    from ..leaderboard.selective import CALIBRATION_FOLDER, selective_pairs

    if getattr(protocol_class(protocol), "task", None) != "pairwise":
        raise ConfigError(f"--protocol {protocol!r} is not a pairwise protocol: rank judges "
                          f"pairs (both-orders, pairwise, keyed, apoc)")
    seed = groups.run.seed
    outputs, pairs = plan(source, pairing=pairing,  # type: ignore[arg-type]
                          baseline=baseline, budget=budget, seed=seed)
    url, pool = groups.endpoint.split()
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch) if groups.cost.dry_run else out
        config = JudgeConfig(input=str(pairs_file(pairs, where)),
                             model="sim" if model is None else model, protocol=protocol,
                             seed=seed, **protocol_settings(settings, prompt, sampling,
                                                            sim=sim.config(), base_url=url))
        opts, calibration = selective if selective is not None else (None, "")
        calibrating = replace(config, input=calibration) if opts is not None else None
        if calibrating is not None:  # its data checked before any model call
            prepare_judge(calibrating)
        judged = groups.judged(
            config, model=model, data=str(source), bundled=False, prepare=prepare_judge,
            plan=lambda p: (p.selection, p.protocols,
                            _planned(source, len(pairs), len(outputs.systems), protocol)),
            pool=pool, execute=run_judge, out=lambda c: out / JUDGE_FOLDER)
        calibrated = None if calibrating is None else groups.judged(
            calibrating, model=model, data=calibration, bundled=False, prepare=prepare_judge,
            plan=lambda p: (p.selection, p.protocols, f"calibration: {calibration}, "
                            f"{p.selection.n_items} labelled pairs, protocol {protocol}"),
            pool=pool, execute=run_judge, out=lambda c: out / CALIBRATION_FOLDER)
        if judged is None:  # --dry-run: the plan is printed
            return
        result, judge = judged
    chosen = None
    if opts is not None:
        rule, accepted = selective_pairs(out / CALIBRATION_FOLDER, out / JUDGE_FOLDER,
                                         target=opts.target, delta=opts.delta,
                                         calibration_share=opts.share, seed=opts.seed)
        chosen = (rule, accepted, calibration)
    ranked = rank_judged(source, out, pairs, outputs, baseline=baseline, rounds=rounds,
                         seed=seed, judge=judge, protocol=protocol,
                         simulated=result.simulated, selective=chosen)
    print_ranking(ranked, simulated_note=False)
    if opts is not None and chosen is not None:
        report_selective([chosen[0]], opts)
        if calibrated is not None:
            print_warnings(calibrated[0])
    print_warnings(result)
    cost_line(result)
    s = result.summary
    exit_for_status(result, nothing_judged=s.n_items > 0 and s.n_failed == s.n_items)


def _rank_jury(source: Path, out: Path, panel: Any, *, protocol: str, pairing: str,
               budget: int | None, baseline: str | None, rounds: int, prompt: PromptOptions,
               settings: ProtocolOptions, sampling: SamplingOptions, sim: SimOptions,
               groups: RunGroups) -> None:
    """A jury judges the planned pairs into OUT/judge (a jury's folder); rank its votes."""
    from ..leaderboard.run import rank as rank_path

    url, pool = groups.endpoint.split()
    options = groups.jury_options(pool)
    judging = protocol_settings(settings, prompt, sampling, sim=sim.config(), base_url=url)
    if groups.cost.dry_run:
        _dry_run_jury(source, out, panel, protocol=protocol, pairing=pairing, budget=budget,
                      baseline=baseline, seed=groups.run.seed, options=options,
                      settings=judging)
        return
    ranked = with_progress(
        rank_path, source, baseline=baseline, jury=panel, protocol=protocol,
        pairing=pairing, budget=budget, rounds=rounds, seed=groups.run.seed, out=out,
        options=options, **judging)
    print_ranking(ranked)
    if ranked.summary.get("n_failed"):  # pairs the jury could not decide: a partial run
        import typer

        from ._common import EXIT_PARTIAL

        raise typer.Exit(EXIT_PARTIAL)


def _dry_run_jury(source: Path, out: Path, panel: Any, *, protocol: str, pairing: str,
                  budget: int | None, baseline: str | None, seed: int, options: Any,
                  settings: dict[str, Any]) -> None:
    """Price each judge of the jury on the planned pairs, and the whole jury (no model call;
    the pairs file goes to a scratch folder, nothing is written under OUT)."""
    import tempfile

    from ..judging import JudgeConfig
    from ..leaderboard.live import JUDGE_FOLDER
    from ..leaderboard.run import pairs_file, plan
    from ._jury import dry_run_jury

    outputs, pairs = plan(source, pairing=pairing,  # type: ignore[arg-type]
                          baseline=baseline, budget=budget, seed=seed)
    with tempfile.TemporaryDirectory() as scratch:
        config = JudgeConfig(input=str(pairs_file(pairs, Path(scratch))), model="sim",
                             protocol=protocol, seed=seed, **settings)
        dry_run_jury(config, panel, out / JUDGE_FOLDER, options,
                     _planned(source, len(pairs), len(outputs.systems), protocol))


def _planned(source: Path, pairs: int, systems: int, protocol: str) -> str:
    """What a ranking's dry run prices: ``systems.jsonl: 48 pairs of 3 systems, ...``."""
    return f"{source.name}: {pairs} pairs of {systems} systems, protocol {protocol}"


def print_ranking(result: RankResult, *, simulated_note: bool = True) -> None:
    """The leaderboard table (80 columns), its notes and where the files are (and, for the
    simulated judge, that its verdicts on unlabelled pairs are noise, unless the judge run's
    own warnings say it: ``simulated_note=False``)."""
    from rich.table import Table

    from ..terminal import data

    s = result.summary
    baseline = s["baseline"]
    who = "SIMULATED judge" if s.get("simulated") else (s.get("judge") or "")
    table = Table(title=data(f"{s['what']}: {len(s['systems'])} systems, "
                             f"{s['n_comparisons']} comparisons"), title_justify="left",
                  caption=f"95% CIs from {s['bootstrap']['rounds']} bootstrap rounds over "
                  f"{s['n_prompts']} prompts; BT: Bradley-Terry, Elo points"
                  + (f" ({data(baseline)} = 1000)" if baseline else " (mean 1000)")
                  + (f"; judge: {data(who)}" if who else ""), caption_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("system", overflow="fold", max_width=22)
    table.add_column("n", justify="right")
    if baseline:
        table.add_column("win %", justify="right")
        table.add_column("LC %", justify="right")
    table.add_column("BT", justify="right")
    table.add_column("BT 95% CI", justify="right")
    for r in s["systems"]:
        low, high = r["rank_ci"] or (r["rank"], r["rank"])
        cells: list[Any] = ["—" if r["rank"] is None else str(r["rank"]) if low == high
                            else f"{low}-{high}", data(r["name"]),
                 str(r["n"])]
        if baseline:
            cells += [_pct(r["win_rate"], r["win_rate_ci"]), _pct(r["lc_win_rate"], None)]
        cells += ["—" if r["bt"] is None else f"{r['bt']:.0f}",
                  "anchor" if r["name"] == baseline else
                  "—" if not r["bt_ci"] or None in r["bt_ci"] else
                  f"{r['bt_ci'][0]:.0f} to {r['bt_ci'][1]:.0f}"]
        table.add_row(*cells)
    print_table(table)
    for note in s["notes"]:
        console.print(f"note: {data(note)}")
    if s["n_failed"]:
        console.print(f"{s['n_failed']} pairs have no decision (a judge failure): left out, "
                      "never a tie")
    order = (s.get("order") or [None])[0]
    if order and order["n_orders"]:
        console.print(f"order effects: verdicts flipped with the order for "
                      f"{order['flip_rate']:.1f}% of {order['n_orders']} pairs; the response "
                      f"shown first won {order['first_shown_rate']:.1f}% of decided verdicts "
                      f"(50% unbiased)")
    for name, o in (s.get("order_by_judge") or {}).items():
        if o["n_orders"]:
            console.print(f"order effects of judge {data(name)}: verdicts flipped with the "
                          f"order for {o['flip_rate']:.1f}% of {o['n_orders']} pairs; the "
                          f"response shown first won {o['first_shown_rate']:.1f}% of decided "
                          f"verdicts (50% unbiased)")
    if s.get("simulated") and simulated_note:
        console.print("warning: the judge is SIMULATED: its verdicts on unlabelled pairs (no "
                      "output marked correct, or both) are position-biased noise, for trying "
                      "the tool, not a measurement")
    console.print(f"leaderboard: {data(str(result.out))}/summary.json, leaderboard.csv; "
                  f"report: {data(str(result.out))}/report.html")


def _pct(value: float | None, ci: list[float | None] | None) -> str:
    if value is None:
        return "—"
    if not ci or None in ci:
        return f"{value:.1f}"
    return f"{value:.1f} ({ci[0]:.0f}-{ci[1]:.0f})"
