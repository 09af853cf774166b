"""Pairwise verdicts from raw judge text: JSON, bracket tokens and "Output (a)" styles.

Tokens judges really emit: ``[[A]]``, ``[[B]]``, ``[[C]]`` (MT-Bench's tie), ``[[A>B]]``,
``[[A>>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]`` (Arena-Hard), "Output (a)" / "Output (b)"
(JudgeBench's vanilla prompt), and JSON such as ``{"verdict": "A"}``. Text inside
``<think>`` blocks is ignored.

Two rules when several tokens appear:

- ``"last"`` (jurybox's default): the last verdict in the text wins, whatever its style;
  judges often revise. A restatement of the answer format (three or more different tokens
  close together) is not a verdict.
- ``"unanimous"`` (Arena-Hard's and so JudgeBench's recorded decisions): every ``[[...]]``
  token made of ``A B < > =`` must be the same string, otherwise there is no verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..errors import ParseError
from .extract import json_spans, looks_like_refusal, repeated_keys_message, strip_thinking

__all__ = ["ShownVerdict", "VerdictJudgment", "parse_verdict", "token_verdict"]

#: A verdict in shown-label terms: first shown better (A), second (B), or a tie.
ShownVerdict = Literal["A", "B", "tie"]

_BRACKET = re.compile(r"\[\[\s*([AB<>=]+|C|tie)\s*\]\]", re.I)
_ARENA = re.compile(r"\[\[([AB<>=]+)\]\]")
# "Output (a)" counts only as a line of its own, after at most a short "Answer:" lead-in
# (JudgeBench's vanilla prompt answers that way), not where prose mentions an output.
_OUTPUT = re.compile(r"^[ \t>*_]*(?:[\w ]{1,30}:[ \t*_]*)?Output\s*\(([ab])\)[ \t*_.]*$",
                     re.M | re.I)
_JSON_VERDICT = re.compile(
    r'"(?:verdict|winner|decision|preference|better)"\s*:\s*"([^"\n]{1,40})"', re.I)
_TOKENS: dict[str, ShownVerdict] = {
    "A": "A", "A>B": "A", "A>>B": "A", "B<A": "A", "B<<A": "A",
    "B": "B", "B>A": "B", "B>>A": "B", "A<B": "B", "A<<B": "B",
    "A=B": "tie", "B=A": "tie", "C": "tie", "TIE": "tie",
}
_JSON_VALUES: dict[str, ShownVerdict] = {
    **_TOKENS, "RESPONSE A": "A", "RESPONSE B": "B", "OUTPUT (A)": "A", "OUTPUT (B)": "B",
    "EQUAL": "tie", "DRAW": "tie", "NONE": "tie", "BOTH": "tie",
}
#: Tokens closer than this (characters) belong to one cluster; a cluster naming three or more
#: different verdicts is the judge restating the answer format, not giving a verdict.
_CLUSTER_GAP = 25


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


def _found(visible: str) -> list[tuple[int, int, str, ShownVerdict]]:
    """Every verdict in the text as (start, end, token, verdict), in text order: bracket
    tokens, "Output (x)" lines and JSON verdict fields alike."""
    found = [(m.start(), m.end(), m.group(0), token_verdict(m.group(1)))
             for m in _BRACKET.finditer(visible)]
    found += [(m.start(), m.end(), f"Output ({m.group(1)})", token_verdict(m.group(1)))
              for m in _OUTPUT.finditer(visible)]
    found += [(m.start(), m.end(), m.group(0), _JSON_VALUES.get(m.group(1).strip().upper()))
              for m in _JSON_VERDICT.finditer(visible)]
    return sorted(f for f in found if f[3] is not None)  # type: ignore[misc]


def _drop_format_restatements(found: list) -> list:
    """Remove clusters of tokens that name three or more different verdicts close together
    (e.g. a judge repeating "[[A>>B]], [[A>B]], [[A=B]], [[B>A]], [[B>>A]]")."""
    kept: list = []
    cluster: list = []
    for entry in found + [None]:
        if cluster and (entry is None or entry[0] - cluster[-1][1] > _CLUSTER_GAP):
            if len({e[2] for e in cluster}) < 3:
                kept.extend(cluster)
            cluster = []
        if entry is not None:
            cluster.append(entry)
    return kept


def parse_verdict(text: str, *, rule: Literal["last", "unanimous"] = "last") -> VerdictJudgment:
    """Read a pairwise verdict from raw judge text.

    Args:
        text: raw output.
        rule: ``"last"``: the last verdict in the text wins, whether a token, an "Output (x)"
            line or a JSON verdict field; tokens in a restatement of the answer format (three
            or more different verdicts close together) are ignored; a verdict inside a JSON
            object that repeats a key (``{"verdict": "A", "verdict": "B"}``) is a failure
            naming the key, not the last value. ``"unanimous"``:
            Arena-Hard's rule, exactly: all ``[[...]]`` tokens made of ``A B < > =`` identical,
            else no verdict; nothing else is read.

    Returns:
        The verdict; a tie verdict is a verdict, not a failure.

    Raises:
        ParseError: no verdict (``kind="refusal"`` when the text reads as a refusal), the last
            verdict inside a JSON object with a repeated key, or, under ``"unanimous"``, tokens
            that disagree. ``raw`` holds the text.
    """
    visible = strip_thinking(text)
    if rule == "unanimous":
        raw_tokens = [t for t in _ARENA.findall(visible) if t]
        if len(set(raw_tokens)) > 1:
            raise ParseError(f"verdict tokens disagree: {sorted(set(raw_tokens))}", raw=text)
        verdict = token_verdict(raw_tokens[0]) if raw_tokens else None
        if verdict is not None:
            return VerdictJudgment(verdict, f"[[{raw_tokens[0]}]]", len(raw_tokens))
    else:
        found = _drop_format_restatements(_found(visible))
        if found:
            start, _, token, verdict = found[-1]
            for span in json_spans(visible):  # a verdict read from a JSON object
                if span.start <= start < span.end and span.repeated:
                    raise ParseError(repeated_keys_message(span.repeated), raw=text)
            return VerdictJudgment(verdict, token, len(found))
    if looks_like_refusal(text):
        raise ParseError("the judge refused", raw=text, kind="refusal")
    raise ParseError('no verdict found: end with "[[A>B]]", "[[B>A]]" or "[[A=B]]"', raw=text)
