"""The generic recorded-judgments format (JSON lines), read and written.

Anyone's logs of pairwise judgments can be rescored with ``jurybox score FILE.jsonl`` once
written in this format (docs/recorded-format.md). A file is UTF-8 JSON lines, optionally
gzip-compressed (``.jsonl.gz``); each line is one item with the verdicts of any number of
judges::

    {"id": "q1", "label": "A", "subset": "mt-bench", "strategy": "vanilla",
     "orders": ["AB", "BA"],
     "judges": {"gpt-4": ["A", "B"],
                "llama": {"verdicts": ["A", null], "texts": ["...", "..."]}}}

- ``id`` (required): the item's id, a non-empty string, unique within (subset, strategy).
- ``label`` (optional): ``"A"``, ``"B"`` or ``"tie"`` (a tie label is scored as a tie:
  only a tie verdict is right); null or left out: unlabelled (its position figures count,
  it has no accuracy: a position-bias study without labels, as Shi et al.'s).
- ``judges`` (required): judge name -> its verdicts, one per order, each ``"A"``, ``"B"``,
  ``"tie"`` in terms of the ORIGINAL responses (a judge shown B first that prefers it says
  ``"B"``), or null when its text could not be parsed (a failure: counted, never scored).
  Either the list itself or an object with ``verdicts``, optional ``texts`` (the raw judge
  text per order, strings or null) and optional ``probabilities`` (per order the judge's
  token probability that original response A is better, in [0, 1], or null: the
  ``probability:<judge>`` confidence signal of selective judging). A judge absent from a line
  did not judge it.
- ``orders`` (optional, default ``["AB", "BA"]``): the order the responses were shown in for
  each verdict slot, each ``"AB"`` or ``"BA"``; any number >= 1. It must be the same on
  every line of one (subset, strategy).
- ``subset`` (optional, default the file's name without extensions), ``strategy`` (optional,
  default ``""``): how items are grouped; one recording per (subset, judge, strategy).
- ``systems`` (optional): the names of the two systems that wrote responses A and B,
  ``["model-x", "baseline"]``: ``jurybox rank FILE`` ranks them (a ranking needs no label).
- ``lengths`` (optional): the two responses' lengths in characters, ``[812, 640]``, for the
  length-controlled win rate and style control of ``jurybox rank``.
- ``meta`` (optional): anything; ignored. Any other key is refused.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from ..datasets.rows import json_lines
from ..datasets.validate import check_file, check_name, check_text
from ..errors import DataError, did_you_mean
from .model import LABELS, VERDICTS, RecordedItem, Recording, check_orders

__all__ = ["read_recorded_jsonl", "write_recorded_jsonl", "looks_recorded", "check_keys",
           "mixed_kinds",
           "KEYS"]

#: Keys a line may hold.
KEYS = ("id", "label", "judges", "orders", "subset", "strategy", "systems", "lengths", "meta")
_REQUIRED = ("id", "judges")
_DEFAULT_ORDERS = ("AB", "BA")


def _open(path: Path):  # noqa: ANN202 - a binary file object
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def _rows(path: Path) -> Iterator[tuple[int, dict]]:
    """(line, object) per non-blank line of a JSON-lines file, plain or gzip."""
    line_no = 0
    try:
        with _open(path) as fh:
            for line_no, row in json_lines(path, fh):
                yield line_no, row
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise DataError(path, f"not a readable gzip file ({exc})", line=line_no + 1) from None


def looks_recorded(path: Path) -> bool:
    """True when the first line of a JSON-lines file has ``judges`` and no JudgeBench
    ``judgments`` (so ``jurybox score`` reads it in this format). Never raises on bad data:
    the reader then says what is wrong (a ``.gz`` file that cannot be read is taken for
    one: only this format is read gzip-compressed, so its reader's error is the one that
    fits)."""
    try:
        for _, row in _rows(path):
            return "judges" in row and "judgments" not in row
    except DataError:
        return path.suffix == ".gz"
    return False


def check_keys(path: Path, line: int, row: dict, required: Sequence[str],
               allowed: Sequence[str], what: str) -> None:
    """A line's keys: every one of ``required`` present, none outside ``allowed``.

    Raises:
        DataError: the first missing key (naming those ``what`` holds), or an unknown key
            (with a did-you-mean), naming file, line and field.
    """
    missing = [k for k in required if k not in row]
    if missing:
        raise DataError(path, f"missing {', '.join(map(repr, missing))}: {what} holds "
                        f"{', '.join(required[:-1])} and {required[-1]} (see "
                        f"docs/recorded-format.md)", line=line, field=missing[0])
    for key in row:
        if key not in allowed:
            raise DataError(path, f"unknown key{did_you_mean(key, allowed) or ';'} allowed on "
                            f"{what}: {', '.join(allowed)}", line=line, field=str(key)[:80])


def check_entry(path: Path, line: int, field: str, entry: dict, keys: Sequence[str]) -> None:
    """A judge's entry (an object): ``keys[0]`` present, no key outside ``keys``.

    Raises:
        DataError: an unknown key (with a did-you-mean) or the missing first key, naming file,
            line and field (``field.key``).
    """
    unknown = sorted(set(entry) - set(keys))
    if unknown:
        raise DataError(path, f"unknown key {unknown[0]!r:.40}"
                        f"{did_you_mean(unknown[0], keys) or ';'} a judge's entry holds "
                        f"{keys[0]!r} and optional {', '.join(map(repr, keys[1:]))}",
                        line=line, field=f"{field}.{unknown[0]}"[:120])
    if keys[0] not in entry:
        raise DataError(path, f"missing {keys[0]!r}", line=line, field=field)


def mixed_kinds(path: Path, line: int, first: int, listwise_here: bool) -> DataError:
    """The error of a line of the other kind than the file's first line (pairwise lines have
    no ``candidates``; listwise ones do: :mod:`jurybox.recorded.listwise`)."""
    here, there = ("listwise", "pairwise") if listwise_here else ("pairwise", "listwise")
    return DataError(path, f"a {here} line ({'has' if listwise_here else 'no'} 'candidates') "
                     f"in a file whose line {first} is {there}: one file holds one kind of "
                     f"line; put them in two files", line=line, field="candidates")


_JUDGE_KEYS = ("verdicts", "texts", "probabilities")


def _verdicts(path: Path, line: int, field: str, value: object, n: int
              ) -> tuple[tuple, tuple, tuple]:
    texts: object = ()
    probabilities: tuple[float | None, ...] = ()
    if isinstance(value, dict):
        check_entry(path, line, field, value, _JUDGE_KEYS)
        texts = value.get("texts", ())
        probabilities = _probabilities(path, line, f"{field}.probabilities",
                                       value.get("probabilities", ()), n)
        value = value["verdicts"]
        field = f"{field}.verdicts"
    if not isinstance(value, list):
        raise DataError(path, f"must be a list of verdicts, one per order, got "
                        f"{type(value).__name__}", line=line, field=field)
    if len(value) != n:
        raise DataError(path, f"{len(value)} verdicts for {n} orders", line=line, field=field)
    for k, v in enumerate(value):
        if v is not None and v not in VERDICTS:
            raise DataError(path, f"a verdict is 'A', 'B', 'tie' or null, got {v!r:.40}",
                            line=line, field=f"{field}[{k}]")
    if texts == ():
        return tuple(value), (), probabilities
    tfield = field.rsplit(".", 1)[0] + ".texts"
    if not isinstance(texts, list) or len(texts) != n:
        raise DataError(path, f"must be a list of {n} texts (strings or null)", line=line,
                        field=tfield)
    for k, t in enumerate(texts):
        if t is not None:
            check_text(path, line, f"{tfield}[{k}]", t)
    return tuple(value), tuple(texts), probabilities


def _probabilities(path: Path, line: int, field: str, value: object, n: int
                   ) -> tuple[float | None, ...]:
    """A judge's ``probabilities``: per order P(original A better), a number in [0, 1] or
    null; left out: ()."""
    if value == ():
        return ()
    if not isinstance(value, list) or len(value) != n:
        raise DataError(path, f"must be a list of {n} probabilities (numbers in [0, 1] or "
                        f"null), one per order", line=line, field=field)
    for k, p in enumerate(value):
        number = isinstance(p, (int, float)) and not isinstance(p, bool)
        if p is not None and not (number and 0.0 <= p <= 1.0):
            raise DataError(path, f"a probability is a number in [0, 1] or null, got "
                            f"{p!r:.40}", line=line, field=f"{field}[{k}]")
    return tuple(None if p is None else float(p) for p in value)


def _systems(path: Path, line: int, row: dict) -> tuple[tuple[str, str] | None,
                                                         tuple[int, int] | None]:
    """A line's ``systems`` and ``lengths`` (each None when absent), checked."""
    systems = row.get("systems")
    if systems is not None:
        if not (isinstance(systems, list) and len(systems) == 2):
            raise DataError(path, "must be the two systems' names, [\"name of A\", \"name "
                            "of B\"]", line=line, field="systems")
        systems = tuple(check_name(path, line, f"systems[{k}]", v) for k, v in
                        enumerate(systems))
        if systems[0] == systems[1]:
            raise DataError(path, f"names one system twice ({systems[0]!r}): a comparison "
                            f"is of two systems", line=line, field="systems")
    lengths = row.get("lengths")
    if lengths is not None:
        if not (isinstance(lengths, list) and len(lengths) == 2 and all(
                isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2 ** 53
                for n in lengths)):
            raise DataError(path, "must be the two responses' lengths in characters, two "
                            "whole numbers >= 0 such as [812, 640]", line=line, field="lengths")
        lengths = tuple(lengths)
    return systems, lengths


