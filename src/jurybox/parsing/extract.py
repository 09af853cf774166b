"""Find the JSON object a judge meant, wherever it put it.

Judges wrap answers in ``<think>`` blocks, code fences and prose. :func:`json_objects` yields
every top-level JSON object in the visible text, last first (a judge's final answer wins over
drafts and quoted examples).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

__all__ = ["strip_thinking", "json_objects", "looks_like_refusal", "number_field",
           "last_valid_object"]

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)
_UNCLOSED_THINK_END = re.compile(r"^.*?</(think|thinking|reasoning)>", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry,|i can(?:no|')t|i cannot|i won'?t|i'?m unable|"
    r"i am unable|as an ai)", re.I)


def strip_thinking(text: str) -> str:
    """Remove ``<think>...</think>`` blocks, and a leading unopened block ending in
    ``</think>`` (some servers drop the opening tag)."""
    text = _THINK.sub("", text)
    return _UNCLOSED_THINK_END.sub("", text, count=1) if re.search(
        r"</(think|thinking|reasoning)>", text, re.I) else text


def json_objects(text: str) -> Iterator[dict]:
    """Yield JSON objects found in ``text``: fenced blocks first, then bare objects; each group
    from last to first. Text inside think blocks is ignored."""
    visible = strip_thinking(text)
    decoder = json.JSONDecoder()
    seen: set[str] = set()
    groups = [[m.group(1) for m in _FENCE.finditer(visible)], [visible]]
    for group in groups:
        found: list[dict] = []
        for chunk in group:
            pos = 0
            while (start := chunk.find("{", pos)) != -1:
                try:
                    obj, end = decoder.raw_decode(chunk, start)
                except json.JSONDecodeError:
                    pos = start + 1
                    continue
                if isinstance(obj, dict):
                    found.append(obj)
                pos = end
        for obj in reversed(found):
            ident = json.dumps(obj, sort_keys=True)
            if ident not in seen:
                seen.add(ident)
                yield obj


def looks_like_refusal(text: str) -> bool:
    """True when the visible text opens like a refusal ("I'm sorry", "I can't", ...)."""
    return bool(_REFUSAL.match(strip_thinking(text)))


def number_field(name: str, value: object) -> float:
    """A number a judge wrote: a JSON number, or a numeric string ("85", " 72.5 ", "90%").

    Raises:
        ParseError: a boolean, non-numeric text, NaN or another type.
    """
    from ..errors import ParseError

    if isinstance(value, str):
        try:
            value = float(value.strip().rstrip("%"))
        except ValueError:
            raise ParseError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ParseError(f"{name} must be a number, got {value!r}")
    return float(value)


def last_valid_object(text: str, validate: Callable[[dict], T]) -> T:
    """The last JSON object in ``text`` that ``validate`` accepts, validated.

    Raises:
        ParseError: none validates (the message is the last object's validation error, for the
            re-ask), the text reads as a refusal (``kind="refusal"``), or there is no JSON
            object. ``raw`` holds the text.
    """
    from ..errors import ParseError

    first_error: ParseError | None = None
    for obj in json_objects(text):  # last first
        try:
            return validate(obj)
        except ParseError as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise ParseError(str(first_error), raw=text)
    if looks_like_refusal(text):
        raise ParseError("the judge refused", raw=text, kind="refusal")
    raise ParseError("no JSON object found in the reply", raw=text)
