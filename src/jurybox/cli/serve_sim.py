"""``jurybox serve-sim``: run the simulated judge as a foreground server."""

from __future__ import annotations

from typing import Annotated, Optional


from ._declared import declared
from ..errors import ConfigError
from ._common import console, fail_cleanly
from ._options import (MAX_SEED, SimSeed)
from ._values import check_bias, parse_faults


@fail_cleanly
def serve_sim(
    dataset: Annotated[str, declared("serve-sim --dataset")] = "truthfulqa",
    ratings: Annotated[Optional[str], declared("serve-sim --ratings")] = None,
    items: Annotated[Optional[str], declared("serve-sim --items")] = None,
    port: Annotated[int, declared("serve-sim --port", min=1, max=65535)] = 8765,
    bias: Annotated[str, declared("serve-sim --bias")
                    ] = "primacy",
    latency_ms: Annotated[float, declared("serve-sim --latency-ms", min=0.0)
                    ] = 0.0,
    faults: Annotated[str, declared("serve-sim --faults")] = "",
    max_concurrency: Annotated[Optional[int], declared("serve-sim --max-concurrency", min=1)
                               ] = None,
    sim_seed: SimSeed = 0,
    batch_delay: Annotated[float, declared("serve-sim --batch-delay", min=0.0, max=86400.0)] = 0.5,
    batch_error_rate: Annotated[float, declared("serve-sim --batch-error-rate", min=0.0,
                                                max=1.0)] = 0.0,
    batch_expire_share: Annotated[float, declared("serve-sim --batch-expire-share", min=0.0,
                                                  max=1.0)] = 0.0,
    batch_reject: Annotated[bool, declared("serve-sim --batch-reject")
    ] = False,
    batch_seed: Annotated[int, declared("serve-sim --batch-seed", min=0, max=MAX_SEED)] = 0,
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
