"""Reading what an endpoint answered, whatever the server put in the fields.

OpenAI-compatible servers differ in legal but unusual ways (the answer's ``content`` as a list
of parts, ``null`` where a string is expected), and a broken proxy may send anything. Each
field a provider reads goes through one function here, which either reads it (when its
meaning is unambiguous) or says in one line what is wrong:

- :func:`answer_text`: a string, ``null`` (no text), or a list of content parts
  (``[{"type": "text", "text": "..."}]``, the text parts joined); anything else is a
  :class:`~jurybox.errors.ProviderError` (a recorded call failure, never a traceback).
- :func:`finish_reason`: a string or ``null``; another type is a ProviderError (whether the
  answer was cut off at the token limit cannot be told, so the answer is not used).
- :func:`count_problem`: why a token count is not a count (usage that is not a non-negative
  integer is recorded as invalid and never enters the totals; :class:`~jurybox.providers.Usage`).
- :func:`repair_text`: lone surrogates (JSON ``"\\ud800"``, which UTF-8 cannot encode)
  replaced by U+FFFD, so the answer can be parsed and written like any other.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..errors import ProviderError

__all__ = ["answer_text", "count_problem", "describe", "finish_reason", "repair_text",
           "REPLACEMENT"]

#: What a lone surrogate in an answer becomes.
REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def describe(value: Any) -> str:
    """A short name of a JSON value's type with the value, for messages: ``a number (5)``,
    ``an object``, ``null``.

    >>> describe(5), describe({"a": 1}), describe(None), describe(True)
    ('a number (5)', 'an object', 'null', 'a boolean (true)')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"a number ({value!r:.40})"
    if isinstance(value, str):
        return f"a string ({value!r:.40})"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def answer_text(content: Any, where: str = "message.content") -> str:
    """The answer's text from a chat completion's ``content``.

    A string is the text; ``null`` is no text (``""``); a list of content parts is the
    concatenation of its text parts (``{"type": "text", "text": ...}``; a ``refusal`` part
    gives its ``refusal`` text; parts of other types, such as images, carry no text).

    Raises:
        ProviderError: ``content`` of another type, or a part that is not an object or
            whose text is not a string (the message names the field and what it held).

    >>> answer_text([{"type": "text", "text": "A"}, {"type": "text", "text": "B"}])
    'AB'
    """
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if not isinstance(content, list):
        raise ProviderError(f"the endpoint's answer is not text: {where} is "
                            f"{describe(content)}, not a string or a list of text parts")
    parts: list[str] = []
    for i, part in enumerate(content):
        if not isinstance(part, dict):
            raise ProviderError(f"the endpoint's answer is not text: {where}[{i}] is "
                                f"{describe(part)}, not a content part")
        kind = part.get("type")
        name = {"text": "text", "output_text": "text", "refusal": "refusal"}.get(
            kind if isinstance(kind, str) else "")
        if name is None:
            continue
        text = part.get(name)
        if not isinstance(text, str):
            raise ProviderError(f"the endpoint's answer is not text: {where}[{i}].{name} is "
                                f"{describe(text)}, not a string")
        parts.append(text)
    return "".join(parts)


def finish_reason(value: Any, where: str = "finish_reason") -> str | None:
    """A finish reason: a string, or None when the endpoint gives none.

    Raises:
        ProviderError: another type (whether the answer was cut off cannot be told)."""
    if value is None or isinstance(value, str):
        return value
    raise ProviderError(f"the endpoint's {where} is {describe(value)}, not a string: whether "
                        f"the answer was cut off at the token limit cannot be told")


#: Most tokens one call can report (10**11: a thousand times the longest context windows): a
#: larger count is a broken server's, and counting it would swamp a run's totals.
MAX_TOKENS_PER_CALL = 10 ** 11


def count_problem(name: str, value: Any) -> str | None:
    """Why ``value`` is not a token count (None when it is one: an integer >= 0, or an
    integral float such as ``12.0``; missing counts are None and read as 0 elsewhere).

    >>> count_problem("prompt_tokens", -5)
    'prompt_tokens is -5, not a count >= 0'
    >>> count_problem("prompt_tokens", "5")
    "prompt_tokens is a string ('5'), not a count >= 0"
    >>> count_problem("completion_tokens", 10**30).endswith("(at most 100,000,000,000)")
    True
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{name} is {describe(value)}, not a count >= 0"
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return f"{name} is {value!r}, not a count >= 0"
    if value < 0:
        return f"{name} is {value!r}, not a count >= 0"
    if value > MAX_TOKENS_PER_CALL:
        return (f"{name} is {value!r:.40}, more than any call uses (at most "
                f"{MAX_TOKENS_PER_CALL:,})")
    return None


def repair_text(text: str) -> tuple[str, int]:
    """``text`` with every lone surrogate replaced by U+FFFD, and how many were replaced.

    A JSON string may hold ``"\\ud800"`` (half of a UTF-16 pair); Python decodes it into a
    string UTF-8 cannot encode, so neither calls.jsonl nor the cache could be written.

    >>> repair_text("ok \\ud800!")
    ('ok \\ufffd!', 1)
    """
    if text.isascii():
        return text, 0
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.subn(REPLACEMENT, text)
    return text, 0
