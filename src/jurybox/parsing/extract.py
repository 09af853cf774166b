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

import json
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from ..limits import DEFAULT_MAX_ANSWER_CHARS

T = TypeVar("T")

__all__ = ["strip_thinking", "json_objects", "looks_like_refusal", "number_field",
           "final_object", "JSONSpan", "json_spans", "json_span_at", "last_json_span",
           "repeated_keys_message", "BadNumber", "TooDeep", "check_length", "answer_budget",
           "digits_hint", "shorten", "MAX_DEPTH", "MAX_REPLY_CHARS"]

#: The default answer budget: the longest reply read, in characters (about 250,000 tokens,
#: far above any judge's ``max_tokens``); a longer reply is a parse failure saying so
#: (:func:`check_length`). Set for a run with ``--max-answer-chars`` (up to
#: :data:`jurybox.limits.MAX_ANSWER_CHARS`), in Python with :func:`answer_budget`.
MAX_REPLY_CHARS = DEFAULT_MAX_ANSWER_CHARS
#: The deepest nesting of objects and arrays decoded (a judgment needs 3); a value nested
#: deeper is read as :class:`TooDeep`, never decoded (:mod:`json` would recurse once per level).
MAX_DEPTH = 32
#: The answer budget in effect (None: :data:`MAX_REPLY_CHARS`): see :func:`answer_budget`.
_BUDGET: ContextVar[int | None] = ContextVar("jurybox_answer_budget", default=None)
# what stands for a value nested too deep in the text decoded (a JSON string no judge writes)
_TOO_DEEP_MARK = r'"\u0000jurybox:too-deep\u0000"'
_TOO_DEEP_VALUE = "\x00jurybox:too-deep\x00"
#: How many times the scan goes back to just after a ``{`` that is never closed.
_RESTARTS = 2
#: The longest JSON integer literal read as an int; longer ones are read as floats.
_INT_DIGITS = 20

_TAG = re.compile(r"<(/?)(think|thinking|reasoning)>", re.I)
_TAG_NAMES = ("think", "thinking", "reasoning")
# inside an object: a whole JSON string, a brace or bracket, or a quote that opens a string
# never closed
_IN_OBJECT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{\[]+|[}\]]+|"', re.S)
_JSON_LIKE = re.compile(r"\{\s*[\"'}]")
# outside objects: a "{...}" with no brace or bracket inside (outside its strings), one that
# starts like JSON (group 1) or not (group 2), or any other "{" (group 3)
_FLAT_BODY = r'[^{}\[\]"]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^{}\[\]"]*)*\}'
_OUTSIDE = re.compile(r"(\{(?=\s*[\"'}])" + _FLAT_BODY + r")|(\{" + _FLAT_BODY + r")|(\{)", re.S)
_REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry,|i can(?:no|')t|i cannot|i won'?t|i'?m unable|"
    r"i am unable|as an ai)", re.I)
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FRACTION = re.compile(r"([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))[ \t]*(?:/|out[ \t]+of)[ \t]*"
                       r"([0-9]+(?:\.[0-9]+)?)", re.I)
_ASCII_SPACE = " \t\r\n"


