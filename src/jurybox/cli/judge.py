"""``jurybox judge``: pick the best of N candidates (or the better of two) without gold."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Optional


from ._declared import argument, declared
from ..reports.notes import totals_note
from ._common import console, grouped_command, judged_by
from ._fit import print_table
from ._groups import (BatchFlags, CostOptions, EndpointOptions, ExecutorOptions, JudgeChoice,
                      OutputOptions, PromptOptions, ProtocolOptions, RunFlags, RunGroups,
                      SamplingOptions, SimOptions, finish_run, protocol_settings)
from ._selective import CascadeOpt, SelectiveFlags, selective_for
from ._protocol_options import K
from ._tables import print_pool

if TYPE_CHECKING:
    from ..judging import JudgeResult
    from ..judging.results import PairwiseOutcome

#: Rows of the per-item table printed at the end (all of them are in judgments.csv).
SHOWN_ROWS = 20


@grouped_command
def judge(
    file: Annotated[str, argument("judge file")],
    choice: JudgeChoice,
    protocol: Annotated[str, declared("judge --protocol")] = "pcf",
    k: K = 7,
    *, prompt: PromptOptions,
    limit: Annotated[Optional[int], declared("judge --limit", min=1)] = None,
    run: RunFlags, output: OutputOptions, endpoint: EndpointOptions,
    settings: ProtocolOptions, sampling: SamplingOptions, sim: SimOptions,
    cost: CostOptions, batching: BatchFlags, execution: ExecutorOptions,
    selective: SelectiveFlags, cascade: CascadeOpt = None,
) -> None:
    """Judge candidates that have no gold: per item the winner(s), every candidate's C_i and
    its components, how often the permutations agreed with the pick, and flags (flipped,
    failed). Writes RUN/judgments.jsonl and RUN/judgments.csv; gold, where given, adds
    accuracy."""
    from ..datasets import BUNDLED
    from ..judging import JudgeConfig, default_judge_out, prepare_judge, run_judge

    if "," in protocol:  # a list is bench's: judge decides with one protocol
        from ..errors import ConfigError

        raise ConfigError(f"--protocol takes one protocol, got {protocol!r}; to compare "
                          f"several, use jurybox bench --protocols {protocol}")
    url, pool = endpoint.split()  # one URL, or a pool
    sim_config = sim.config()
    model, panel = choice.model, choice.panel()
    chosen = selective_for(selective, panel)
    judging = protocol_settings(settings, prompt, sampling, sim=sim_config, base_url=url)
    config = JudgeConfig(
        input=file, model=choice.config_model(panel), protocol=protocol, k=k,
        limit=limit, seed=run.seed, **judging)
    groups = RunGroups(run, endpoint, execution, batching, cost)
    if cascade is not None:
        from ._cascade import run_cascade_command

        def select(first: str) -> tuple[list, str]:  # the items, checked; --limit's sample
            return list(prepare_judge(replace(config, model=first)).selection), protocol

        run_cascade_command(file, cascade, groups, selective, select=select, pool=pool,
                            out=output.out, model=model, jury=choice.jury,
                            settings={"k": k, **judging},
                            folder_key=f"{file}|{cascade}|{protocol}")
        return
    if panel is not None:
        from ..jury.run import default_jury_out
        from ._jury import dry_run_jury, run_jury_command

        jury_options = groups.jury_options(pool)
        folder = output.out or default_jury_out("judge", config.as_dict(), panel)
        if cost.dry_run:
            dry_run_jury(config, panel, folder, jury_options, f"{file}, protocol {protocol}")
            return
        run_jury_command(config, panel, folder, jury_options, per_item=SHOWN_ROWS)
        return
    judged = groups.judged(
        config, model=model, data=file, bundled=file in BUNDLED, prepare=prepare_judge,
        plan=lambda p: (p.selection, p.protocols, f"{p.dataset.name}, "
                        f"{p.selection.n_items} items, protocol {protocol}"),
        pool=pool, execute=run_judge, out=lambda c: output.out or default_judge_out(c))
    if judged is None:  # --dry-run: the plan is printed
        return
    result, _ = judged
    print_judge_result(result)
    s = result.summary
    finish_run(result, chosen, nothing_judged=s.n_items > 0 and s.n_failed == s.n_items)


def print_judge_result(result: JudgeResult) -> None:
    """The first rows of the per-item table, the summary line and where the files are."""
    from rich.table import Table

    from ..judging import read_judgments
    from ..terminal import data, safe_text
    from ._tables import first_shown_line, length_line

    s = result.summary
    judge_name = judged_by(result, s.bench.model)
    pairwise = s.bench.task == "pairwise"
    # item ids, file and model names are the user's text: never rich markup ("[/]"), and
    # control characters in them are shown as escapes (jurybox.terminal)
    table = Table(title=data(f"{s.bench.dataset}: {s.n_items} item"
                             f"{'' if s.n_items == 1 else 's'}, {s.label}, judge: "
                             f"{judge_name}"), title_justify="left")
    for column in ("item", "verdict" if pairwise else "winner(s)",
                   "verdict per call" if pairwise else "C_i (per candidate)", "agree", "flags"):
        table.add_column(column, overflow="fold")
    rows = 0
    for j in read_judgments(result.out / "judgments.jsonl"):
        if rows == SHOWN_ROWS:
            break
        rows += 1
        winners = (j.verdict or "-") if j.task == "pairwise" else \
            ",".join(map(str, j.winners)) or "-"
        flags = ", ".join(f for f, on in (("FAILED", j.failed), ("flipped", j.flipped)) if on)
        detail = (" ".join(str(v or "-") for v in j.top_picks) if pairwise else
                  " ".join(f"{c:.1f}" for c in j.combined) if j.combined else "")
        table.add_row(data(j.item_id), data(winners), data(detail),
                      "" if j.agreement_rate is None else f"{100 * j.agreement_rate:.0f}%",
                      flags)
    print_table(table)
    if pairwise:
        console.print("verdict: A = candidate 0, B = candidate 1 (in the input's order, "
                      "whatever order a call showed them in), tie = neither", highlight=False)
    more = f" (first {SHOWN_ROWS} shown)" if s.n_items > SHOWN_ROWS else ""
    items = "item" if s.n_items == 1 else "items"
    flip = "n/a" if s.flip_rate is None else f"{100 * s.flip_rate:.1f}%"
    agree = "n/a" if s.mean_agreement is None else f"{100 * s.mean_agreement:.1f}%"
    agreed = ("calls agreed with the verdict" if s.bench.task == "pairwise" else
              "permutations agreed with the pick")
    planned = s.bench.protocols[s.protocol].calls_planned
    if planned is not None and planned <= s.n_items:  # one call an item: no order was varied
        console.print(f"{s.n_items} {items}{more}: {s.n_failed} failed; one call per item, "
                      f"so the order was not varied "
                      f"({'both-orders or apoc vary it' if pairwise else 'pcf varies it'})",
                      highlight=False)
    else:
        console.print(f"{s.n_items} {items}{more}: {s.n_failed} failed; the order changed the "
                      f"{'verdict' if pairwise else 'pick'} on {flip} of decided "
                      f"items; {agreed} {agree} of the time on average", highlight=False)
    if s.outcome is not None:
        console.print(outcome_line(s.outcome), highlight=False)
    if pairwise:
        console.print(first_shown_line(s.bench.protocols[s.protocol]), highlight=False)
    if (lengths := s.bench.protocols[s.protocol].length_bias) is not None:
        console.print(length_line(lengths, pairwise), highlight=False)
    acc = s.bench.protocols[s.protocol].accuracy
    if s.n_labelled and not acc.n:  # every labelled item failed: no accuracy, and why
        console.print(f"accuracy: none: every one of the {s.n_labelled} labelled items failed "
                      f"(failures are never scored)", highlight=False)
    elif s.n_labelled:
        lo, hi = acc.confidence_interval
        ci = ("too few items for a CI" if math.isnan(lo) or math.isnan(hi)
              else f"95% CI {100 * lo:.1f} to {100 * hi:.1f}")
        labelled = "labelled item" if acc.n == 1 else "labelled items"
        console.print(f"accuracy on the {acc.n} {labelled} judged: {100 * acc.accuracy:.1f}% "
                      f"({ci})", highlight=False)
    console.print(totals_note(result.totals), highlight=False)
    print_pool(result.out)
    console.print(safe_text(f"judgments: {result.out / 'judgments.jsonl'} and "
                            f"{result.out / 'judgments.csv'}; report: "
                            f"{result.out / 'report.html'} (jurybox show {result.out} ITEM_ID "
                            f"for one item)"), highlight=False, markup=False)


def outcome_line(o: PairwiseOutcome) -> str:
    """``candidate 0 won 12, lost 5, tied 3 of 20 decided items: win rate 67.5% (ties count
    half; 95% CI 45.0 to 87.5)``, plus the failed items when there are any."""
    failed = f", {o.failed} failed" if o.failed else ""
    head = (f"candidate 0 won {o.won}, lost {o.lost}, tied {o.tied} of {o.decided} decided "
            f"item{'' if o.decided == 1 else 's'}{failed}")
    if not o.decided:
        return head
    lo, hi = o.confidence_interval
    ci = ("too few items for a CI" if math.isnan(lo) or math.isnan(hi)
          else f"95% CI {100 * lo:.1f} to {100 * hi:.1f}")
    return f"{head}: win rate {100 * o.win_rate:.1f}% (ties count half; {ci})"
