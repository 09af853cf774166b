"""``jurybox serve-sim``: run the simulated judge as a foreground server."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..errors import ConfigError
from ._common import console, fail_cleanly
from ._options import (FAULTS_HELP, MAX_SEED, PANEL_DATA, PANEL_RUN, PANEL_SIM,
                       PANEL_SIM_BATCH, SimSeed, rule_option)
from ._values import check_bias, parse_faults


@fail_cleanly
def serve_sim(
    dataset: Annotated[str, typer.Option(
        envvar="JURYBOX_SIM_DATASET", rich_help_panel=PANEL_DATA,
        help="Items whose candidates or responses the judge "
        "recognises: a bundled name (truthfulqa, judgebench, ...) or a file, gold optional "
        "(its verdicts on items without gold are position-biased noise); 'none' for "
        "none.")] = "truthfulqa",
    ratings: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_SIM_RATINGS", rich_help_panel=PANEL_DATA,
        help="For rubric prompts (jurybox personalize): ratings "
        "the judge knows (bundled: squality, or a file); needs --items.")] = None,
    items: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_SIM_ITEMS", rich_help_panel=PANEL_DATA,
        help="Item texts for --ratings (bundled: squality, or a "
        "file).")] = None,
    port: Annotated[int, typer.Option(envvar="JURYBOX_SIM_PORT", min=1, max=65535,
                                      metavar="PORT", rich_help_panel=PANEL_RUN,
                                      help="TCP port on 127.0.0.1.")] = 8765,
    bias: Annotated[str, typer.Option(envvar="JURYBOX_SIM_BIAS", metavar="BIAS",
                                      rich_help_panel=PANEL_SIM,
                                      help="Position bias: none, primacy or recency.")
                    ] = "primacy",
    latency_ms: Annotated[float, typer.Option(envvar="JURYBOX_SIM_LATENCY_MS", min=0.0,
                                              metavar="MS", rich_help_panel=PANEL_SIM,
                                              help="Answer delay, ms: the service time a "
                                              "request holds its --max-concurrency slot.")
                    ] = 0.0,
    faults: Annotated[str, typer.Option(envvar="JURYBOX_SIM_FAULTS", metavar="FAULTS",
                                        rich_help_panel=PANEL_SIM, help=FAULTS_HELP)] = "",
    max_concurrency: Annotated[Optional[int], typer.Option(
        envvar="JURYBOX_SIM_MAX_CONCURRENCY", min=1, metavar="N", rich_help_panel=PANEL_SIM,
        help="Capacity, as a GPU server's: at most N online answers (chat completions, "
        "messages) at once, each holding its slot for --latency-ms; further requests wait "
        "in arrival order. Batches are not limited. Counters at /v1/sim/stats. Default: "
        "unlimited.")] = None,
    sim_seed: SimSeed = 0,
    batch_delay: Annotated[float, rule_option("--batch-delay", PANEL_SIM_BATCH, min=0.0,
        max=86_400.0, metavar="SECONDS", help="How long a batch stays in progress after its "
        "creation, seconds; its requests end evenly spread over that time.")] = 0.5,
    batch_error_rate: Annotated[float, rule_option("--batch-error-rate", PANEL_SIM_BATCH, min=0.0,
        max=1.0, metavar="R", help="Share of a batch's requests that end errored "
        "(HTTP 500).")] = 0.0,
    batch_expire_share: Annotated[float, rule_option("--batch-expire-share", PANEL_SIM_BATCH,
        min=0.0, max=1.0, metavar="R", help="Share of a batch's requests not run, "
        "coming back expired (with --batch-error-rate at most 1).")] = 0.0,
    batch_reject: Annotated[bool, rule_option("--batch-reject", PANEL_SIM_BATCH,
        help="Refuse every batch (OpenAI: failed at validation; Anthropic: HTTP 400).")
    ] = False,
    batch_seed: Annotated[int, typer.Option(
        envvar="JURYBOX_BATCH_SEED", min=0, max=MAX_SEED, metavar="N",
        rich_help_panel=PANEL_SIM_BATCH, help="Seeds which batch requests error or expire, "
        "and the order of a batch's results.")] = 0,
) -> None:
    """Serve the simulated judge (OpenAI-compatible /v1/chat/completions, Anthropic's
    /v1/messages, and both providers' batch APIs) on 127.0.0.1."""
    from ..datasets import load_dataset, load_rated_items, load_ratings
    from ..run.sim_notes import unlabelled_warning
    from ..sim import BatchScript, RubricKnowledge, SimConfig, SimJudge, serve_forever

    if (ratings is None) != (items is None):  # one without the other is never used
        raise ConfigError("--ratings needs --items (the texts of the rated items)"
                          if items is None else "--items gives the texts of the items rated "
                          "in --ratings: add --ratings, or leave --items unset")
    # gold is optional, as for jurybox judge: the items of a run's own file, labelled or not
    known = [] if dataset == "none" else load_dataset(dataset, labelled=False).items
    unlabelled = sum(not item.labelled for item in known)
    knowledge = None
    if ratings is not None and items is not None:
        table = load_ratings(ratings)
        texts = load_rated_items(items)
        knowledge = RubricKnowledge(table, {i: it.text for i, it in texts.items()})
    if batch_error_rate + batch_expire_share > 1:
        raise ConfigError(f"--batch-error-rate + --batch-expire-share must be at most 1, got "
                          f"{batch_error_rate:g} + {batch_expire_share:g}")
    batch = BatchScript(delay_s=batch_delay, error_rate=batch_error_rate,
                        expire_share=batch_expire_share, reject=batch_reject, seed=batch_seed)
    config = SimConfig(bias=check_bias(bias, "--bias"), latency_ms=latency_ms,
                       faults=parse_faults(faults, "--faults"), seed=sim_seed)
    console.print(f"simulated judge on http://127.0.0.1:{port}/v1 (model 'judge', "
                  f"{len(known)} item{'' if len(known) == 1 else 's'}"
                  + (f", {len(table)} ratings" if knowledge else "")
                  + f", bias {bias}"
                  + (f", {max_concurrency} at once" if max_concurrency else "")
                  + "); Ctrl-C stops it"
                  + (f"; {unlabelled_warning(unlabelled, len(known))}" if unlabelled else ""),
                  highlight=False)
    try:
        serve_forever(SimJudge(known, config, rubric=knowledge), port=port, batch=batch,
                      max_concurrency=max_concurrency)
    except OSError as exc:
        raise ConfigError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); "
                          f"choose another --port") from None
