"""Items given in memory (``jurybox.judge(items, ...)``), written as the generic JSONL file.

A run directory must be able to show and resume what it judged, so in-memory items are
written to ``RUN/input.jsonl`` in the generic format (``id, prompt, candidates, gold?``; see
:mod:`jurybox.datasets.generic`) and judged from there, exactly as a file would be. Item
``n`` of the input is line ``n`` of that file; an error about that line names the item
instead (``items[3] (id 'q3'): field 'candidates': ...``): :func:`named_by_item`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..datasets import ListwiseItem, PairwiseItem
from ..errors import ConfigError, DataError
from ..fields import text_problem

__all__ = ["INPUT_FILE", "ItemError", "id_text", "input_rows", "named_by_item", "write_input"]

INPUT_FILE = "input.jsonl"
_ALIASES = {"item_id": "id", "question": "prompt"}


def _as_row(item: Any, index: int) -> dict[str, Any]:
    if isinstance(item, ListwiseItem):
        return {"id": item.item_id, "prompt": item.prompt, "candidates": list(item.candidates),
                "gold": sorted(item.gold), **({"group": item.group} if item.group else {})}
    if isinstance(item, PairwiseItem):
        gold = {"A>B": [0], "B>A": [1]}.get(item.label, [])
        return {"id": item.item_id, "prompt": item.question,
                "candidates": [item.response_a, item.response_b], "gold": gold}
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        item = dataclasses.asdict(item)
    if not isinstance(item, Mapping):
        raise ConfigError(f"items[{index}] is a {type(item).__name__}; give dicts or "
                          f"dataclasses with id, prompt, candidates and optionally gold")
    for alias, name in _ALIASES.items():
        if alias in item and name in item:
            raise ConfigError(f"items[{index}] has both {name!r} and {alias!r}; give one")
    row: dict[str, Any] = {_ALIASES.get(str(k), str(k)): v for k, v in item.items()}
    if "id" not in row:
        row["id"] = str(index)
    if isinstance(row.get("candidates"), tuple):
        row["candidates"] = list(row["candidates"])
    if isinstance(row.get("gold"), (set, frozenset, tuple)):
        row["gold"] = sorted(row["gold"])
    return row


#: The deepest nesting of lists and dicts an in-memory item's values may have (a row is
#: written as JSON, which the standard library encodes with one recursion a level).
MAX_ITEM_DEPTH = 100


def _unencodable(value: Any) -> tuple[str, str] | None:
    """The first problem of a row's values, walked without recursion: (field, problem) for a
    text (a key too) that UTF-8 cannot encode, a value of a type JSON cannot hold (a set,
    bytes, an object; NaN or infinity), a list or dict that contains itself (a circular
    reference), or nesting deeper than :data:`MAX_ITEM_DEPTH`.

    >>> row = {"id": "q1", "meta": {}}; row["meta"]["self"] = row
    >>> _unencodable(row)[0]
    'meta.self'
    """
    # (value, field name, the ids of the containers above it)
    stack: list[tuple[Any, str, frozenset[int]]] = [(value, "", frozenset())]
    while stack:
        value, where, above = stack.pop()
        if isinstance(value, str):
            if (problem := text_problem(value)) is not None:
                return where or "value", problem
            continue
        if isinstance(value, float) and not math.isfinite(value):
            return (where or "value", f"is {value!r}, which standard JSON cannot hold (give "
                    f"null or a number)")
        if value is None or isinstance(value, (bool, int, float)):
            continue
        if not isinstance(value, (dict, list, tuple)):
            return (where or "value", f"is of type {type(value).__name__}, which JSON cannot "
                    f"hold (give text, a number, true/false, null, a list or a dict)")
        if id(value) in above:
            return (where or "value", "refers to a list or dict that contains it (a circular "
                    "reference), which JSON cannot hold")
        if len(above) >= MAX_ITEM_DEPTH:
            return (where or "value", f"is nested deeper than {MAX_ITEM_DEPTH} levels of "
                    f"lists and dicts")
        inside = above | {id(value)}
        if isinstance(value, dict):
            children = []
            for key, inner in value.items():
                name = f"{where}.{key}" if where else str(key)
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    return (name, f"has a {type(key).__name__} key, which JSON cannot hold "
                            f"(a key is text)")
                children += [(inner, name, inside), (str(key), f"{name} (the name)", inside)]
        else:
            children = [(inner, f"{where}[{i}]", inside) for i, inner in enumerate(value)]
        stack.extend(reversed(children))  # first field first, as a reader would look
    return None


def input_rows(items: Iterable[Any]) -> list[dict[str, Any]]:
    """``items`` as rows of the generic format (see :func:`write_input` for what items may
    be), each checked to be JSON; rows given again come back unchanged.

    Raises:
        ConfigError: an item of another type, or a value JSON cannot hold (``items[i]: ...``).
        DataError: text UTF-8 cannot encode (a lone surrogate), naming the item and field.
    """
    rows = []
    for i, item in enumerate(items):
        row = _as_row(item, i)
        if found := _unencodable(row):
            field = found[0] if len(found[0]) <= 60 else found[0][:60] + "..."
            raw = row.get("id")
            named = f" (id {id_text(raw)!r:.80})" if isinstance(raw, (str, int)) and \
                id_text(raw) != str(i) else ""
            raise DataError(f"items[{i}]{named}", found[1], field=field)
        try:
            json.dumps(row, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"items[{i}]: {exc}") from None
        rows.append(row)
    return rows


def id_text(value: Any) -> str:
    """An item id as the generic format reads it: an integer becomes its decimal text, a
    string stays as it is (the loader refuses anything else)."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else \
        value if isinstance(value, str) else repr(value)


