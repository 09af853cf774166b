"""The linear scan that finds a reply's JSON objects and decodes them safely.

Outside objects the scan looks for ``{``; from there it reads as JSON does (strings whole, so a
brace or a tag in a string counts for nothing) and matches braces and brackets. A matched
``{...}`` that decodes is an object; one that starts like JSON (``{"`` or ``{'``) but does not
decode is a broken object; any other (prose such as ``{note {"score": 3}}``) is searched for
objects inside it. After a ``{`` that is never closed the scan goes back to just after it, at
most :data:`_RESTARTS` times (its quotes may have been read out of step with the text's); one
that starts like JSON and has nothing after it is a broken object (the reply ends inside it).
Every character is read a bounded number of times, and only objects that start like JSON are
decoded, each once, from a slice (a decoding error's line count is then the slice's, not the
reply's), so the work is linear in the reply's length. Values nested deeper than
:data:`MAX_DEPTH` levels are cut out of the text decoded and read as
:class:`~jurybox.parsing.numbers.TooDeep` (:mod:`json` recurses once per level). The previous
parser tried a decode at every ``{``, which is quadratic: 200 kB of ``{`` took 29 s.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .numbers import MAX_DEPTH, BadNumber, TooDeep, read_float, read_int, shorten

__all__ = ["JSONReader", "JSONSpan", "MAX_DEPTH", "json_span_at", "json_spans",
           "last_json_span", "repeated_keys_message", "top_level_objects"]

# what stands for a value nested too deep in the text decoded (a JSON string no judge writes)
_TOO_DEEP_MARK = r'"\u0000jurybox:too-deep\u0000"'
_TOO_DEEP_VALUE = "\x00jurybox:too-deep\x00"
#: How many times the scan goes back to just after a ``{`` that is never closed.
_RESTARTS = 2
# inside an object: a whole JSON string, a brace or bracket, or a quote that opens a string
# never closed
_IN_OBJECT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{\[]+|[}\]]+|"', re.S)
_JSON_LIKE = re.compile(r"\{\s*[\"'}]")
# outside objects: a "{...}" with no brace or bracket inside (outside its strings), one that
# starts like JSON (group 1) or not (group 2), or any other "{" (group 3)
_FLAT_BODY = r'[^{}\[\]"]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^{}\[\]"]*)*\}'
_OUTSIDE = re.compile(r"(\{(?=\s*[\"'}])" + _FLAT_BODY + r")|(\{" + _FLAT_BODY + r")|(\{)", re.S)


def _match(text: str, start: int) -> tuple[int | None, list[tuple[int, int, int]]]:
    """Match the ``{`` at ``text[start]`` as JSON reads: ``(end, pairs)``, where ``end`` is
    just after its ``}`` (None when it is never closed) and ``pairs`` every matched ``{...}``
    inside it and itself, as ``(start, end, height)`` in closing order; ``height`` counts the
    levels of objects and arrays, 1 for ``{}``.

    A ``}`` closes the innermost ``{`` (brackets left open inside it go with it); a ``]``
    with no ``[`` to close is ignored. A string never closed runs to the end of the text.
    Runs of brackets are read as one token each (200 kB of ``{`` is one token, not 200,000).
    """
    opened, kinds, heights = [start], ["{"], [0]  # the open brackets; heights of their insides
    pairs: list[tuple[int, int, int]] = []
    for m in _IN_OBJECT.finditer(text, start + 1):
        first, last = m.span()
        c = text[first]
        if c == '"':
            if last - first == 1:
                return None, pairs  # a string never closed
        elif c == "{" or c == "[":
            if last - first == 1:
                opened.append(first)
                kinds.append(c)
                heights.append(0)
            else:
                opened.extend(range(first, last))
                kinds.extend(text[first:last])
                heights.extend([0] * (last - first))
        else:
            for at, c in enumerate(text[first:last], first):
                if c == "}":
                    kind, pos, height = kinds.pop(), opened.pop(), heights.pop() + 1
                    while kind != "{":  # a "[" left open inside goes with its "{"
                        heights[-1] = max(heights[-1], height)
                        kind, pos, height = kinds.pop(), opened.pop(), heights.pop() + 1
                    pairs.append((pos, at + 1, height))
                    if not kinds:
                        return at + 1, pairs
                    if heights[-1] < height:
                        heights[-1] = height
                elif kinds[-1] == "[":  # a "]" closing a "["; any other "]" is ignored
                    kinds.pop()
                    opened.pop()
                    height = heights.pop() + 1
                    if heights[-1] < height:
                        heights[-1] = height
    return None, pairs


def _inside(text: str, found: list[tuple[int, int, int]], out: list[tuple[int, int, int]]
            ) -> None:
    """Append to ``out`` the top-level objects among the matched pairs ``found``: those that
    start like JSON and are not inside another such (a pair in prose braces is looked into,
    one in an object is part of it)."""
    if len(found) > 1:
        found.sort()  # by start: a pair comes before the pairs inside it
    done = -1
    for start, end, height in found:
        if start >= done and _JSON_LIKE.match(text, start):
            out.append((start, end, height))
            done = end


def _next_brace(text: str, pos: int, out: list[tuple[int, int, int]]) -> int | None:
    """From ``pos`` on, append the flat objects (no brace or bracket inside) to ``out``, each
    matched in one regex step, up to the first other ``{``: its position, or None."""
    while (start := text.find("{", pos)) != -1:  # find: fast, and the GIL is soon let go
        m = _OUTSIDE.match(text, start)
        if m is None or m.lastindex == 3:
            return start
        if m.lastindex == 1:
            out.append((start, m.end(), 1))
        pos = m.end()
    return None


def top_level_objects(text: str) -> list[tuple[int, int, int]]:
    """The top-level objects of ``text`` as ``(start, end, height)``, in text order, decoded
    by none (see the module's docstring for the scan); height 0 marks an object that starts
    like JSON but is never closed, last of all (the reply ends inside it)."""
    out: list[tuple[int, int, int]] = []
    pos = restarts = 0
    unclosed = None
    while (start := _next_brace(text, pos, out)) is not None:
        end, found = _match(text, start)
        if end is None:
            if unclosed is None and _JSON_LIKE.match(text, start):
                unclosed = start  # the outermost: a restart finds the objects it opens
            if restarts < _RESTARTS and text.find('"', start) != -1:
                restarts += 1  # its quotes may have been read out of step: read again after it
                pos = start + 1
                continue
        _inside(text, found, out)
        if end is None:
            break  # without a quote a restart would match the same pairs
        pos = end
    if unclosed is not None and (not out or out[-1][0] < unclosed):
        out.append((unclosed, len(text), 0))
    return out


@dataclass(frozen=True)
class JSONSpan:
    """A top-level JSON object found in text.

    Attributes:
        obj: the object (for a repeated key, the last value, as :mod:`json` reads it); None
            for a broken or too deep one (see ``problem``).
        start, end: its span in the text searched.
        repeated: keys that occur twice in one object, at any nesting level, in order of
            first repetition (``()`` for a well-formed object).
        problem: why it cannot be used, as a parse error (None when it can): it does not
            decode, is never closed, is nested deeper than :data:`MAX_DEPTH`, or repeats a key.
    """

    obj: dict | None
    start: int
    end: int
    repeated: tuple[str, ...] = ()
    problem: str | None = None


def _shallow(text: str, start: int, end: int) -> str:
    """``text[start:end]`` (an object as :func:`_match` found it) with every value that opens
    deeper than :data:`MAX_DEPTH` levels replaced by a mark, in one pass over its tokens: what
    is left nests at most :data:`MAX_DEPTH` levels, so :mod:`json` decodes it without deep
    recursion (strings are read whole; any bracket closes a level, so a text with mismatched
    brackets stays invalid JSON and no deeper)."""
    parts: list[str] = []
    keep, depth, cut = start, 0, None  # text[keep:] not yet copied; cut: where a skip began
    for m in _IN_OBJECT.finditer(text, start, end):
        first, last = m.span()
        c = text[first]
        if c == '"':
            if last - first == 1:
                break  # a string never closed: the rest is copied (json fails on it)
            continue
        if c in "{[":
            if cut is None and depth + (last - first) > MAX_DEPTH:
                cut = first + (MAX_DEPTH - depth)
                parts.append(text[keep:cut])
            depth += last - first
            continue
        closed = min(last - first, depth)
        if cut is not None and depth - closed <= MAX_DEPTH:
            at = first + (depth - MAX_DEPTH)  # the bracket closing the value cut out
            parts.append(_TOO_DEEP_MARK)
            keep, cut = at, None
        depth -= closed
    if cut is None:
        parts.append(text[keep:end])
    return "".join(parts)


def _mark_too_deep(value: Any) -> Any:
    """``value`` (decoded from :func:`_shallow`'s text, so at most :data:`MAX_DEPTH` deep)
    with every mark read as a :class:`TooDeep`."""
    if isinstance(value, dict):
        return {k: _mark_too_deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mark_too_deep(v) for v in value]
    return TooDeep() if value == _TOO_DEEP_VALUE else value


class JSONReader:
    """Decodes found objects: repeated keys noted, numbers no float holds as BadNumber."""

    def __init__(self) -> None:
        self.repeated: list[str] = []
        self.decoder = json.JSONDecoder(object_pairs_hook=self._pairs, parse_int=read_int,
                                        parse_float=read_float, parse_constant=BadNumber.of)

    def _pairs(self, items: list[tuple[str, Any]]) -> dict:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen and key not in self.repeated:
                self.repeated.append(key)
            seen.add(key)
        return dict(items)

    def span(self, text: str, start: int, end: int, height: int) -> JSONSpan:
        if height == 0:
            return JSONSpan(None, start, end, problem="the JSON object is never closed (the "
                                                      "reply ends inside it)")
        self.repeated.clear()
        # a slice: a decoding error counts lines in it, not in the whole reply; values deeper
        # than MAX_DEPTH are cut out first (json recurses once per level)
        piece = text[start:end] if height <= MAX_DEPTH else _shallow(text, start, end)
        try:
            obj = self.decoder.decode(piece)
        except ValueError as exc:  # JSONDecodeError, or a bug in a hook
            where = (f" (at character {exc.pos + 1} of it)"  # of the text decoded
                     if isinstance(exc, json.JSONDecodeError) and height <= MAX_DEPTH else "")
            why = str(getattr(exc, "msg", exc)).removesuffix(" at")  # "... character at"
            return JSONSpan(None, start, end,
                            problem=f"the JSON object is not valid JSON: {why}{where}")
        if height > MAX_DEPTH:
            obj = _mark_too_deep(obj)
        repeated = tuple(self.repeated)
        return JSONSpan(obj, start, end, repeated,
                        repeated_keys_message(repeated) if repeated else None)


def json_spans(text: str, *, broken: bool = True) -> Iterator[JSONSpan]:
    """Every top-level JSON object in ``text`` (searched as is: strip think blocks first), in
    text order; an object nested in another is part of it, not yielded alone. Linear in
    ``len(text)`` (see the module's docstring); each object is decoded when it is reached.

    Args:
        broken: also yield what starts like a JSON object but cannot be read (``obj`` None,
            ``problem`` saying why): one that does not decode, is never closed or is nested
            deeper than :data:`MAX_DEPTH`.
    """
    reader = JSONReader()
    for start, end, height in top_level_objects(text):
        span = reader.span(text, start, end, height)
        if broken or span.obj is not None:
            yield span


def last_json_span(text: str) -> JSONSpan | None:
    """The last top-level JSON object of ``text`` (as :func:`json_spans` would yield it last,
    broken ones included), decoding no other; None when there is none."""
    found = top_level_objects(text)
    return JSONReader().span(text, *found[-1]) if found else None


def json_span_at(text: str, pos: int) -> JSONSpan | None:
    """The top-level JSON object of ``text`` that contains ``text[pos]`` (decoded, broken
    ones included), or None when ``pos`` is outside every object."""
    found = top_level_objects(text)
    i = bisect_right(found, (pos, math.inf)) - 1
    if i >= 0 and pos < found[i][1]:
        return JSONReader().span(text, *found[i])
    return None


def repeated_keys_message(keys: tuple[str, ...]) -> str:
    """The parse error for a JSON object that repeats ``keys``."""
    return (f"the JSON object repeats the key{'s' if len(keys) > 1 else ''} "
            f"{', '.join(shorten(k) for k in keys)}; write each key once")
