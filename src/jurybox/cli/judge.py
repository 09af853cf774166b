"""``jurybox judge``: pick the best of N candidates (or the better of two) without gold."""

from __future__ import annotations

from dataclasses import replace
import math
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..reports.notes import totals_note
from ._tables import print_pool
from ..batch.options import DEFAULT_POLL_S
from ..run.options import (DEFAULT_ATTEMPTS, DEFAULT_CONCURRENCY, DEFAULT_STRUCTURED,
                           DEFAULT_TIMEOUT_S, DEFAULT_TRANSPORT)
from ..run.options import DEFAULT_EXECUTOR, DEFAULT_RAY_ACTORS
from ._fit import print_table
from ._common import console, exit_for_status, fail_cleanly, print_warnings
from ._progress import BenchProgress
from ..limits import DEFAULT_MAX_ANSWER_CHARS
from ._options import MaxAnswerChars
from ._options import PANEL_DATA, PANEL_START
from ._options import ExecutorOpt, RayActorsOpt, RayAddressOpt
from ._options import (BatchFallbackOpt, BatchFilesOpt, BatchMaxTokensOpt, BatchOpt, BatchPollOpt,
                       batch_options,
                       Attempts, BaseUrl, Cache,
                       EndpointsOpt, ReplicasOpt, Concurrency, DryRun, MaxTokens, Model,
                       NoCache, Out, PriceIn, PriceBatch, PriceOut, Seed, SimBias, SimFaults,
                       SimLatency,
                       SimSeed, Structured, Temperature, Timeout, TransportOpt, model_for,
                       no_pool_with_jury, run_options)
from ._jury import JuryOpt
from ._plan import cost_line, plan_for, print_plan
from ._protocol_options import (AdaptiveOpt, ConfidenceOpt, CriteriaOpt, K, MinK, PairwiseRuleOpt,
                               TemplateOpt, Tolerance, VerdictFormatOpt, WeightsOpt)
from .bench import parse_weights, sim_options

if TYPE_CHECKING:
    from ..judging import JudgeResult
    from ..judging.results import PairwiseOutcome

#: Rows of the per-item table printed at the end (all of them are in judgments.csv).
SHOWN_ROWS = 20