def write_input(items: Iterable[Any], out: Path) -> Path:
    """Write ``items`` to ``out/input.jsonl`` (creating ``out``) and return its path.

    Items are dicts (``id`` or ``item_id``; ``prompt`` or ``question``; ``candidates``: a list
    of texts; ``gold``: an index or list of indices, optional; ``group`` optional), or
    :class:`ListwiseItem` / :class:`PairwiseItem` values, or other dataclasses with those
    fields, or rows from :func:`input_rows`. An item without an id gets its position
    (``"0"``, ``"1"``, ...).

    The caller must hold ``out``'s lock (:func:`jurybox.rundir.lock_run_dir`): two writers
    of one folder would judge each other's items.

    Raises:
        ConfigError: an item of another type, a value JSON cannot hold, or ``out`` already
            holds an input of other items (a run directory is never overwritten).
        DataError: a text UTF-8 cannot encode (a lone surrogate), naming the item and field.
    """
    text = "".join(f"{json.dumps(row, ensure_ascii=False)}\n" for row in input_rows(items))
    path = out / INPUT_FILE
    if path.exists() and (out / "run.json").exists():  # a run started from it: keep it
        if path.read_text(encoding="utf-8") != text:
            raise ConfigError(f"{out} holds a run with a different configuration (a judge run "
                              f"of other items: {path}); give another out= or delete that "
                              f"folder")
        return path
    out.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


class ItemError(DataError):
    """A bad item given in memory, named ``items[index]`` (its id, its field).

    Attributes:
        index: the item's 0-based position in the items given.
    """

    def __init__(self, index: int, where: str, message: str, *, field: str | None) -> None:
        self.index = index
        super().__init__(where, message, field=field)


@contextmanager
def named_by_item(rows: list[dict[str, Any]], path: Path) -> Iterator[None]:
    """Inside: a DataError about ``path`` (the input file written from ``rows``) is raised
    again naming the item instead of a file its caller never wrote: ``items[i]``, its id
    when it is not just its position, and the field; a line named in the message (``first
    seen on line 1``) is the item at that index too.

    Raises:
        ItemError: as described (a DataError); any other error unchanged.
    """
    try:
        yield
    except DataError as exc:
        if exc.path != str(path) or exc.line is None or not 1 <= exc.line <= len(rows):
            raise
        index = exc.line - 1
        raw = rows[index].get("id")  # an id of another type is not named: the error says it
        item_id = id_text(raw) if isinstance(raw, (str, int)) else str(index)
        where = f"items[{index}]" + ("" if item_id == str(index) else f" (id {item_id!r:.80})")
        message = re.sub(r"\b(?:on |at )?line (\d+)",
                         lambda m: f"at items[{int(m[1]) - 1}]", exc.message)
        raise ItemError(index, where, message, field=exc.field) from None
