"""Pairwise verdicts from raw judge text: JSON, bracket tokens and "Output (a)" styles.

Tokens judges really emit: ``[[A]]``, ``[[B]]``, ``[[C]]`` (MT-Bench's tie), ``[[A>B]]``,
``[[A>>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]`` (Arena-Hard), "Output (a)" / "Output (b)"
(JudgeBench's vanilla prompt), and JSON such as ``{"verdict": "A"}``. Text inside
``<think>`` blocks is ignored.

Two rules when several tokens appear:

- ``"last"`` (jurybox's default): the last verdict token wins; judges often restate or revise.
- ``"unanimous"`` (Arena-Hard's and so JudgeBench's recorded decisions): every ``[[...]]``
  token made of ``A B < > =`` must be the same string, otherwise there is no verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..errors import ParseError
from .extract import json_objects, looks_like_refusal, strip_thinking

__all__ = ["ShownVerdict", "VerdictJudgment", "parse_verdict", "token_verdict"]

#: A verdict in shown-label terms: first shown better (A), second (B), or a tie.
ShownVerdict = Literal["A", "B", "tie"]

_BRACKET = re.compile(r"\[\[\s*([AB<>=]+|C|tie)\s*\]\]", re.I)
_ARENA = re.compile(r"\[\[([AB<>=]+)\]\]")
_OUTPUT = re.compile(r"\bOutput\s*\(([ab])\)", re.I)
_TOKENS: dict[str, ShownVerdict] = {
    "A": "A", "A>B": "A", "A>>B": "A", "B<A": "A", "B<<A": "A",
    "B": "B", "B>A": "B", "B>>A": "B", "A<B": "B", "A<<B": "B",
    "A=B": "tie", "B=A": "tie", "C": "tie", "TIE": "tie",
}
_JSON_KEYS = ("verdict", "winner", "decision", "preference", "better")
_JSON_VALUES: dict[str, ShownVerdict] = {
    **_TOKENS, "RESPONSE A": "A", "RESPONSE B": "B", "OUTPUT (A)": "A", "OUTPUT (B)": "B",
    "EQUAL": "tie", "DRAW": "tie", "NONE": "tie", "BOTH": "tie",
}


@dataclass(frozen=True)
class VerdictJudgment:
    """A parsed pairwise verdict.

    Attributes:
        verdict: ``"A"`` (first shown better), ``"B"`` or ``"tie"``.
        token: the text it was read from (e.g. ``"[[A>>B]]"``).
        n_tokens: verdict tokens found in the visible text.
    """

    verdict: ShownVerdict
    token: str
    n_tokens: int


def token_verdict(token: str) -> ShownVerdict | None:
    """Map one token body (``"A>>B"``, ``"b"``, ``"tie"``...) to a verdict, or None."""
    return _TOKENS.get(token.strip().upper())


def _json_verdict(text: str) -> VerdictJudgment | None:
    for obj in json_objects(text):
        for key in _JSON_KEYS:
            value = obj.get(key)
            if isinstance(value, str) and (v := _JSON_VALUES.get(value.strip().upper())):
                return VerdictJudgment(v, f"{key}: {value}", 1)
    return None


def parse_verdict(text: str, *, rule: Literal["last", "unanimous"] = "last") -> VerdictJudgment:
    """Read a pairwise verdict from raw judge text.

    Args:
        text: raw output.
        rule: ``"last"`` (last token wins) or ``"unanimous"`` (Arena-Hard: all ``[[...]]``
            tokens identical, else no verdict).

    Returns:
        The verdict; a tie verdict is a verdict, not a failure.

    Raises:
        ParseError: no verdict (``kind="refusal"`` when the text reads as a refusal), or, under
            ``"unanimous"``, tokens that disagree. ``raw`` holds the text.
    """
    visible = strip_thinking(text)
    if rule == "unanimous":
        raw_tokens = [t for t in _ARENA.findall(visible) if t]
        if len(set(raw_tokens)) > 1:
            raise ParseError(f"verdict tokens disagree: {sorted(set(raw_tokens))}", raw=text)
        if raw_tokens:
            verdict = token_verdict(raw_tokens[0])
            if verdict is None:
                raise ParseError(f"unknown verdict token [[{raw_tokens[0]}]]", raw=text)
            return VerdictJudgment(verdict, f"[[{raw_tokens[0]}]]", len(raw_tokens))
    found = [(m.start(), m.group(0), token_verdict(m.group(1))) for m in _BRACKET.finditer(visible)]
    found += [(m.start(), m.group(0), token_verdict(m.group(1))) for m in _OUTPUT.finditer(visible)]
    found = sorted(f for f in found if f[2] is not None)
    if found and rule == "last":
        _, token, verdict = found[-1]
        return VerdictJudgment(verdict, token, len(found))  # type: ignore[arg-type]
    if (from_json := _json_verdict(visible)) is not None:
        return from_json
    if looks_like_refusal(text):
        raise ParseError("the judge refused", raw=text, kind="refusal")
    raise ParseError('no verdict found: end with "[[A>B]]", "[[B>A]]" or "[[A=B]]"', raw=text)