@fail_cleanly
def judge(
    file: Annotated[str, typer.Argument(
        metavar="FILE", help="JSON lines, one item a line: {\"id\": ..., \"prompt\": ..., "
        "\"candidates\": [text, ...], \"gold\": index or [indices] (optional)}. Pairwise "
        "protocols take lines with exactly 2 candidates. Any bench dataset works too.")],
    model: Model = None,
    jury: JuryOpt = None,
    protocol: Annotated[str, typer.Option(
        envvar="JURYBOX_PROTOCOL", metavar="NAME", rich_help_panel=PANEL_START,
        help="One protocol: pcf (K permutations, consensus), direct (one call), or for 2 "
        "candidates: pairwise, both-orders, keyed, apoc (bench compares several).")] = "pcf",
    k: K = 7,
    criteria: CriteriaOpt = None,
    template: TemplateOpt = None,
    limit: Annotated[Optional[int], typer.Option(
        envvar="JURYBOX_LIMIT", min=1, metavar="N", rich_help_panel=PANEL_DATA,
        help="Judge a seeded sample of N items (default: all).")] = None,
    seed: Seed = 0,
    out: Out = None,
    cache: Cache = None,
    no_cache: NoCache = False,
    base_url: BaseUrl = None,
    endpoints: EndpointsOpt = None,
    replicas: ReplicasOpt = 1,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    attempts: Attempts = DEFAULT_ATTEMPTS,
    timeout: Timeout = DEFAULT_TIMEOUT_S,
    transport: TransportOpt = DEFAULT_TRANSPORT,
    structured: Structured = DEFAULT_STRUCTURED,
    max_answer_chars: MaxAnswerChars = DEFAULT_MAX_ANSWER_CHARS,
    tolerance: Tolerance = 0.5,
    weights: WeightsOpt = "0.5,0.25,0.2,0.05",
    verdict_format: VerdictFormatOpt = None,
    pairwise_rule: PairwiseRuleOpt = None,
    adaptive: AdaptiveOpt = None,
    confidence: ConfidenceOpt = None,
    min_k: MinK = None,
    temperature: Temperature = 0.0,
    max_tokens: MaxTokens = None,
    sim_bias: SimBias = "primacy",
    sim_latency_ms: SimLatency = 0.0,
    sim_faults: SimFaults = "",
    sim_seed: SimSeed = 0,
    dry_run: DryRun = False,
    price_in: PriceIn = None,
    price_out: PriceOut = None,
    price_batch: PriceBatch = None,
    batch: BatchOpt = False,
    batch_fallback: BatchFallbackOpt = "batch",
    batch_poll: BatchPollOpt = DEFAULT_POLL_S,
    batch_max_tokens: BatchMaxTokensOpt = None,
    batch_files: BatchFilesOpt = False,
    executor: ExecutorOpt = DEFAULT_EXECUTOR,
    ray_address: RayAddressOpt = None,
    ray_actors: RayActorsOpt = DEFAULT_RAY_ACTORS,
) -> None:
    """Judge candidates that have no gold: per item the winner(s), every candidate's C_i and
    its components, how often the permutations agreed with the pick, and flags (flipped,
    failed). Writes RUN/judgments.jsonl and RUN/judgments.csv; gold, where given, adds
    accuracy."""
    from ..cost import resolve_price
    from ..judging import JudgeConfig, default_judge_out, prepare_judge, run_judge
    from ..protocols.templates import load_template

    from ..datasets import BUNDLED

    from ._jury import jury_for

    if "," in protocol:  # a list is bench's: judge decides with one protocol
        from ..errors import ConfigError

        raise ConfigError(f"--protocol takes one protocol, got {protocol!r}; to compare "
                          f"several, use jurybox bench --protocols {protocol}")
    from ..run.endpoint import split_endpoints

    url, pool = split_endpoints(base_url, endpoints)  # one URL, or a pool
    sim = sim_options(sim_bias, sim_latency_ms, sim_faults, sim_seed)
    panel = jury_for(jury, model)
    config = JudgeConfig(
        input=file, model="sim" if model is None or panel else model, protocol=protocol, k=k,
        limit=limit, seed=seed,
        tolerance=tolerance, weights=parse_weights(weights), temperature=temperature,
        max_tokens=max_tokens, base_url=url, verdict_format=verdict_format,
        pairwise_rule=pairwise_rule, adaptive=adaptive, confidence=confidence, min_k=min_k,
        criteria=criteria,
        template=None if template is None else load_template(template, criteria=criteria),
        sim=sim)
    if panel is not None:
        from ..jury.run import default_jury_out

        no_pool_with_jury(pool, replicas)
        from ._jury import command_price, dry_run_jury, run_jury_command

        run = run_options(concurrency=concurrency, attempts=attempts, timeout=timeout,
                          transport=transport, cache=cache, no_cache=no_cache,
                          structured=structured, max_answer_chars=max_answer_chars,
                          price=command_price(price_in, price_out,
                                                                  price_batch),
                          batch=batch_options(batch, batch_fallback, batch_poll,
                                              batch_max_tokens, batch_files),
                          executor=executor, ray_address=ray_address, ray_actors=ray_actors)
        folder = out or default_jury_out("judge", config.as_dict(), panel)
        if dry_run:
            dry_run_jury(config, panel, folder, run, f"{file}, protocol {protocol}")
            return
        run_jury_command(config, panel, folder, run, per_item=SHOWN_ROWS)
        return
    model = model_for(model, file, bundled=file in BUNDLED, check=lambda: prepare_judge(config))
    config = replace(config, model=model)
    price = resolve_price(model, price_in, price_out, price_batch)
    options = run_options(concurrency=concurrency, attempts=attempts, timeout=timeout,
                          transport=transport, cache=cache, no_cache=no_cache,
                          structured=structured, max_answer_chars=max_answer_chars,
                          price=price,
                          batch=batch_options(batch, batch_fallback, batch_poll,
                                              batch_max_tokens, batch_files),
                          endpoints=pool, replicas=replicas, executor=executor,
                          ray_address=ray_address, ray_actors=ray_actors, model=model)
    if dry_run:
        prepared = prepare_judge(config)  # every check a run makes before its first call
        print_plan(plan_for(prepared.selection, prepared.protocols, model=model, price=price),
                   model=model, what=f"{prepared.dataset.name}, {prepared.selection.n_items} "
                   f"items, protocol {protocol}",
                   batch=options.batch is not None)
        return
    out = out or default_judge_out(config)
    with BenchProgress() as progress:
        result = run_judge(config, out, options=options, hooks=progress.hooks())
    print_judge_result(result)
    print_warnings(result)
    cost_line(result)
    s = result.summary
    exit_for_status(result, nothing_judged=s.n_items > 0 and s.n_failed == s.n_items)


def print_judge_result(result: JudgeResult) -> None:
    """The first rows of the per-item table, the summary line and where the files are."""
    from rich.table import Table

    from ..judging import read_judgments
    from ..terminal import data, safe_text
    from ._tables import first_shown_line, length_line

    s = result.summary
    judge_name = f"SIMULATED ({s.bench.model})" if result.simulated else result.judge
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
    if s.n_labelled:
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
