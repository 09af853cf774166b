"""``jurybox show``: one item of a run in the terminal."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Annotated


from ._declared import argument, declared
from ..errors import DataError
from ._common import console, fail_cleanly


@fail_cleanly
def show(
    run: Annotated[Path, argument("show run")],
    item_id: Annotated[str, argument("show item_id")],
    prompts: Annotated[bool, declared("show --prompts/--no-prompts")] = False,
) -> None:
    """One item: its question and candidates, every order shown, scores, rankings and
    verdicts per call, each protocol's decision, the raw judge texts and any failures
    (from the recorded files; no model calls)."""
    from ..reports import RunReader
    from ._item_view import print_item

    reader = RunReader(run)
    if item_id not in reader.item_ids:
        close = difflib.get_close_matches(item_id, reader.item_ids, n=3, cutoff=0.6) or [
            i for i in reader.item_ids if i.endswith(("-" + item_id, "_" + item_id))][:3]
        hint = (f"; did you mean {' or '.join(map(repr, close))}?" if close else
                f"; it has {len(reader.item_ids)} items, e.g. "
                f"{', '.join(map(repr, reader.item_ids[:3]))}" if reader.item_ids else
                "; it has no decided items yet")
        raise DataError(run / "items.jsonl", f"no item {item_id!r} in this run{hint}")
    print_item(console, reader.item(item_id), prompts=prompts)


__all__ = ["show"]
