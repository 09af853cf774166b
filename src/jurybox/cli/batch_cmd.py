"""``jurybox batch``: a run's provider batches (status, cancel) and batch files (export,
import)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Optional

import typer

from ._declared import argument, declared
from ..terminal import safe_text
from ._common import console, fail_cleanly
from ._fit import print_table

ACTIONS = ("status", "cancel", "export", "import")


@fail_cleanly
def batch(
    ctx: typer.Context,
    action: Annotated[str, argument("batch action")],
    run: Annotated[Path, argument("batch run")],
    file: Annotated[Optional[Path], argument("batch file")] = None,
    out: Annotated[Optional[Path], declared("batch --out", "-o", show_envvar=True)
    ] = None,
) -> None:
    """A run's batches (``--batch``, ``--batch-files``): see them, cancel them, or carry
    batch files to a self-hosted server and back. A rerun of the run's command collects
    what its batches answered and sends nothing twice."""
    from ..errors import ConfigError

    if action not in ACTIONS:
        raise ConfigError(f"ACTION must be one of {', '.join(ACTIONS)}, got {action!r}")
    if (file is not None) != (action == "import"):
        raise ConfigError("import takes the output FILE of `vllm run-batch`; the other "
                          "actions take only RUN" if file is not None else
                          "import needs FILE: the output file of `vllm run-batch -o`")
    if out is not None and action != "export":
        source = ctx.get_parameter_source("out")
        if getattr(source, "name", None) != "ENVIRONMENT":  # JURYBOX_BATCH_EXPORT_OUT: export's
            raise ConfigError(f"--out is for export (jurybox batch export RUN -o FILE), not "
                              f"{action}")
        out = None
    if action == "status":
        _status(run)
    elif action == "cancel":
        _cancel(run)
    elif action == "export":
        _export(run, out or run / "batches" / "requests.jsonl")
    else:
        assert file is not None
        _import(run, file)


def _status(run: Path) -> None:
    from ..batch.manage import live_status

    from rich.table import Table

    rows = asyncio.run(live_status(run))
    table = Table(*("batch", "provider id", "requests", "state", "ended", "note"))
    for row in rows:
        e, live = row.entry, row.live
        state = live.state if live else e.state
        ended = (f"{live.done:,}/{live.total:,}" if live and live.total else
                 f"{e.counts.get('done', 0):,}/{e.counts.get('total', len(e.custom_ids)):,}"
                 if e.counts else "")
        note = row.problem or e.reason or ("cancel asked" if e.cancel_requested else "")
        table.add_row(e.batch, e.batch_id or "-", f"{len(e.custom_ids):,}", state, ended,
                      safe_text(note))
    print_table(table)
    waiting = [r for r in rows if not (r.live.ended if r.live else r.entry.ended)]
    files = any((r.entry.batch_id or "").startswith("file:") for r in waiting)
    next_step = (f": `jurybox batch export {run}`, run them, `jurybox batch import {run} "
                 f"FILE`, then rerun the run's command" if files else
                 f": rerun the run's command to collect them, or `jurybox batch cancel {run}`")
    console.print(safe_text(f"{len(rows)} batch(es), {len(waiting)} in flight"
                            + (next_step if waiting else "")), markup=False)


def _cancel(run: Path) -> None:
    from ..batch.manage import cancel_batches

    rows = asyncio.run(cancel_batches(run))
    if not rows:
        console.print("no batch in flight: nothing to cancel", markup=False)
        return
    for row in rows:
        console.print(safe_text(f"batch {row.entry.batch} ({row.entry.batch_id}): "
                                f"{row.live.state if row.live else 'cancel asked'}"),
                      markup=False)
    console.print(safe_text("rerun the run's command to collect what they answered before "
                            "the cancel; the rest is sent again"), markup=False)


def _export(run: Path, out: Path) -> None:
    from ..batch.manage import export_requests

    n, batches = export_requests(run, out)
    console.print(safe_text(
        f"{n:,} requests of {batches} batch file(s) written to {out}; run them, e.g. "
        f"`vllm run-batch -i {out} -o results.jsonl --model <the served model>`, then "
        f"`jurybox batch import {run} results.jsonl` and rerun the run's command"),
        markup=False)


def _import(run: Path, file: Path) -> None:
    from ..batch.manage import import_results

    result = import_results(run, file)
    total = sum(result.by_batch.values())
    console.print(safe_text(f"{total:,} answers for {len(result.by_batch)} batch(es) "
                            f"imported into {run}; rerun the run's command to finish"),
                  markup=False)
    if result.unknown:
        console.print(safe_text(f"warning: {result.unknown:,} line(s) of {file} answer "
                                f"requests this run never wrote (ignored)"), markup=False)
    for batch_id, missing in result.incomplete.items():
        console.print(safe_text(f"warning: batch {batch_id} is missing {missing:,} answer(s); "
                                f"the rerun writes them again"), markup=False)
