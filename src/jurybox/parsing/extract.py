"""Find the JSON object a judge meant, wherever it put it.

Judges wrap answers in ``<think>`` blocks, code fences and prose. :func:`json_objects` yields
every top-level JSON object in the visible text, last first (a judge's final answer wins over
drafts and quoted examples). An object that repeats a key is a parse failure naming the key
(:func:`last_valid_object`), never resolved last-wins as :mod:`json` would.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["strip_thinking", "json_objects", "looks_like_refusal", "number_field",
           "last_valid_object", "JSONSpan", "json_spans", "repeated_keys_message"]

# an opening or closing reasoning tag, or the start of a JSON object
_TAG_OR_BRACE = re.compile(r"<(/?)(think|thinking|reasoning)>|\{", re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_FRACTION = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*(\d+(?:\.\d+)?)\s*$", re.I)
_REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry,|i can(?:no|')t|i cannot|i won'?t|i'?m unable|"
    r"i am unable|as an ai)", re.I)
_DECODER = json.JSONDecoder()


def _object_end(text: str, start: int) -> int | None:
    """Where the JSON object starting at ``text[start]`` (a ``{``) ends, or None when none
    decodes there."""
    try:
        return _DECODER.raw_decode(text, start)[1]
    except json.JSONDecodeError:
        return None


def _block_end(text: str, pos: int, name: str) -> int | None:
    """The end of the ``</name>`` that closes a reasoning block opened before ``pos``, reading
    past JSON objects whole (a tag quoted in a draft's string closes nothing); None when the
    block is never closed."""
    while (m := _TAG_OR_BRACE.search(text, pos)) is not None:
        if m.group(0) == "{":
            pos = _object_end(text, m.start()) or m.start() + 1
        elif m.group(1) and m.group(2).lower() == name.lower():
            return m.end()
        else:
            pos = m.end()
    return None


def strip_thinking(text: str) -> str:
    """The visible text: ``<think>...</think>`` blocks (also ``thinking``, ``reasoning``)
    removed, and a leading unopened block ending in ``</think>`` (some servers drop the
    opening tag).

    Tags are only read outside JSON objects: text is scanned left to right and an object
    that decodes is kept whole, so a rationale quoting a literal ``<think>`` keeps it. Inside a
    block, objects are skipped the same way while looking for its closing tag, so a draft
    object in a block goes with the block. A block that is never closed is left visible.
    Only the first closing tag without an opening one ends a leading block.
    """
    parts: list[str] = []
    keep = pos = 0  # text[keep:] is visible so far; the scan is at pos
    leading_dropped = False
    while (m := _TAG_OR_BRACE.search(text, pos)) is not None:
        if m.group(0) == "{":
            pos = _object_end(text, m.start()) or m.start() + 1
        elif m.group(1):  # a closing tag with no opening one
            if not leading_dropped:
                parts, keep, leading_dropped = [], m.end(), True
            pos = m.end()
        elif (end := _block_end(text, m.end(), m.group(2))) is not None:
            parts.append(text[keep:m.start()])
            keep = pos = end
        else:
            pos = m.end()
    parts.append(text[keep:])
    return "".join(parts)


@dataclass(frozen=True)
class JSONSpan:
    """A top-level JSON object found in text.

    Attributes:
        obj: the object (for a repeated key, the last value, as :mod:`json` reads it).
        start, end: its span in the text searched.
        repeated: keys that occur twice in one object, at any nesting level, in order of
            first repetition (``()`` for a well-formed object).
    """

    obj: dict
    start: int
    end: int
    repeated: tuple[str, ...] = ()


def json_spans(text: str) -> Iterator[JSONSpan]:
    """Every top-level JSON object in ``text`` (searched as is: strip think blocks first), in
    text order; an object nested in another is part of it, not yielded alone."""
    repeated: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
        return dict(items)

    decoder = json.JSONDecoder(object_pairs_hook=pairs)
    pos = 0
    while (start := text.find("{", pos)) != -1:
        repeated.clear()
        try:
            obj, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            pos = start + 1
            continue
        yield JSONSpan(obj, start, end, tuple(repeated))
        pos = end


def _candidates(text: str) -> Iterator[JSONSpan]:
    """The objects :func:`json_objects` considers, repeated keys included, in its order."""
    visible = strip_thinking(text)
    seen: set[str] = set()
    groups = [[m.group(1) for m in _FENCE.finditer(visible)], [visible]]
    for group in groups:
        found = [span for chunk in group for span in json_spans(chunk)]
        for span in reversed(found):
            ident = json.dumps([span.obj, span.repeated], sort_keys=True)
            if ident not in seen:
                seen.add(ident)
                yield span


def json_objects(text: str) -> Iterator[dict]:
    """Yield JSON objects found in ``text``: fenced blocks first, then bare objects; each group
    from last to first. Text inside think blocks is ignored. An object that repeats a key (at
    any nesting level) is not yielded: which value the judge meant is unknown."""
    return (span.obj for span in _candidates(text) if not span.repeated)


def looks_like_refusal(text: str) -> bool:
    """True when the visible text opens like a refusal ("I'm sorry", "I can't", ...)."""
    return bool(_REFUSAL.match(strip_thinking(text)))


def number_field(name: str, value: object, *, scale_max: float | None = None) -> float:
    """A number a judge wrote: a JSON number, or a numeric string ("85", " 72.5 ", "90%").

    With ``scale_max``, a fraction out of that maximum reads as its numerator ("85/100" and
    "85 out of 100" are 85 when ``scale_max`` is 100); a fraction out of anything else
    ("8/10" on a scale up to 100) is rejected, never rescaled: the judge used another scale.
    Range checks are the caller's.

    Raises:
        ParseError: a boolean, non-numeric text, NaN, another type, or a fraction (out of a
            number other than ``scale_max``, or any fraction without one). The message names
            ``name``.
    """
    from ..errors import ParseError

    if isinstance(value, str) and (fraction := _FRACTION.match(value)) is not None:
        if scale_max is None or float(fraction.group(2)) != scale_max:
            out_of = "" if scale_max is None else f" (a fraction only out of {scale_max:g})"
            raise ParseError(f"{name} must be a number{out_of}, got {value!r}")
        value = fraction.group(1)
    if isinstance(value, str):
        try:
            value = float(value.strip().rstrip("%"))
        except ValueError:
            raise ParseError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ParseError(f"{name} must be a number, got {value!r}")
    return float(value)


def repeated_keys_message(keys: tuple[str, ...]) -> str:
    """The parse error for a JSON object that repeats ``keys``."""
    return (f"the JSON object repeats the key{'s' if len(keys) > 1 else ''} "
            f"{', '.join(map(repr, keys))}; write each key once")


def last_valid_object(text: str, validate: Callable[[dict], T]) -> T:
    """The last JSON object in ``text`` that ``validate`` accepts, validated.

    An object that repeats a key (at any nesting level) does not validate: the error names
    the key.

    Raises:
        ParseError: none validates (the message is the last object's validation error, for the
            re-ask), the text reads as a refusal (``kind="refusal"``), or there is no JSON
            object. ``raw`` holds the text.
    """
    from ..errors import ParseError

    first_error: ParseError | None = None
    for span in _candidates(text):  # last first
        try:
            if span.repeated:
                raise ParseError(repeated_keys_message(span.repeated))
            return validate(span.obj)
        except ParseError as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise ParseError(str(first_error), raw=text)
    if looks_like_refusal(text):
        raise ParseError("the judge refused", raw=text, kind="refusal")
    raise ParseError("no JSON object found in the reply", raw=text)
