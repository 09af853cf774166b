"""The simulated judge's token log-probabilities (OpenAI's chat ``logprobs`` object), asked for
with ``"logprobs": true`` and ``"top_logprobs": N``.

The answer is cut into tokens (a word or one other character, each with the white space
before it; their concatenation is the answer). Every token is certain (log-probability 0)
but a pairwise verdict's letter, the last ``A`` or ``B`` that opens a verdict token
(``[[A>B]]``) or fills a JSON verdict field (``"verdict": "B"``): it has the judge's own
probability, ``p_first`` for ``A`` (the first shown better) and ``1 - p_first`` for ``B``, and
both letters among its alternatives. Anything else (a listwise answer, a tie, a refusal) has
no uncertain token.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["answer_logprobs"]

_TOKEN = re.compile(r"\s*\w+|\s*[^\w\s]|\s+")
_VERDICT_LETTER = re.compile(r'(?:\[\[|"verdict": ")([AB])')


def _entry(token: str, logprob: float, top: list[tuple[str, float]]) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8")),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode("utf-8"))}
                             for t, lp in top]}


def answer_logprobs(text: str, p_first: float | None, top_logprobs: int) -> dict[str, Any]:
    """``choices[0].logprobs`` for ``text`` (module docstring); ``top_logprobs``
    alternatives at most per token (0: none listed).

    >>> lp = answer_logprobs("Verdict [[B>A]]", 0.25, 2)["content"]
    >>> "".join(t["token"] for t in lp), lp[3]["token"], round(math.exp(lp[3]["logprob"]), 2)
    ('Verdict [[B>A]]', 'B', 0.75)
    >>> [(t["token"], round(math.exp(t["logprob"]), 2)) for t in lp[3]["top_logprobs"]]
    [('B', 0.75), ('A', 0.25)]
    """
    letters = list(_VERDICT_LETTER.finditer(text)) if p_first is not None else []
    at = letters[-1].start(1) if letters else -1
    content = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if p_first is not None and match.start() <= at < match.end():  # the verdict's letter
            letter = token.strip()
            p = {"A": p_first, "B": 1.0 - p_first}
            ranked = sorted(p, key=lambda k: -p[k])
            lps = {k: math.log(max(p[k], 1e-300)) for k in p}
            top = [(token.replace(letter, k), lps[k]) for k in ranked][:top_logprobs]
            content.append(_entry(token, lps[letter], top))
        else:
            content.append(_entry(token, 0.0, [(token, 0.0)][:top_logprobs]))
    return {"content": content, "refusal": None}