def read_recorded_jsonl(path: str | Path, *, to_rank: bool = False) -> list[Recording]:
    """Read a generic recorded-judgments file (format: the module docstring).

    ``to_rank``: read to rank systems (``jurybox rank``): every line must name its
    ``systems``. A line without ``label`` (or with null) is unlabelled: its item's label is
    None.

    Returns:
        One :class:`Recording` per (subset, judge, strategy), in order of first appearance.

    Raises:
        DataError: a missing file, bad JSON, a missing or unknown key, a label or verdict
            outside its values, a verdict list whose length is not the number of orders,
            orders that differ within one (subset, strategy), a repeated id, no items (file,
            line, field).
    """
    path = check_file(Path(path))
    stem = path.name.split(".")[0] or path.name
    groups: dict[tuple[str, str, str], list[RecordedItem]] = {}
    orders_of: dict[tuple[str, str], tuple[tuple[str, ...], int]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    required = ("id", "judges", "systems") if to_rank else _REQUIRED
    first_line = 0
    # names and texts repeat on every line (judges, subset, strategy): a value that passed
    # its check once passes again, so each distinct one is checked once
    passed: dict[tuple[str, str], str] = {}

    def once(kind: str, check: Callable[..., str], line: int, field: str, value: object
             ) -> str:
        if isinstance(value, str) and (kind, value) in passed:
            return passed[(kind, value)]
        checked = check(path, line, field, value)
        if isinstance(value, str):
            passed[(kind, value)] = checked
        return checked

    for line, row in _rows(path):
        first_line = first_line or line
        if "candidates" in row:
            if line == first_line:
                raise DataError(path, "a listwise line (it has 'candidates'): this reads "
                                "pairwise lines; `jurybox score FILE` scores listwise files",
                                line=line, field="candidates")
            raise mixed_kinds(path, line, first_line, listwise_here=True)
        check_keys(path, line, row, required, KEYS, "a recorded line")
        item_id = check_name(path, line, "id", row["id"])
        label = row.get("label")
        if label not in LABELS and label is not None:
            raise DataError(path, f"a label is 'A', 'B', 'tie' or null (unlabelled), got "
                            f"{label!r:.40}", line=line, field="label")
        subset = once("text", check_text, line, "subset", row.get("subset", stem))
        strategy = once("text", check_text, line, "strategy", row.get("strategy", ""))
        raw_orders = row.get("orders", list(_DEFAULT_ORDERS))
        if not isinstance(raw_orders, list):
            raise DataError(path, "must be a list such as [\"AB\", \"BA\"]", line=line,
                            field="orders")
        try:
            orders = check_orders(raw_orders)
        except ValueError as exc:
            raise DataError(path, str(exc), line=line, field="orders") from None
        first = orders_of.setdefault((subset, strategy), (orders, line))
        if first[0] != orders:
            raise DataError(path, f"orders {', '.join(map(str, orders))} differ from line "
                            f"{first[1]}'s {', '.join(map(str, first[0]))} in the same "
                            f"subset and strategy", line=line, field="orders")
        if (subset, strategy, item_id) in seen:
            raise DataError(path, f"duplicate id {item_id!r} in subset {subset!r} (first seen "
                            f"on line {seen[(subset, strategy, item_id)]})", line=line,
                            field="id")
        seen[(subset, strategy, item_id)] = line
        systems, lengths = _systems(path, line, row)
        judges = row["judges"]
        if not isinstance(judges, dict) or not judges:
            raise DataError(path, "must be an object: judge name -> verdicts (at least one "
                            "judge)", line=line, field="judges")
        for judge, value in judges.items():
            judge = once("name", check_name, line, "judges", judge)
            verdicts, texts, probabilities = _verdicts(path, line, f"judges.{judge}"[:120],
                                                       value, len(orders))
            groups.setdefault((subset, judge, strategy), []).append(
                RecordedItem(item_id, label, verdicts, texts, systems, lengths, probabilities))
    if not groups:
        raise DataError(path, "no items in the file")
    return [Recording(subset, judge, strategy, orders_of[(subset, strategy)][0],
                      tuple(items), source=str(path))
            for (subset, judge, strategy), items in groups.items()]


def write_recorded_jsonl(recordings: Iterable[Recording], path: str | Path, *,
                         texts: bool = True) -> int:
    """Write recordings in the generic format (gzip when ``path`` ends in ``.gz``).

    Items of one (subset, strategy) share a line across judges. ``texts=False`` drops the
    raw texts. Returns the number of lines written.
    """
    lines: dict[tuple[str, str, str], dict] = {}
    for rec in recordings:
        for item in rec.items:
            row = lines.setdefault((rec.subset, rec.strategy, item.item_id), {
                "id": item.item_id, "label": item.label, "subset": rec.subset,
                "strategy": rec.strategy, "judges": {}})
            if list(rec.orders) != list(_DEFAULT_ORDERS):
                row["orders"] = list(rec.orders)
            if item.label is None:
                del row["label"]
            for key in ("systems", "lengths"):
                if getattr(item, key) is not None:
                    row[key] = list(getattr(item, key))
            entry: dict[str, list] = {"verdicts": list(item.verdicts)}
            if texts and any(t is not None for t in item.texts):
                entry["texts"] = list(item.texts)
            if any(p is not None for p in item.probabilities):
                entry["probabilities"] = list(item.probabilities)
            row["judges"][rec.judge] = entry if len(entry) > 1 else list(item.verdicts)
    path = Path(path)
    body = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for r in lines.values()).encode()
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(body, compresslevel=9, mtime=0))
    else:
        path.write_bytes(body)
    return len(lines)
