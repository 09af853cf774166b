"""Pairwise verdicts from raw judge text: JSON, bracket tokens and "Output (a)" styles.

Tokens judges really emit: ``[[A]]``, ``[[B]]``, ``[[C]]`` (MT-Bench's tie), ``[[A>B]]``,
``[[A>>B]]``, ``[[A=B]]``, ``[[B>A]]``, ``[[B>>A]]`` (Arena-Hard), "Output (a)" / "Output (b)"
(JudgeBench's vanilla prompt), and JSON such as ``{"verdict": "A"}``. Text inside
``<think>`` blocks is ignored.

Verdict tokens quoted in code (a fenced block, or inline code in backticks) are not verdicts:
a judge showing the format as code has not chosen. A JSON verdict field counts in a fenced
block (that is how judges fence a JSON answer), not in inline code.

Two rules when several tokens appear:

- ``"last"`` (jurybox's default): the last verdict in the text wins, whatever its style;
  judges often revise. A restatement of the answer format (three or more different tokens
  close together) is not a verdict.
- ``"unanimous"`` (Arena-Hard's and so JudgeBench's recorded decisions): every ``[[...]]``
  token made of ``A B < > =`` must be the same string, otherwise there is no verdict.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal

from ..errors import ParseError
from .budget import check_length
from .extract import looks_like_refusal, strip_thinking
from .scan import json_span_at, repeated_keys_message

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
# code: a fenced block (``` or ~~~, closed) or inline code (`...` or ``...`` on one line)
_FENCED = re.compile(r"(```|~~~).*?\1", re.S)
_INLINE = re.compile(r"(`{1,2})[^`\n]+?\1")
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


def _code_spans(visible: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Where ``visible`` quotes code: (fenced blocks, inline code spans), each a sorted list of
    (start, end); inline code is only looked for outside fenced blocks."""
    fenced, inline = [], []
    pos = 0
    for m in _FENCED.finditer(visible):
        inline += [n.span() for n in _INLINE.finditer(visible, pos, m.start())]
        fenced.append(m.span())
        pos = m.end()
    inline += [n.span() for n in _INLINE.finditer(visible, pos)]
    return fenced, inline


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    i = bisect_right(spans, (pos, math.inf)) - 1
    return i >= 0 and pos < spans[i][1]


def _found(visible: str) -> list[tuple[int, int, str, ShownVerdict]]:
    """Every verdict in the text as (start, end, token, verdict), in text order: bracket
    tokens, "Output (x)" lines and JSON verdict fields alike; tokens and lines inside code
    (fenced or inline) and JSON fields inside inline code are left out."""
    fenced, inline = _code_spans(visible)

    def quoted(pos: int, *, json_field: bool = False) -> bool:
        return _inside(inline, pos) or (not json_field and _inside(fenced, pos))

    found = [(m.start(), m.end(), m.group(0), token_verdict(m.group(1)))
             for m in _BRACKET.finditer(visible) if not quoted(m.start())]
    found += [(m.start(), m.end(), f"Output ({m.group(1)})", token_verdict(m.group(1)))
              for m in _OUTPUT.finditer(visible) if not quoted(m.start(1))]
    found += [(m.start(), m.end(), m.group(0), _JSON_VALUES.get(m.group(1).strip().upper()))
              for m in _JSON_VERDICT.finditer(visible) if not quoted(m.start(), json_field=True)]
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


#: How tables name the parse rules: ``unanimous`` is Arena-Hard's (every verdict token must
#: agree: the rule that made JudgeBench's recorded decisions), ``last`` jurybox's own.
RULE_NAMES = {"unanimous": "arena-hard", "last": "last-token"}


def parse_verdict(text: str, *, rule: Literal["last", "unanimous"] = "last") -> VerdictJudgment:
    """Read a pairwise verdict from raw judge text.

    Args:
        text: raw output.
        rule: ``"last"``: the last verdict in the text wins, whether a token, an "Output (x)"
            line or a JSON verdict field; tokens quoted in code are not verdicts (see the
            module's docstring); tokens in a restatement of the answer format (three
            or more different verdicts close together) are ignored; a verdict inside a JSON
            object that repeats a key (``{"verdict": "A", "verdict": "B"}``) is a failure
            naming the key, not the last value. ``"unanimous"``:
            Arena-Hard's rule, exactly: all ``[[...]]`` tokens made of ``A B < > =`` identical,
            else no verdict; nothing else is read (tokens in code count, as they do for
            Arena-Hard: the rule reproduces its recorded decisions).

    Returns:
        The verdict; a tie verdict is a verdict, not a failure.

    Raises:
        ParseError: no verdict (``kind="refusal"`` when the text reads as a refusal), the last
            verdict inside a JSON object with a repeated key, under ``"unanimous"`` tokens
            that disagree, or a text over the answer budget
            (:func:`~jurybox.parsing.extract.check_length`). ``raw`` holds the text.
    """
    check_length(text)
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
            span = json_span_at(visible, start)  # a verdict read from a JSON object
            if span is not None and span.repeated:
                raise ParseError(repeated_keys_message(span.repeated), raw=text)
            return VerdictJudgment(verdict, token, len(found))
    if looks_like_refusal(visible, visible=True):
        raise ParseError("the judge refused", raw=text, kind="refusal")
    raise ParseError('no verdict found: end with "[[A>B]]", "[[B>A]]" or "[[A=B]]"', raw=text)
