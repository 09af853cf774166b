"""``jurybox judge FILE --cascade a,b --target-agreement P``: a live cascade of judges,
cheapest first (:func:`jurybox.judging.cascade.cascade_judge`), from the command line."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["run_cascade_command"]


def _row(item: Any) -> dict[str, Any]:
    """An item as a generic-format row (a pair: its two responses, gold from its label)."""
    from ..datasets.items import PairwiseItem

    if isinstance(item, PairwiseItem):
        row: dict[str, Any] = {"id": item.item_id, "prompt": item.question,
                               "candidates": [item.response_a, item.response_b]}
        gold = {"A>B": [0], "B>A": [1]}.get(item.label)
    else:
        row = {"id": item.item_id, "prompt": item.prompt, "candidates": list(item.candidates)}
        gold = sorted(item.gold) or None
    if gold:
        row["gold"] = gold
    return row


def run_cascade_command(file: str, cascade: str, config: Any, groups: Any, selective: Any, *,
                        pool: tuple, out: Path | None, model: str | None,
                        jury: object | None) -> None:
    """Check the request (before any model call), read the items as the judge run reads
    them, run the cascade and print it.

    Raises:
        ConfigError: no --target-agreement; --model or --jury with --cascade; a dry run; a
            stage named twice or none; as ``jurybox judge``.
        DataError: bad items (file, line, field).
    """
    from ..judging import prepare_judge
    from ..judging.cascade import cascade_judge
    from ..providers.spec import require_model
    from ._selective import print_live_cascade

    opts = selective.options()
    if opts is None:
        raise ConfigError("--cascade escalates what a judge cannot accept at a guaranteed "
                          "agreement: give --target-agreement")
    if model is not None or jury is not None:
        raise ConfigError("--cascade names its judges: give it instead of --model or --jury")
    if groups.cost.dry_run:
        raise ConfigError("--dry-run prices one judge; a cascade's later stages depend on the "
                          "first's answers: price each judge with --model M --dry-run")
    stages = [s.strip() for s in cascade.split(",") if s.strip()]
    if not stages or len(set(stages)) != len(stages):
        raise ConfigError(f"--cascade needs one or more different judges, got {cascade!r}")
    for stage in stages:
        require_model(stage, file)
    prepared = prepare_judge(replace(config, model=stages[0]))  # the items, checked
    rows = [_row(item) for item in prepared.selection]  # --limit: its seeded sample
    folder = out or Path("runs") / ("cascade-" + Path(file).stem + "-" + hashlib.sha256(
        f"{file}|{cascade}|{config.protocol}".encode()).hexdigest()[:8])
    names = ("k", "criteria", "template", "temperature", "max_tokens", "tolerance", "weights",
             "verdict_format", "pairwise_rule", "adaptive", "confidence", "min_k", "base_url",
             "sim")  # the judge settings each stage takes (the seed is the split's)
    settings = {k: getattr(config, k) for k in names if getattr(config, k, None) is not None}
    try:
        result = cascade_judge(rows, stages, target=opts.target, delta=opts.delta,
                               calibration_share=opts.share, seed=opts.seed, out=folder,
                               protocol=config.protocol, options=groups.jury_options(pool),
                               **settings)
    except ValueError as exc:
        raise ConfigError(f"--cascade: {exc}") from None
    print_live_cascade(result, opts, folder)
