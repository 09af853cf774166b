"""One JSON-lines line parsed into an object, or a DataError saying where it is bad: the true
column (json's own counts from the line's newline, so a line cut short was "column 1") and
the top-level field it is in or after, or that the line ends before the object closes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import DataError

__all__ = ["parse_object_line"]


def parse_object_line(path: Path, line_no: int, text: str, *, parse_int: Any = None,
                      object_pairs_hook: Any = None,
                      repeated: type[ValueError] | tuple[()] = ()) -> object:
    """``text`` (one line of ``path``, its newline included or not) as JSON; ``parse_int``
    and ``object_pairs_hook`` as :func:`json.loads` takes them (default: json's own), and
    ``repeated`` the error ``object_pairs_hook`` raises for a key given twice (default: none).

    Raises:
        DataError: bad JSON (line, column, field; a line cut short: "the line ends before
            the JSON object closes"), a key repeated in one object (``repeated``, raised by
            ``object_pairs_hook``, carrying ``key``; field: the key), or nesting too deep.
    """
    text = text.rstrip("\r\n")
    try:
        return json.loads(text, parse_int=parse_int, object_pairs_hook=object_pairs_hook)
    except repeated as exc:
        key = str(getattr(exc, "key", exc))
        raise DataError(path, f"key {key!r:.80} appears twice in one JSON object; give each "
                        f"key once", line=line_no, field=key[:80]) from None
    except json.JSONDecodeError as exc:
        raise _bad_json(path, line_no, text, exc) from None
    except RecursionError:
        raise DataError(path, "JSON nested too deeply to read", line=line_no) from None


class _Place(NamedTuple):
    """Where a position of a JSON text is: the last top-level key before it, and whether the
    position is in that key's value (else after it: the value is complete, or a comma
    followed it)."""

    key: str | None
    inside: bool


def _bad_json(path: Path, line_no: int, text: str, exc: json.JSONDecodeError) -> DataError:
    """The DataError of ``exc`` (json's error parsing ``text``, one line without newline)."""
    cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip())
    place = _place(text, exc.pos)
    field = place.key[:80] if place.key is not None and place.inside else None
    after = f" (after field {place.key[:80]!r})" if place.key is not None and field is None \
        else ""
    if cut:
        string = (f": the string at column {exc.pos + 1} is not closed"
                  if exc.msg.startswith("Unterminated string") else "")
        what = "list" if text.lstrip().startswith("[") else "object"
        return DataError(path, f"the line ends before the JSON {what} closes{string}{after}; "
                         f"was the line cut short?", line=line_no, field=field)
    return DataError(path, f"invalid JSON at column {exc.pos + 1}{after}: {exc.msg}",
                     line=line_no, field=field)


def _place(text: str, pos: int) -> _Place:
    """The top-level member of the JSON object ``text`` that ``pos`` is in or after (one
    linear pass over ``text[:pos]``, whatever the nesting)."""
    depth, in_string, escaped = 0, False, False
    start = 0
    last: str | None = None  # the last string closed at depth 1 (a key, if a ':' follows)
    key: str | None = None
    inside = False
    for i, char in enumerate(text[:pos]):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                if depth == 1 and inside:  # a value that is a string: complete
                    inside = False
                elif depth == 1:
                    last = text[start + 1:i]
        elif char == '"':
            in_string, start = True, i
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            inside = inside and depth != 1  # a value that is an object or a list: complete
        elif depth == 1 and char == ":":
            key, inside = _unescape(last), True
        elif depth == 1 and char == ",":
            inside = False
    return _Place(key, inside)


def _unescape(raw: str | None) -> str | None:
    """A key as written between its quotes, decoded (``\\u00e9`` is é); as written when it
    does not decode."""
    if raw is None:
        return None
    try:
        value = json.loads(f'"{raw}"')
    except json.JSONDecodeError:
        return raw
    return value if isinstance(value, str) else raw