def shorten(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters (``'999…' (5000 characters)``), for
    error messages that quote what a judge wrote (a re-ask and calls.jsonl stay short)."""
    if isinstance(value, (BadNumber, TooDeep)):
        return str(value)
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value) if not isinstance(value, (list, dict)) or len(value) < 50 else (
        f"a {type(value).__name__} of {len(value):,} entries")
    return text if len(text) <= limit else f"{text[:limit]}…"


@dataclass(frozen=True)
class BadNumber:
    """A JSON number literal that is not a finite number a float can hold: ``NaN``,
    ``Infinity``, ``1e999999``, an integer of hundreds of digits.

    Attributes:
        literal: what the judge wrote (its first 20 characters when longer).
        length: the literal's length in characters.
    """

    literal: str
    length: int

    @classmethod
    def of(cls, literal: str) -> BadNumber:
        return cls(literal[:20], len(literal))

    def __str__(self) -> str:
        return self.literal if self.length <= 20 else (
            f"{self.literal}… (a number of {self.length:,} characters)")


@dataclass(frozen=True)
class TooDeep:
    """What a JSON value nested deeper than :data:`MAX_DEPTH` levels reads as (it is never
    decoded): a score written as one fails naming it; a rationale holding one is kept as
    text."""

    def __str__(self) -> str:
        return f"a value nested more than {MAX_DEPTH} levels deep"


def _read_int(literal: str) -> int | float | BadNumber:
    if len(literal) <= _INT_DIGITS:
        return int(literal)
    return _read_float(literal)  # float() has no digit limit; int() stops at 4,300


def _read_float(literal: str) -> float | BadNumber:
    value = float(literal)
    return value if math.isfinite(value) else BadNumber.of(literal)


# ------------------------------------------------------------------------------ the scan
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


def _objects(text: str) -> list[tuple[int, int, int]]:
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


class _Reader:
    """Decodes found objects: repeated keys noted, numbers no float holds as BadNumber."""

    def __init__(self) -> None:
        self.repeated: list[str] = []
        self.decoder = json.JSONDecoder(object_pairs_hook=self._pairs, parse_int=_read_int,
                                        parse_float=_read_float, parse_constant=BadNumber.of)

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
    reader = _Reader()
    for start, end, height in _objects(text):
        span = reader.span(text, start, end, height)
        if broken or span.obj is not None:
            yield span


def last_json_span(text: str) -> JSONSpan | None:
    """The last top-level JSON object of ``text`` (as :func:`json_spans` would yield it last,
    broken ones included), decoding no other; None when there is none."""
    found = _objects(text)
    return _Reader().span(text, *found[-1]) if found else None


def json_span_at(text: str, pos: int) -> JSONSpan | None:
    """The top-level JSON object of ``text`` that contains ``text[pos]`` (decoded, broken
    ones included), or None when ``pos`` is outside every object."""
    found = _objects(text)
    i = bisect_right(found, (pos, math.inf)) - 1
    if i >= 0 and pos < found[i][1]:
        return _Reader().span(text, *found[i])
    return None


# ------------------------------------------------------------------------------ think blocks
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
    reader = _Reader()
    for start, end, height in _objects(text):
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


@contextmanager
def answer_budget(max_chars: int | None) -> Iterator[None]:
    """Within the block, replies up to ``max_chars`` characters are read (None: the default,
    :data:`MAX_REPLY_CHARS`); the runner sets the run's ``max_answer_chars`` this way around
    each parse. It holds for the current thread or task (a context variable; a worker thread
    started by :func:`asyncio.to_thread` inherits it).

    Raises:
        ValueError: ``max_chars`` is below 1.
    """
    if max_chars is not None and max_chars < 1:
        raise ValueError(f"the answer budget must be at least 1 character, got {max_chars}")
    token = _BUDGET.set(max_chars)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def check_length(text: str, max_chars: int | None = None) -> None:
    """Refuse a reply longer than the answer budget: ``max_chars``, else the budget set by
    :func:`answer_budget`, else :data:`MAX_REPLY_CHARS` characters.

    Raises:
        ParseError: ``text`` is over the budget; the message says how long it is, which
            budget and how to set it. ``raw`` holds the text.
    """
    from ..errors import ParseError

    budget = max_chars or _BUDGET.get() or MAX_REPLY_CHARS
    if len(text) > budget:
        raise ParseError(f"the answer is {len(text):,} characters long, over the answer "
                         f"budget of {budget:,} characters (--max-answer-chars): answer "
                         f"briefly", raw=text)


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


def digits_hint(value: object) -> str:
    """``" (only ASCII decimal digits 0-9 are read)"`` when ``value`` is text with an
    underscore or a non-ASCII digit ("1_0", "１０"), else ``""``: the hint for an error."""
    if isinstance(value, str) and ("_" in value or any(
            not c.isascii() and c.isnumeric() for c in value)):
        return " (only ASCII decimal digits 0-9 are read)"
    return ""


def number_field(name: str, value: object, *, scale_max: float | None = None) -> float:
    """A number a judge wrote: a JSON number, or a numeric string in ASCII decimal digits
    ("85", " 72.5 ", "90%"): no underscores ("1_0"), no other digits ("１０"), no exponent,
    no ``nan``/``inf``.

    With ``scale_max``, a fraction out of that maximum reads as its numerator ("85/100" and
    "85 out of 100" are 85 when ``scale_max`` is 100); a fraction out of anything else
    ("8/10" on a scale up to 100) is rejected, never rescaled: the judge used another scale.
    Range checks are the caller's.

    Raises:
        ParseError: a boolean, None, a list or object, other text, a :class:`BadNumber`
            (NaN, infinite, too many digits), or a fraction (out of a number other than
            ``scale_max``, or any fraction without one). The message names ``name`` and
            quotes the value (shortened).
    """
    from ..errors import ParseError

    written = value
    if isinstance(value, str):
        written = value.strip(_ASCII_SPACE)
        if (fraction := _FRACTION.fullmatch(written)) is not None:
            if scale_max is None or float(fraction.group(2)) != scale_max:
                out_of = "" if scale_max is None else f" (a fraction only out of {scale_max:g})"
                raise ParseError(f"{name} must be a number{out_of}, got {shorten(value)}")
            written = fraction.group(1)
        elif written.endswith("%"):
            written = written[:-1].rstrip(_ASCII_SPACE)
        if not _DECIMAL.fullmatch(written):
            raise ParseError(f"{name} must be a number, got {shorten(value)}"
                             f"{digits_hint(value)}")
        written = float(written)
    if isinstance(written, bool) or not isinstance(written, (int, float)) or not math.isfinite(
            written):
        raise ParseError(f"{name} must be a finite number, got {shorten(value)}"
                         if isinstance(value, BadNumber) or isinstance(written, float)
                         else f"{name} must be a number, got {shorten(value)}")
    return float(written)


def repeated_keys_message(keys: tuple[str, ...]) -> str:
    """The parse error for a JSON object that repeats ``keys``."""
    return (f"the JSON object repeats the key{'s' if len(keys) > 1 else ''} "
            f"{', '.join(shorten(k) for k in keys)}; write each key once")


def _holder(text: str, found: list[tuple[int, int, int]], keys: tuple[str, ...]
            ) -> JSONSpan | None:
    """The last of the objects ``found`` in ``text`` that has one of ``keys`` at its top
    level (one that cannot be decoded: whose text names one as a key, in either quotes),
    decoded; None when none has."""
    reader = _Reader()
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
    found = _objects(visible)
    if not found:
        if looks_like_refusal(visible, visible=True):
            raise ParseError("the judge refused", raw=text, kind="refusal")
        raise ParseError("no JSON object found in the reply", raw=text)
    span = (keys and _holder(visible, found, keys)) or _Reader().span(visible, *found[-1])
    if span.problem is not None or span.obj is None:
        raise ParseError(span.problem or "the JSON object cannot be read", raw=text)
    try:
        return validate(span.obj)
    except ParseError as exc:
        raise ParseError(str(exc), raw=text) from None
