"""``jurybox serve-sim``: run the simulated judge as a foreground server."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..datasets import (BUNDLED_ITEMS, BUNDLED_RATINGS, bundled_path, load_dataset,
                        load_rated_items, load_ratings)
from ..sim import RubricKnowledge, SimConfig, SimJudge, serve_forever
from ._common import console, fail_cleanly
from ..errors import ConfigError
from .bench import check_bias, parse_faults


@fail_cleanly
def serve_sim(
    dataset: Annotated[str, typer.Option(
        envvar="JURYBOX_SIM_DATASET", help="Items whose candidates or responses the judge "
        "recognises: a bundled name (truthfulqa, judgebench, ...) or a file; 'none' for "
        "none.")] = "truthfulqa",
    ratings: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_SIM_RATINGS", help="For rubric prompts (jurybox personalize): ratings "
        "the judge knows (bundled: squality, or a file); needs --items.")] = None,
    items: Annotated[Optional[str], typer.Option(
        envvar="JURYBOX_SIM_ITEMS", help="Item texts for --ratings (bundled: squality, or a "
        "file).")] = None,
    port: Annotated[int, typer.Option(envvar="JURYBOX_SIM_PORT", min=1, max=65535,
                                      help="TCP port on 127.0.0.1.")] = 8765,
    bias: Annotated[str, typer.Option(envvar="JURYBOX_SIM_BIAS",
                                      help="none, primacy or recency.")] = "primacy",
    latency_ms: Annotated[float, typer.Option(envvar="JURYBOX_SIM_LATENCY_MS", min=0.0,
                                              help="Answer delay, ms.")] = 0.0,
    faults: Annotated[str, typer.Option(envvar="JURYBOX_SIM_FAULTS",
                                        help="e.g. rate_429=0.05,rate_500=0.02")] = "",
    seed: Annotated[int, typer.Option(envvar="JURYBOX_SEED", help="Seeds the judge's fixed "
                                      "per-candidate offsets and its noise.")] = 0,
) -> None:
    """Serve the simulated judge (OpenAI-compatible /v1/chat/completions) on 127.0.0.1."""
    known = [] if dataset == "none" else load_dataset(dataset).items
    knowledge = None
    if ratings is not None:
        if items is None:
            raise ConfigError("--ratings needs --items (the texts of the rated items)")
        table = load_ratings(bundled_path(BUNDLED_RATINGS[ratings])
                             if ratings in BUNDLED_RATINGS else ratings)
        texts = load_rated_items(bundled_path(BUNDLED_ITEMS[items])
                                 if items in BUNDLED_ITEMS else items)
        knowledge = RubricKnowledge(table, {i: it.text for i, it in texts.items()})
    config = SimConfig(bias=check_bias(bias, "--bias"), latency_ms=latency_ms,
                       faults=parse_faults(faults, "--faults"), seed=seed)
    console.print(f"simulated judge on http://127.0.0.1:{port}/v1 (model 'judge', "
                  f"{len(known)} items" + (f", {len(table)} ratings" if knowledge else "")
                  + f", bias {bias}); Ctrl-C stops it")
    try:
        serve_forever(SimJudge(known, config, rubric=knowledge), port=port)
    except OSError as exc:
        raise ConfigError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); "
                          f"choose another --port") from None
