"""``jurybox judge FILE --cascade a,b --target-agreement P`` and ``jurybox bench DATASET
--cascade a,b --target-agreement P``: a live cascade of judges, cheapest first
(:func:`jurybox.judging.cascade.cascade_judge`), from the command line."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..terminal import data, safe_text
from ._common import console
from ._fit import print_table
from ._selective import SelectiveOptions, titled

__all__ = ["print_live_cascade", "run_cascade_command"]


def run_cascade_command(data: str, cascade: str, groups: Any, selective: Any, *,
                        select: Callable[[str], tuple[list[Any], str]], pool: tuple,
                        out: Path | None, model: str | None, jury: object | None,
                        settings: dict[str, Any], folder_key: str) -> None:
    """Check the request (before any model call), read the items as the command's run reads
    them, run the cascade and print it.

    Args:
        data: the command's file or bundled dataset (named in errors).
        select: the first stage's model spec -> (the items, checked and selected as the
            command selects them, and the protocol every stage judges with).
        settings: the judge settings every stage takes (``k`` and the command's protocol
            settings).
        folder_key: what names the default folder (``runs/cascade-<stem>-<hash>``).

    Raises:
        ConfigError: no --target-agreement; --model or --jury with --cascade; a dry run; a
            stage named twice or none; as ``jurybox judge``.
        DataError: bad items (file, line, field).
    """
    from ..judging.cascade import cascade_judge
    from ..providers.spec import require_model

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
        require_model(stage, data)
    from ..datasets.items import PairwiseItem

    items, protocol = select(stages[0])
    same = [i.item_id for i in items if (i.response_a == i.response_b
                                          if isinstance(i, PairwiseItem)
                                          else len(set(i.candidates)) < len(i.candidates))]
    if same:  # each stage is given its items again, as the generic format, which refuses them
        raise ConfigError(f"{data}: {len(same)} item(s) have identical candidates (e.g. id "
                          f"{same[0]!r:.60}), which a cascade cannot judge: judge or bench "
                          f"them with --model (a pair of identical responses is a tie)")
    folder = out or Path("runs") / ("cascade-" + Path(data).stem + "-" + hashlib.sha256(
        folder_key.encode()).hexdigest()[:8])
    try:
        result = cascade_judge(items, stages, target=opts.target, delta=opts.delta,
                               calibration_share=opts.share, seed=opts.seed, out=folder,
                               protocol=protocol, options=groups.jury_options(pool),
                               **settings)
    except ValueError as exc:
        raise ConfigError(f"--cascade: {exc}") from None
    print_live_cascade(result, opts, folder)


def _per_accepted(accepted: int, calls: int, usd: list[float | None]) -> str:
    """``"Per accepted verdict: 3.20 calls, $0.0004. "`` (USD when every stage is priced;
    empty when nothing was accepted)."""
    if not accepted:
        return ""
    cost = "" if None in usd else f", ${sum(u for u in usd if u is not None) / accepted:.4g}"
    return f"Per accepted verdict: {calls / accepted:.2f} calls{cost}. "


def print_live_cascade(result: Any, opts: SelectiveOptions, out: Path) -> None:
    """A live cascade's stages (``judge`` or ``bench --cascade``), its outcome, the
    guarantee; written to ``out/cascade.json``."""
    from dataclasses import asdict

    from ..rundir import write_json_atomic
    from ..stats.selective import guarantee_text

    table = titled("cascade", opts, " split between the stages", "stage")
    for name in ("asked", "failed", "accepted", "test right", "calls", "tokens", "USD"):
        table.add_column(name, justify="right")
    for s in result.stages:
        table.add_row(data(s.model), str(s.asked), str(s.failed),
                      str(s.accepted) if s.rule.certified else "none*",
                      f"{s.test_agree}/{s.test_accepted}", str(s.model_calls),
                      f"{s.tokens:,}", "—" if s.usd is None else f"{s.usd:.4f}")
    test = result.test
    usd = [s.usd for s in result.stages]
    table.add_row("all stages", str(result.n_items), str(sum(s.failed for s in result.stages)),
                  str(result.n_items - result.abstained), f"{test.n_agree}/{test.n_accepted}",
                  str(sum(s.model_calls for s in result.stages)),
                  f"{sum(s.tokens for s in result.stages):,}",
                  "—" if None in usd else f"{sum(u for u in usd if u is not None):.4f}",
                  end_section=True)
    table.caption = ("asked: items that reached the stage; failed: of those, items without a "
                     "verdict (never accepted); none*: not certified at its share of delta, "
                     "accepts nothing; test right: accepted labelled test items that agree "
                     "with the label / accepted; calls, tokens (prompt + completion): every "
                     "session of the stage's run")
    table.caption_justify = "left"
    print_table(table)
    certified = [s.model for s in result.stages if s.rule.certified]
    sentence = guarantee_text(opts.target, opts.delta, " then ".join(certified) or None,
                              result.n_calibration)
    console.print(safe_text(
        f"test items: {test.n_accepted} of {test.n} accepted ({100 * test.coverage:.1f}%), "
        + ("" if not test.n_accepted else f"{100 * test.agreement:.1f}% agree (95% CI "
           f"{100 * test.agreement_ci[0]:.1f}-{100 * test.agreement_ci[1]:.1f}); ")
        + f"{result.abstained} of {result.n_items} items abstained on. "
        + _per_accepted(result.n_items - result.abstained,
                        sum(s.model_calls for s in result.stages), usd)
        + f"{sentence[:1].upper()}{sentence[1:]}."),
        markup=False)
    record = asdict(result)
    for stage in record["stages"]:
        stage["out"] = str(stage["out"])
    record["guarantee"] = sentence
    write_json_atomic(out / "cascade.json", {"cascade": record})
    console.print(safe_text(f"written: {out / 'cascade.json'}; each stage's run: "
                            f"{', '.join(str(s.out) for s in result.stages)}"), markup=False)
