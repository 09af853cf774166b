"""``jurybox export``: a run directory as flat per-item and per-call tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional


from ._declared import argument, declared
from ..terminal import safe_text
from ._common import console, fail_cleanly, warn


@fail_cleanly
def export(
    run: Annotated[Path, argument("export run")],
    format: Annotated[str, declared("export --format")] = "csv",
    out: Annotated[Optional[Path], declared("export --out")] = None,
    texts: Annotated[bool, declared("export --texts/--no-texts")] = True,
) -> None:
    """Write a run's decisions (one row per item and protocol) and model calls (one row per
    call, with the prompt and the raw judge text) as flat tables for pandas or a
    spreadsheet. Lists (winners, C_i, prompt messages) are JSON text in csv and parquet."""
    from ..jury.report import export_jury, is_jury_dir
    from ..reports.export_rank import export_ranking, is_rank_dir

    if is_rank_dir(run):  # jurybox rank's folder: its systems and pairs tables
        ranked = export_ranking(run, format=format, out=out)
        console.print(safe_text(f"written: {ranked.systems} ({ranked.n_systems} rows), "
                                f"{ranked.pairs} ({ranked.n_pairs} rows)"),
                      highlight=False, markup=False)
        return

    if is_jury_dir(run) and not (run / "run.json").exists():  # a jury: its and each judge's
        items, calls, n_items, n_calls = export_jury(run, format=format, out=out)
        console.print(safe_text(f"written: {items} ({n_items} rows), {calls} ({n_calls} "
                                f"rows)"), highlight=False, markup=False)
        return
    if format == "recorded":
        _export_recorded(run, out)
        return
    from ..reports import export_run

    result = export_run(run, format=format, out=out, texts=texts)
    for name, lines in result.skipped.items():
        warn(f"{name}: skipped {len(lines)} line(s) that are not JSON records (lines "
             f"{', '.join(map(str, lines[:10]))}{', ...' if len(lines) > 10 else ''})")
    from ..reports.export_selective import export_selective

    selective = export_selective(Path(run), result.items.parent, format)
    console.print(safe_text(f"written: {result.items} ({result.n_items} rows), {result.calls} "
                            f"({result.n_calls} rows)"
                            + (f", {selective[0]} ({selective[1]} rows)" if selective else "")),
                  highlight=False, markup=False)


def _export_recorded(run: Path, out: Path | None) -> None:
    """``--format recorded``: ``OUT/recorded.jsonl`` (default ``RUN/export``)."""
    import json

    from ..recorded.from_run import recorded_lines
    from ..rundir import write_text_atomic

    made = recorded_lines(run)
    folder = out if out is not None else run / "export"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "recorded.jsonl"
    write_text_atomic(path, "".join(json.dumps(line, ensure_ascii=False) + "\n"
                                    for line in made.lines))
    left = ", ".join(f"{n} {protocol}" for protocol, n in made.left_out.items())
    console.print(safe_text(f"written: {path} ({len(made.lines)} items)"
                            + (f"; left out (no fixed orders): {left}" if left else "")
                            + f"; rescore it with: jurybox score {path}"),
                  highlight=False, markup=False)
