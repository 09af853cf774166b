"""Checks shared by the loaders; each raises DataError naming file, line and field.

The rules every loader applies (so a bad file fails when it is loaded, before any model call):

- text (prompts, candidates, responses, item texts): a string with no NUL character and no
  lone surrogate (JSON can spell ``"\\ud800"``, which cannot be encoded as UTF-8 to send or
  store);
- names (ids, rater ids, dimensions, domains, groups): such text, not blank, at most
  :data:`MAX_NAME_CHARS` characters; an integer (not a boolean) is accepted where the format
  allows it and becomes its decimal text (``7`` -> ``"7"``);
- listwise items: 2 to :data:`MAX_CANDIDATES` candidates (they are labelled A-Z);
- files read whole (templates, rubrics): a regular file (never a device, FIFO or folder,
  which could be endless or block), of at most a stated size, read with a bounded read so a
  file that grows while it is read is bounded too (:func:`read_bounded`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..errors import DataError, did_you_mean_file
from .items import ListwiseItem

#: Most candidates a listwise item may have: judges see them labelled A to Z
#: (``protocols.prompts.LABELS``).
MAX_CANDIDATES = 26
#: Longest id or other name, in characters (ids are keys in run files and reports, not text).
MAX_NAME_CHARS = 256


def check_file(path: Path) -> Path:
    """Return ``path`` if it is a readable regular file, else raise DataError."""
    if not path.exists():
        raise DataError(path, f"file not found{did_you_mean_file(path)}")
    if not path.is_file():
        raise DataError(path, "not a file (a directory or device); give a data file")
    try:
        path.open("rb").close()
    except OSError as exc:
        raise DataError(path, f"cannot read the file ({exc.strerror})") from None
    return path


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes.

    The file is opened without blocking (a FIFO would wait for a writer) and checked to be a
    regular file on the open descriptor (so a path swapped after a check is caught too), then
    read with ``read(limit + 1)``: at most ``limit + 1`` bytes are ever held, however large
    the file is or grows.

    Args:
        path: the file.
        limit: most bytes allowed, > 0.
        what: the file's role in messages, e.g. ``"template"``.

    Raises:
        DataError: not found, not a regular file (a folder, device or FIFO), unreadable, or
            larger than ``limit`` (the message names its size and the limit).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise DataError(path, f"{what} file not found{did_you_mean_file(path)}") from None
    except OSError as exc:
        raise DataError(path, f"cannot read the {what}: {exc.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a device, FIFO or socket"
        raise DataError(path, f"not a file ({kind}); give a {what} file")
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > limit:  # said before reading a byte
            raise DataError(path, _too_large(what, f"{st.st_size:,} bytes", limit))
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise DataError(path, f"cannot read the {what}: {exc.strerror}") from None
    if len(data) > limit:  # it grew while being read
        raise DataError(path, _too_large(what, f"more than {limit:,} bytes", limit))
    return data


def _too_large(what: str, size: str, limit: int) -> str:
    mib = f" ({limit / (1 << 20):g} MiB)" if limit % (1 << 18) == 0 else ""
    return f"the {what} is {size}; at most {limit:,} bytes{mib}"


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be sent to a judge or stored as UTF-8, or None when it can."""
    if "\x00" in value:
        return f"contains a NUL character (at position {value.index(chr(0))})"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (f"contains a lone surrogate {value[exc.start]!r} (at position {exc.start}), "
                f"which is not valid Unicode text")
    return None


def check_text(path: Path, line: int | None, field: str, value: object) -> str:
    """Return ``value`` if it is text a judge can be sent (see :func:`text_problem`).

    Raises:
        DataError: not a string, a NUL character or a lone surrogate.
    """
    if not isinstance(value, str):
        raise DataError(path, f"must be text, got {value!r:.80}", line=line, field=field)
    problem = text_problem(value)
    if problem:
        raise DataError(path, problem, line=line, field=field)
    return value


