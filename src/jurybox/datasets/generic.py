"""Generic listwise JSONL: one object per line with ``id, prompt, candidates, gold``."""

from __future__ import annotations

from collections.abc import Iterator
from difflib import get_close_matches
from pathlib import Path

from ..errors import DataError
from .rows import iter_rows, require
from .validate import IdTracker, check_file, check_name, make_item
from .items import ListwiseItem, PairwiseItem

__all__ = ["FIELDS", "iter_listwise_jsonl", "iter_pairs_jsonl", "load_listwise_jsonl"]

#: The fields a line is read for; other keys are the user's own (kept out of the judge's
#: prompt), unless one is a near-miss of these (``gld``), which would drop a field unseen.
FIELDS = ("id", "prompt", "candidates", "gold", "group")


def _check_keys(path: Path, line: int, row: dict) -> None:
    """A key within one or two typed letters of a field (``gld``, ``prompts``, ``candidate``;
    ``Gold``; difflib ratio >= 0.82, so ``golden`` or ``ids`` stay the user's) is refused."""
    for key in row:
        if key not in FIELDS and (close := get_close_matches(str(key).lower(), FIELDS, 1, 0.82)):
            raise DataError(path, f"unknown field {str(key)[:40]!r}; did you mean "
                            f"{close[0]!r}? (other fields are ignored; rename it if it is "
                            f"your own)", line=line, field=str(key)[:40])


def load_listwise_jsonl(path: str | Path, *, labelled: bool = True) -> list[ListwiseItem]:
    """All items of :func:`iter_listwise_jsonl`."""
    return list(iter_listwise_jsonl(path, labelled=labelled))


def iter_listwise_jsonl(path: str | Path, *, labelled: bool = True,
                        exactly: int | None = None) -> Iterator[ListwiseItem]:
    """Read ``{"id", "prompt", "candidates": [str, ...], "gold": int | [int, ...],
    "group"?}`` lines, one at a time.

    With ``labelled=False`` (``jurybox judge``), ``gold`` may be absent, ``null`` or ``[]``:
    an unlabelled item (``ListwiseItem.gold`` empty). ``exactly``: the number of candidates
    every line must have (2 for pairs).

    ``id`` is a string or an integer (which becomes its decimal text), ``group`` a string
    or absent; texts follow the rules of :mod:`jurybox.datasets.validate` (no NUL, no lone
    surrogate; 2 to 26 candidates).

    Raises:
        DataError: missing file or field, bad JSON, a key that is a near-miss of a field
            (``gld``; other extra keys are ignored), a bad or empty id, empty prompt, bad
            text, fewer than 2 or more than 26 candidates, gold out of range, a non-string
            group, duplicate id (file, line, field).
    """
    path = check_file(Path(path))
    ids = IdTracker(path)
    for line, row in iter_rows(path):
        _check_keys(path, line, row)
        item_id = check_name(path, line, "id", require(path, line, row, "id"))
        candidates = list(require(path, line, row, "candidates", (list, tuple)))
        if exactly is not None and len(candidates) != exactly:
            raise DataError(path, f"pairwise protocols judge exactly {exactly} candidates, "
                            f"this line has {len(candidates)}", line=line, field="candidates")
        if labelled and "gold" not in row:
            raise DataError(path, "missing field; a bench scores against gold (the index of "
                            "the correct candidate); `jurybox judge` takes candidates without "
                            "gold", line=line, field="gold")
        gold = ([] if not labelled and row.get("gold") is None
                else require(path, line, row, "gold", (int, list, tuple)))
        gold = [gold] if isinstance(gold, int) else list(gold)
        if exactly == 2 and len(gold) > 1:
            raise DataError(path, f"a pair has one better candidate: give gold 0 or 1 (or no "
                            f"gold), got {gold!r}", line=line, field="gold")
        if not all(isinstance(g, int) and not isinstance(g, bool) for g in gold):
            raise DataError(path, f"gold must be integer indices, got {gold!r}", line=line,
                            field="gold")
        ids.add(item_id, line)
        yield make_item(path, line, item_id=item_id, prompt=row.get("prompt"),
                        candidates=candidates, gold=gold, group=row.get("group"),
                        labelled=labelled)


def iter_pairs_jsonl(path: str | Path, *, labelled: bool = True) -> Iterator[PairwiseItem]:
    """The generic format read as pairs, for pairwise protocols (``jurybox judge``): each
    line as in :func:`iter_listwise_jsonl` with exactly 2 candidates, which become responses
    A and B; ``gold`` 0 means A is better (label ``A>B``), 1 means B; no gold (with
    ``labelled=False``): an unlabelled pair (label ``""``). Gold ``[0, 1]`` is refused.

    Raises:
        DataError: as :func:`iter_listwise_jsonl`, a line without exactly 2 candidates, or
            more than one gold index.
    """
    for item in iter_listwise_jsonl(path, labelled=labelled, exactly=2):
        label = {frozenset({0}): "A>B", frozenset({1}): "B>A"}.get(item.gold, "")
        yield PairwiseItem(item_id=item.item_id, question=item.prompt,
                           response_a=item.candidates[0], response_b=item.candidates[1],
                           label=label, bucket=item.group or "")
