"""A pairwise verdict's token probability: how sure the judge was, read from the answer's
token log-probabilities (a confidence signal of selective judging,
:mod:`jurybox.judging.selective`).

The verdict's letter decides it: in ``[[A>B]]``, ``[[B]]``, ``{"verdict": "A"}`` or
``Output (a)``, the first ``A`` or ``B`` (either case) of the verdict's value (after ``[[``,
a JSON field's colon, or ``(``); a verdict whose letter is not its verdict (``[[B<A]]``) has
no token probability. At the answer
token holding that character, the endpoint's alternatives (``top_logprobs``) are sorted into
those that put an ``A`` there and those that put a ``B`` there, and::

    P(first shown better) = sum of exp(logprob) over A's / (that + the same over B's)

Alternatives with any other character there are left out (the probability is conditional on
the judge naming one of the two); the token itself counts when the endpoint did not list it
among the alternatives. The alternatives are what the endpoint reports: llama-cpp-python
reports the model's probabilities before its sampler's repeat penalty, so a verdict may be
the less likely letter (measured on SmolLM2-135M: ``"verdict": "B"`` emitted at P(B) = 0.08
after a rationale reading ``"A"``); its token probability then says the judge was unsure.

This is the verbalized-label probability of G-Eval's scoring (Liu et al. 2023, section 2,
"using probabilities of output tokens") and of Trust or Escalate's predictive-probability
baseline (Jung et al., ICLR 2025, section 3.3), for two labels.

A tie has no such letter (``[[A=B]]`` shares its ``A`` with ``[[A>B]]``): it has no token
probability. Neither has a verdict whose text cannot be found in the answer's tokens (their
concatenation differs from the answer, as after a repair of lone surrogates).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..providers import TokenLogprob

__all__ = ["verdict_probability", "verdict_token_probability"]

_LETTER = re.compile(r"[AaBb]")


def _value_start(token: str) -> int:
    """Where a verdict's value starts in its text: after ``[[``, after a JSON field's colon
    (``"better": "A"``: not the ``b`` of ``better``), or after ``(`` (``Output (a)``)."""
    return max((token.find(m) + len(m) for m in ("[[", ":", "(") if m in token), default=0)


def _side(text: str, at: int) -> str | None:
    """``"A"`` or ``"B"`` when ``text`` holds that letter (either case) at ``at``."""
    if 0 <= at < len(text) and text[at] in "AaBb":
        return text[at].upper()
    return None


def verdict_probability(text: str, token: str, verdict: str,
                        logprobs: Sequence[TokenLogprob] | None) -> float | None:
    """The probability, in [0, 1], that the first shown response is better, at the token
    deciding ``verdict`` (module docstring).

    Args:
        text: the answer's text.
        token: the verdict's text as the parser read it (``"[[A>B]]"``, ``'"verdict": "B"'``);
            the last place it stands in ``text`` is taken (the parser takes the last verdict).
        verdict: the parsed verdict in shown terms, ``"A"``, ``"B"`` or ``"tie"``.
        logprobs: the answer's tokens, or None.

    Returns:
        P(A) in shown terms, or None: no log-probabilities, a tie, the verdict's letter not
        found, or no alternative naming A or B at its token.

    >>> lp = [TokenLogprob(token="Verdict: [[", logprob=0.0),
    ...       TokenLogprob(token="B", logprob=-0.2, top=(("B", -0.2), ("A", -1.8))),
    ...       TokenLogprob(token=">A]]", logprob=0.0)]
    >>> round(verdict_probability("Verdict: [[B>A]]", "[[B>A]]", "B", lp), 4)
    0.168
    """
    if not logprobs or verdict not in ("A", "B"):
        return None
    start = text.rfind(token)
    letter = _LETTER.search(token, _value_start(token)) if start >= 0 else None
    if letter is None or letter.group(0).upper() != verdict or "".join(
            t.token for t in logprobs) != text:
        return None  # e.g. [[B<A]]: its first letter is not its verdict
    at, offset = start + letter.start(), 0
    for tok in logprobs:
        if offset + len(tok.token) > at:
            break
        offset += len(tok.token)
    else:
        return None
    within = at - offset
    alternatives = dict(tok.top)
    alternatives.setdefault(tok.token, tok.logprob)
    mass = {"A": 0.0, "B": 0.0}
    for alt, lp in alternatives.items():
        side = _side(alt, within)
        if side is not None:
            mass[side] += math.exp(lp)
    total = mass["A"] + mass["B"]
    return mass["A"] / total if total > 0 else None


def verdict_token_probability(verdict: str | None, calls: Sequence[str | None],
                              probabilities: Sequence[float | None]) -> float | None:
    """A pairwise verdict's token probability: over the calls with a verdict, the mean of the
    probability each gave it (``p`` for ``"A"``, ``1 - p`` for ``"B"``, where ``p`` is the
    call's token probability that original response A is better; a call that said tie gives
    0.5).

    Returns:
        In [0, 1]; None for a tie or failed verdict, no probabilities, or a call with an A or
        B verdict but no probability (it cannot be told how sure that call was).

    >>> verdict_token_probability("A", ["A", "B", "tie"], [0.9, 0.4, None])
    0.6
    >>> verdict_token_probability("B", ["B"], [None]) is None
    True
    """
    if verdict not in ("A", "B") or len(probabilities) != len(calls):
        return None
    given = []
    for call, p in zip(calls, probabilities):
        if call == "tie":
            given.append(0.5)
        elif call is not None:
            if p is None:
                return None
            given.append(p if verdict == "A" else 1.0 - p)
    return sum(given) / len(given) if given else None
