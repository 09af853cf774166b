"""Listwise recorded judgments: one judge's pick among n candidates, in several orders.

Lines of the generic recorded format (docs/recorded-format.md) that hold ``candidates`` are
listwise; a file holds one kind of line (a file mixing pairwise and listwise lines is
refused). One line is one item::

    {"id": "q1", "label": 2, "candidates": ["text a", "text b", "text c", "text d"],
     "orders": [[0, 1, 2, 3], [1, 0, 3, 2], [3, 2, 1, 0]],
     "judges": {"gpt-4": [2, 2, null],
                "llama": {"picks": [2, 1, 2], "scores": [[10, 20, 90, 30], null, null]}}}

- ``id`` (required): non-empty string or integer, unique within (subset, strategy).
- ``candidates`` (required): the candidates' texts (a list of >= 2 strings) or their number
  n (an integer >= 2). Candidates are named by their ORIGINAL index 0..n-1.
- ``orders`` (required): K >= 1 permutations of 0..n-1; ``orders[k][s]`` is the original
  index of the candidate shown in slot s (0-based) of order k. K and n are the same on every
  line of one (subset, strategy); the permutations themselves may differ from line to line.
- ``judges`` (required): judge name -> its picks (a list of K), or an object with
  ``picks`` and optional ``scores``, ``ranking``, ``texts`` (each a list of K):
  ``picks[k]`` the original index the judge chose in order k, or null when its text could
  not be parsed (a failure: counted, never scored); ``scores[k]`` the judge's score of every
  candidate, by original index (n numbers in 0-100, PCF's scale) or null; ``ranking[k]``
  the original indices best first (a permutation whose first is ``picks[k]``) or null;
  ``texts[k]`` the raw judge text or null. An order whose pick is null has no scores or
  ranking. A judge absent from a line did not judge it.
- ``label`` (optional, default null): the gold candidate's original index, a list of them
  (several gold), or null (unlabelled: position figures only).
- ``subset`` (default the file's name without extensions), ``strategy`` (default ``""``),
  ``meta`` (anything; ignored), as on pairwise lines. Any other key is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..datasets.validate import check_file, check_name, check_text
from ..errors import DataError
from .jsonl import _rows, check_entry, check_keys, mixed_kinds
from .model import Grouped

__all__ = ["ListwiseItem", "ListwiseRecording", "read_listwise_jsonl", "looks_listwise",
           "LISTWISE_KEYS"]

#: Keys a listwise line may hold.
LISTWISE_KEYS = ("id", "label", "candidates", "orders", "judges", "subset", "strategy", "meta")
_REQUIRED = ("id", "candidates", "orders", "judges")
_JUDGE_KEYS = ("picks", "scores", "ranking", "texts")


@dataclass(frozen=True)
class ListwiseItem:
    """One listwise item as one judge judged it (candidates named by original index).

    Attributes:
        item_id: unique within its recording.
        gold: the gold original indices, ascending; () when unlabelled.
        orders: K permutations, ``orders[k][s]`` = the candidate shown in slot s of order k.
        picks: per order, the original index picked, or None (unparsed: a failure).
        scores: per order, n scores 0-100 by original index, or None; () when not recorded.
        rankings: per order, the original indices best first, or None; () when not recorded.
        texts: per order, the raw judge text or None; () when not recorded.
    """

    item_id: str
    gold: tuple[int, ...]
    orders: tuple[tuple[int, ...], ...]
    picks: tuple[int | None, ...]
    scores: tuple[tuple[float, ...] | None, ...] = ()
    rankings: tuple[tuple[int, ...] | None, ...] = ()
    texts: tuple[str | None, ...] = ()

    @property
    def n_candidates(self) -> int:
        """n."""
        return len(self.orders[0])

    def slot(self, k: int) -> int | None:
        """The slot (0-based) where order k showed the pick, or None when unparsed."""
        pick = self.picks[k]
        return None if pick is None else self.orders[k].index(pick)


@dataclass(frozen=True)
class ListwiseRecording(Grouped):
    """One (subset, judge, strategy) of listwise items, all with K orders of n candidates.

    Attributes:
        subset, judge, strategy: as for a pairwise :class:`~jurybox.recorded.Recording`.
        n_orders: K >= 1. n_candidates: n >= 2.
        items: in file order. source: the file, for messages.
    """

    subset: str
    judge: str
    strategy: str
    n_orders: int
    n_candidates: int
    items: tuple[ListwiseItem, ...]
    source: str = ""


def looks_listwise(path: Path) -> bool:
    """True when the first line of a JSON-lines file has ``judges`` and ``candidates``.
    Never raises on bad data: the reader then says what is wrong."""
    try:
        for _, row in _rows(path):
            return "judges" in row and "candidates" in row
    except DataError:
        return False
    return False


def _index(value: object, n: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n


def _permutation(path: Path, line: int, field: str, value: object, n: int) -> tuple[int, ...]:
    if not (isinstance(value, list) and len(value) == n and all(_index(v, n) for v in value)
            and len(set(value)) == n):
        raise DataError(path, f"must be a permutation of 0..{n - 1} (each original index "
                        f"once), got {value!r:.60}", line=line, field=field)
    return tuple(value)


def _candidates(path: Path, line: int, value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= 10_000:
        return value
    if isinstance(value, list) and len(value) >= 2:
        for s, text in enumerate(value):
            check_text(path, line, f"candidates[{s}]", text)
        return len(value)
    raise DataError(path, f"must be the candidates' texts (a list of >= 2 strings) or their "
                    f"number (an integer from 2 to 10000), got {value!r:.40}", line=line,
                    field="candidates")


def _gold(path: Path, line: int, value: object, n: int) -> tuple[int, ...]:
    if value is None:
        return ()
    gold = value if isinstance(value, list) else [value]
    if not gold or not all(_index(g, n) for g in gold) or len(set(gold)) != len(gold):
        raise DataError(path, f"a label is an original index 0..{n - 1}, a list of distinct "
                        f"ones (several gold), or null; got {value!r:.40}", line=line,
                        field="label")
    return tuple(sorted(gold))


def _per_order(path: Path, line: int, field: str, value: object, k: int) -> list:
    if not isinstance(value, list) or len(value) != k:
        got = str(len(value)) if isinstance(value, list) else type(value).__name__
        raise DataError(path, f"must be a list of {k} entries, one per order, got {got}",
                        line=line, field=field)
    return value


def _scores(path: Path, line: int, field: str, value: object, n: int) -> tuple[float, ...]:
    if not (isinstance(value, list) and len(value) == n and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and 0 <= v <= 100 for v in value)):
        raise DataError(path, f"must be {n} scores in 0-100 (PCF's scale), one per original "
                        f"index, or null; got {value!r:.60}", line=line, field=field)
    return tuple(float(v) for v in value)


def _judge(path: Path, line: int, field: str, value: object, k: int, n: int
           ) -> tuple[tuple, tuple, tuple, tuple]:
    """(picks, scores, rankings, texts) of one judge's entry, each () when not recorded."""
    entry: dict = {"picks": value} if isinstance(value, list) else {}
    if isinstance(value, dict):
        check_entry(path, line, field, value, _JUDGE_KEYS)
        entry = value
        field = f"{field}.picks"
    elif not isinstance(value, list):
        raise DataError(path, f"must be a list of picks, one per order, or an object with "
                        f"'picks', got {type(value).__name__}", line=line, field=field)
    base = field.removesuffix(".picks")
    picks = _per_order(path, line, field, entry["picks"], k)
    for j, p in enumerate(picks):
        if p is not None and not _index(p, n):
            raise DataError(path, f"a pick is an original index 0..{n - 1} or null, got "
                            f"{p!r:.40}", line=line, field=f"{field}[{j}]")
    out: dict[str, tuple] = {"scores": (), "ranking": (), "texts": ()}
    for key in out:
        if key not in entry:
            continue
        values = _per_order(path, line, f"{base}.{key}", entry[key], k)
        checked: list = []
        for j, v in enumerate(values):
            where = f"{base}.{key}[{j}]"
            if v is not None and picks[j] is None and key != "texts":
                raise DataError(path, f"order {j + 1} has no pick (null: unparsed), so it "
                                f"has no {key}", line=line, field=where)
            if v is None:
                checked.append(None)
            elif key == "scores":
                checked.append(_scores(path, line, where, v, n))
            elif key == "ranking":
                ranking = _permutation(path, line, where, v, n)
                if ranking[0] != picks[j]:
                    raise DataError(path, f"ranks {ranking[0]} first but the pick of order "
                                    f"{j + 1} is {picks[j]}", line=line, field=where)
                checked.append(ranking)
            else:
                checked.append(check_text(path, line, where, v))
        out[key] = tuple(checked)
    return tuple(picks), out["scores"], out["ranking"], out["texts"]