def check_name(path: Path, line: int | None, field: str, value: object, *,
               integers: bool = True) -> str:
    """An id or other name as text: a non-blank string of at most :data:`MAX_NAME_CHARS`
    characters, or (with ``integers``) an integer, which becomes its decimal text.

    Raises:
        DataError: missing (None), blank, a boolean, another type, too long, or bad text.
    """
    allowed = "a string or an integer" if integers else "a string"
    if isinstance(value, int) and not isinstance(value, bool) and integers:
        value = str(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataError(path, f"missing or empty (got {value!r}); must be {allowed}",
                        line=line, field=field)
    if not isinstance(value, str):
        raise DataError(path, f"must be {allowed}, got {value!r:.80}", line=line, field=field)
    if len(value) > MAX_NAME_CHARS:
        raise DataError(path, f"{len(value)} characters long ({value[:40]!r}...); at most "
                        f"{MAX_NAME_CHARS} allowed", line=line, field=field)
    return check_text(path, line, field, value)


def make_item(path: Path, line: int, *, item_id: str, prompt: object, candidates: list,
              gold: Iterable[int], group: object = None,
              prompt_field: str = "prompt", candidates_field: str = "candidates",
              group_field: str = "group", labelled: bool = True) -> ListwiseItem:
    """Build a ListwiseItem, checking prompt, candidates, gold and group.

    ``group`` must be a string or None; a blank string means no group. With
    ``labelled=False`` an empty ``gold`` is allowed (an unlabelled item, for ``judge``).

    Raises:
        DataError: empty or bad prompt text, fewer than 2 or more than MAX_CANDIDATES
            candidates, an empty or bad candidate, two identical candidates, no gold
            candidate, a gold index given twice (``[0, 0]``), or a group that is not a
            string.
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise DataError(path, "missing field" if prompt is None else
                        f"empty prompt (got {prompt!r:.80})" if isinstance(prompt, str) else
                        f"a prompt is text, got {type(prompt).__name__} {prompt!r:.80}",
                        line=line, field=prompt_field)
    check_text(path, line, prompt_field, prompt)
    if len(candidates) < 2:
        raise DataError(path, f"needs at least 2 candidates, got {len(candidates)}",
                        line=line, field=candidates_field)
    if len(candidates) > MAX_CANDIDATES:
        raise DataError(path, f"at most {MAX_CANDIDATES} candidates (judges see them labelled "
                        f"A-Z), got {len(candidates)}", line=line, field=candidates_field)
    for i, text in enumerate(candidates):
        if not isinstance(text, str) or not text.strip():
            raise DataError(path, f"candidate {i} is empty or not text: {text!r:.80}",
                            line=line, field=candidates_field)
        check_text(path, line, f"{candidates_field}[{i}]", text)
    seen: dict[str, int] = {}
    for i, text in enumerate(candidates):
        if text.strip() in seen:
            raise DataError(path, f"candidates {seen[text.strip()]} and {i} are the same text "
                            f"{text.strip()!r:.60}; credit would be a coin toss",
                            line=line, field=candidates_field)
        seen[text.strip()] = i
    golds, seen_gold = list(gold), set[int]()
    for g in golds:
        if g in seen_gold:
            raise DataError(path, f"gold index {g!r} appears twice in {golds!r:.80}; give "
                            f"each gold candidate once", line=line, field="gold")
        seen_gold.add(g)
    gold_set = frozenset(golds)
    if (labelled and not gold_set) or not all(0 <= g < len(candidates) for g in gold_set):
        shown = ", ".join(map(str, sorted(gold_set))) or "(none)"
        raise DataError(path, f"gold indices {shown} must be a non-empty subset of "
                        f"0..{len(candidates) - 1}", line=line, field="gold")
    if isinstance(group, str) and not group.strip():
        group = None
    elif group is not None:
        group = check_name(path, line, group_field, group, integers=False)
    return ListwiseItem(item_id=item_id, prompt=prompt, candidates=tuple(candidates),
                        gold=gold_set, group=group)


class IdTracker:
    """Raises DataError on the second use of an item id, naming both lines."""

    def __init__(self, path: Path, field: str = "id") -> None:
        self.path, self.field = path, field
        self.seen: dict[str, int] = {}

    def add(self, item_id: str, line: int) -> None:
        if item_id in self.seen:
            raise DataError(self.path, f"duplicate id {item_id!r} (first seen on line "
                            f"{self.seen[item_id]})", line=line, field=self.field)
        self.seen[item_id] = line
