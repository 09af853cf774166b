"""Find the JSON object a judge meant, wherever it put it, in time linear in the reply.

Judges wrap answers in ``<think>`` blocks, code fences and prose. The judge's **last** JSON
object in the visible text (think blocks removed) that holds one of the answer's keys is its
answer, fenced or not: a draft before it, valid or not, never stands in for it, and an object
after it that holds none of the answer's keys (data the judge quoted) is not an answer
(:func:`final_object`). An answer object that repeats a key or starts like JSON (``{"`` or
``{'``) but does not decode is still the judge's answer: a parse failure naming why. Values
nested deeper than :data:`MAX_DEPTH` levels are read as :class:`TooDeep` (never decoded: json
recurses once per level), so a verdict beside a 900-deep object is still read.

How objects are found (:func:`json_spans`), in one left-to-right scan: outside objects the scan
looks for ``{``; from there it reads as JSON does (strings whole, so a brace or a tag in a
string counts for nothing) and matches braces and brackets. A matched ``{...}`` that decodes is
an object; one that starts like JSON but does not decode is a broken object; any other (prose
such as ``{note {"score": 3}}``) is searched for objects inside it. After a ``{`` that is never
closed the scan goes back to just after it, at most :data:`_RESTARTS` times (its quotes may
have been read out of step with the text's); one that starts like JSON and has nothing after
it is a broken object (the reply ends inside it). Every character is read a bounded number of
times, and only objects that start like JSON are decoded, each once, from a slice (a decoding
error's line count is then the slice's, not the reply's), so the work is linear in the reply's
length; replies longer than the answer budget (:data:`MAX_REPLY_CHARS` characters unless
set: :func:`answer_budget`, ``--max-answer-chars``) are not read at all (:func:`check_length`).
The previous parser tried a decode at every ``{`` and looked for a closing tag from every
opening one, which is quadratic: 200 kB of ``{`` took 29 s, 200 kB of ``<think>`` 295 s.

Numbers: a JSON number literal no float can hold (``1e999999``, 5,000 digits) and the
``NaN``/``Infinity`` literals :mod:`json` accepts decode as :class:`BadNumber`, which
:func:`number_field` refuses; they never raise (Python refuses ``int()`` of more than 4,300
digits) and never read as a value.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from typing import TypeVar

from .budget import MAX_REPLY_CHARS, answer_budget, check_length
from .numbers import BadNumber, TooDeep, digits_hint, number_field, shorten
from .scan import (MAX_DEPTH, JSONReader, JSONSpan, json_span_at, json_spans, last_json_span,
                   repeated_keys_message, top_level_objects)

T = TypeVar("T")

# re-exported: the answer-finding names and the ones parsers take from here
__all__ = ["strip_thinking", "json_objects", "looks_like_refusal", "number_field",
           "final_object", "JSONSpan", "json_spans", "json_span_at", "last_json_span",
           "repeated_keys_message", "BadNumber", "TooDeep", "check_length", "answer_budget",
           "digits_hint", "shorten", "MAX_DEPTH", "MAX_REPLY_CHARS"]

_TAG = re.compile(r"<(/?)(think|thinking|reasoning)>", re.I)
_TAG_NAMES = ("think", "thinking", "reasoning")
_REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry,|i can(?:no|')t|i cannot|i won'?t|i'?m unable|"
    r"i am unable|as an ai)", re.I)


def strip_thinking(text: str) -> str:
    """The visible text: ``<think>...</think>`` blocks (also ``thinking``, ``reasoning``)
    removed, and a leading unopened block ending in ``</think>`` (some servers drop the
    opening tag).

    Tags are only read outside JSON objects (found as :func:`json_spans` finds them), so a
    rationale quoting a literal ``<think>`` keeps it and a draft object in a block goes with
    the block. A block that is never closed is left visible. Only the first closing tag
    without an opening one ends a leading block. Linear in ``len(text)``: each opening tag
    is matched with the next closing tag of its name from a list of those, read forward once.
    """
    tags = [(m.start(), m.end(), bool(m.group(1)), m.group(2).lower())
            for m in _TAG.finditer(text)]  # (start, end, closing, name)
    if not tags:
        return text
    starts = [t[0] for t in tags]
    masks = []  # objects that decode and hold a tag: their tags are text, not tags
    reader = JSONReader()
    for start, end, height in top_level_objects(text):
        i = bisect_right(starts, start)
        if i < len(starts) and starts[i] < end and reader.span(
                text, start, end, height).obj is not None:
            masks.append((start, end))
    if masks:
        def masked(pos: int) -> bool:
            j = bisect_right(masks, (pos, math.inf)) - 1
            return j >= 0 and pos < masks[j][1]

        tags = [t for t in tags if not masked(t[0])]
    # the closing tags of each name, by index in tags; ahead[name] only moves forward
    closing: dict[str, list[int]] = {name: [] for name in _TAG_NAMES}
    for i, (_, _, closes, name) in enumerate(tags):
        if closes:
            closing[name].append(i)
    ahead = dict.fromkeys(_TAG_NAMES, 0)
    parts: list[str] = []
    keep = i = 0  # text[keep:] is visible so far; tags[i] is next
    leading_dropped = False
    while i < len(tags):
        start, end, closes, name = tags[i]
        if closes:  # a closing tag with no opening one
            if not leading_dropped:
                parts, keep, leading_dropped = [], end, True
            i += 1
            continue
        later, k = closing[name], ahead[name]
        while k < len(later) and later[k] < i:
            k += 1
        ahead[name] = k
        if k == len(later):  # never closed: left visible
            i += 1
            continue
        parts.append(text[keep:start])
        keep, i = tags[later[k]][1], later[k] + 1
    parts.append(text[keep:])
    return "".join(parts)


def json_objects(text: str) -> Iterator[dict]:
    """Yield the JSON objects in ``text``'s visible part (think blocks removed), fenced or
    not, from last to first. An object that repeats a key (at any nesting level) is not
    yielded (which value the judge meant is unknown), nor one that cannot be read."""
    spans = [s for s in json_spans(strip_thinking(text), broken=False) if not s.repeated]
    return (span.obj for span in reversed(spans) if span.obj is not None)


def looks_like_refusal(text: str, *, visible: bool = False) -> bool:
    """True when the visible text opens like a refusal ("I'm sorry", "I can't", ...).

    Args:
        visible: ``text`` is already the visible text (:func:`strip_thinking`'s result).
    """
    return bool(_REFUSAL.match(text if visible else strip_thinking(text)))


def _holder(text: str, found: list[tuple[int, int, int]], keys: tuple[str, ...]
            ) -> JSONSpan | None:
    """The last of the objects ``found`` in ``text`` that has one of ``keys`` at its top
    level (one that cannot be decoded: whose text names one as a key, in either quotes),
    decoded; None when none has."""
    reader = JSONReader()
    named = re.compile("[\"'](?:" + "|".join(re.escape(k) for k in keys) + ")[\"']\\s*:")
    for start, end, height in reversed(found):
        span = reader.span(text, start, end, height)
        if (any(k in span.obj for k in keys) if span.obj is not None
                else named.search(text, start, end) is not None):
            return span
    return None


def final_object(text: str, validate: Callable[[dict], T], keys: tuple[str, ...] = ()
                 ) -> T:
    """The judge's answer: the **last** JSON object of the visible text (think blocks
    removed, fenced or not) that holds one of ``keys`` (the answer's own keys; any object
    when ``keys`` is empty, or when none holds one), validated. An earlier object, valid or
    not, never stands in for a last one that fails: the judge's last answer is its answer;
    a later object that holds none of ``keys`` is data the judge quoted, not an answer.

    Raises:
        ParseError: the text is over the answer budget (:func:`check_length`); the answer
            object fails ``validate`` (its message, for the re-ask), repeats a key, does not
            decode or is never closed (the message says which); the text reads as a refusal
            (``kind="refusal"``); or there is no JSON object. ``raw`` holds the text.
    """
    from ..errors import ParseError

    check_length(text)
    visible = strip_thinking(text)
    found = top_level_objects(visible)
    if not found:
        if looks_like_refusal(visible, visible=True):
            raise ParseError("the judge refused", raw=text, kind="refusal")
        raise ParseError("no JSON object found in the reply", raw=text)
    span = (keys and _holder(visible, found, keys)) or JSONReader().span(visible, *found[-1])
    if span.problem is not None or span.obj is None:
        raise ParseError(span.problem or "the JSON object cannot be read", raw=text)
    try:
        return validate(span.obj)
    except ParseError as exc:
        raise ParseError(str(exc), raw=text) from None