def read_listwise_jsonl(path: str | Path) -> list[ListwiseRecording]:
    """Read a listwise recorded-judgments file (format: the module docstring).

    Returns:
        One :class:`ListwiseRecording` per (subset, judge, strategy), in order of first
        appearance.

    Raises:
        DataError: a missing file, bad JSON, a missing or unknown key, a pairwise line (a
            file holds one kind), an order that is not a permutation, a pick or label outside
            0..n-1, a list whose length is not the number of orders, a number of orders or
            candidates that differs within one (subset, strategy), a repeated id, no items
            (one line naming file, line and field).
    """
    path = check_file(Path(path))
    stem = path.name.split(".")[0] or path.name
    groups: dict[tuple[str, str, str], list[ListwiseItem]] = {}
    shape_of: dict[tuple[str, str], tuple[int, int, int]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    first_line = 0
    for line, row in _rows(path):
        first_line = first_line or line
        if "candidates" not in row:
            raise mixed_kinds(path, line, first_line, listwise_here=False)
        check_keys(path, line, row, _REQUIRED, LISTWISE_KEYS, "a listwise line")
        item_id = check_name(path, line, "id", row["id"])
        n = _candidates(path, line, row["candidates"])
        raw = row["orders"]
        if not isinstance(raw, list) or not raw:
            raise DataError(path, "must be a non-empty list of permutations of the "
                            "candidates' original indices, such as [[0, 1, 2], [2, 0, 1]]",
                            line=line, field="orders")
        orders = tuple(_permutation(path, line, f"orders[{k}]", o, n) for k, o in
                       enumerate(raw))
        gold = _gold(path, line, row.get("label"), n)
        subset = check_text(path, line, "subset", row.get("subset", stem))
        strategy = check_text(path, line, "strategy", row.get("strategy", ""))
        k_first, n_first, at = shape_of.setdefault((subset, strategy), (len(orders), n, line))
        if (len(orders), n) != (k_first, n_first):
            what, here, there = (("orders", len(orders), k_first) if len(orders) != k_first
                                 else ("candidates", n, n_first))
            raise DataError(path, f"{here} {what} but line {at} of the same subset and "
                            f"strategy has {there}: one (subset, strategy) has one number of "
                            f"orders and of candidates (put others in another subset)",
                            line=line, field=what)
        if (subset, strategy, item_id) in seen:
            raise DataError(path, f"duplicate id {item_id!r} in subset {subset!r} (first seen "
                            f"on line {seen[(subset, strategy, item_id)]})", line=line,
                            field="id")
        seen[(subset, strategy, item_id)] = line
        judges = row["judges"]
        if not isinstance(judges, dict) or not judges:
            raise DataError(path, "must be an object: judge name -> picks (at least one "
                            "judge)", line=line, field="judges")
        for judge, value in judges.items():
            judge = check_name(path, line, "judges", judge)
            picks, scores, rankings, texts = _judge(path, line, f"judges.{judge}"[:120],
                                                    value, len(orders), n)
            groups.setdefault((subset, judge, strategy), []).append(
                ListwiseItem(item_id, gold, orders, picks, scores, rankings, texts))
    if not groups:
        raise DataError(path, "no items in the file")
    return [ListwiseRecording(subset, judge, strategy, *shape_of[(subset, strategy)][:2],
                              items=tuple(items), source=str(path))
            for (subset, judge, strategy), items in groups.items()]
