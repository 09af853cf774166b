"""``jurybox serve-sim``: run the simulated judge as a foreground server."""

from __future__ import annotations

from typing import Annotated

import typer

from ..datasets import load_listwise
from ..sim import SimConfig, SimJudge, serve_forever
from ._common import console, fail_cleanly
from ..errors import ConfigError
from .bench import check_bias, parse_faults


@fail_cleanly
def serve_sim(
    dataset: Annotated[str, typer.Option(
        envvar="JURYBOX_SIM_DATASET", help="Items whose candidates the judge recognises "
        "(bundled name or file; 'none' for none).")] = "truthfulqa",
    port: Annotated[int, typer.Option(envvar="JURYBOX_SIM_PORT", min=1, max=65535,
                                      help="TCP port on 127.0.0.1.")] = 8765,
    bias: Annotated[str, typer.Option(envvar="JURYBOX_SIM_BIAS",
                                      help="none, primacy or recency.")] = "primacy",
    latency_ms: Annotated[float, typer.Option(envvar="JURYBOX_SIM_LATENCY_MS", min=0.0,
                                              help="Answer delay, ms.")] = 0.0,
    faults: Annotated[str, typer.Option(envvar="JURYBOX_SIM_FAULTS",
                                        help="e.g. rate_429=0.05,rate_500=0.02")] = "",
    seed: Annotated[int, typer.Option(envvar="JURYBOX_SEED")] = 0,
) -> None:
    """Serve the simulated judge (OpenAI-compatible /v1/chat/completions) on 127.0.0.1."""
    items = [] if dataset == "none" else load_listwise(dataset).items
    config = SimConfig(bias=check_bias(bias, "--bias"), latency_ms=latency_ms,
                       faults=parse_faults(faults, "--faults"), seed=seed)
    console.print(f"simulated judge on http://127.0.0.1:{port}/v1 (model 'judge', "
                  f"{len(items)} items, bias {bias}); Ctrl-C stops it")
    try:
        serve_forever(SimJudge(items, config), port=port)
    except OSError as exc:
        raise ConfigError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); "
                          f"choose another --port") from None
