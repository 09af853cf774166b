"""Token log-probabilities in a chat completion, read into :class:`~.base.TokenLogprob` values.

Two shapes are read, in ``choices[0].logprobs``:

- OpenAI's chat shape (OpenAI, vLLM, SGLang, llama.cpp's server, recent llama-cpp-python):
  ``{"content": [{"token": "A", "logprob": -0.1, "top_logprobs": [{"token": "A",
  "logprob": -0.1}, {"token": "B", "logprob": -2.4}]}, ...]}``;
- the completions shape older llama-cpp-python servers return for chat too:
  ``{"tokens": [...], "token_logprobs": [...], "top_logprobs": [{"A": -0.1, "B": -2.4},
  ...]}``.

Log-probabilities are an extra: an answer whose log-probabilities are missing or malformed is
still an answer (its verdict is read from its text as always); it has no token probability,
so a selective rule on that signal never accepts it. Nothing here raises. Lone surrogates in
a token become U+FFFD (as in the answer's text, :func:`~.read.repair_text`), so the tokens can
always be stored.
"""

from __future__ import annotations

import math
from typing import Any

from .base import TokenLogprob
from .read import repair_text

__all__ = ["chat_logprobs"]


def _logprob(value: Any) -> float | None:
    """A log-probability: a finite number <= 0 (a tiny positive rounding error is 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    if not math.isfinite(value) or value > 1e-6:
        return None
    return min(value, 0.0)


def _alternatives(entries: Any) -> tuple[tuple[str, float], ...] | None:
    """``top_logprobs`` of one token: a list of ``{"token", "logprob"}`` objects or a
    ``{token: logprob}`` object; None when malformed."""
    if isinstance(entries, dict):
        entries = [{"token": k, "logprob": v} for k, v in entries.items()]
    if entries is None:
        return ()
    if not isinstance(entries, list):
        return None
    top = []
    for entry in entries:
        lp = _logprob(entry.get("logprob")) if isinstance(entry, dict) else None
        if lp is None or not isinstance(entry.get("token"), str):
            return None
        top.append((repair_text(entry["token"])[0], lp))
    return tuple(sorted(top, key=lambda t: -t[1]))


def _chat_shape(content: list[Any]) -> tuple[TokenLogprob, ...] | None:
    tokens = []
    for entry in content:
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None
        lp, top = _logprob(entry.get("logprob")), _alternatives(entry.get("top_logprobs"))
        if lp is None or top is None:
            return None
        tokens.append(TokenLogprob(token=repair_text(entry["token"])[0], logprob=lp, top=top))
    return tuple(tokens)


def _completion_shape(data: dict[str, Any]) -> tuple[TokenLogprob, ...] | None:
    names, lps = data.get("tokens"), data.get("token_logprobs")
    tops = data.get("top_logprobs") or [None] * (len(names) if isinstance(names, list) else 0)
    if not (isinstance(names, list) and isinstance(lps, list) and isinstance(tops, list)
            and len(names) == len(lps) == len(tops)):
        return None
    tokens = []
    for name, value, alts in zip(names, lps, tops):
        lp, top = _logprob(value), _alternatives(alts)
        if not isinstance(name, str) or lp is None or top is None:
            return None
        tokens.append(TokenLogprob(token=repair_text(name)[0], logprob=lp, top=top))
    return tuple(tokens)


def chat_logprobs(choice: Any, text: str | None = None) -> tuple[TokenLogprob, ...] | None:
    """The answer tokens' log-probabilities in a chat completion's ``choices[0]``, or None
    when it has none, they are malformed (module docstring), or ``text`` is given and their
    tokens do not make it up (they cannot be read against the answer, and are not kept).

    >>> [(t.token, t.logprob, t.top) for t in chat_logprobs({"logprobs": {"content": [
    ...     {"token": "A", "logprob": -0.25, "top_logprobs": [
    ...         {"token": "B", "logprob": -1.5}, {"token": "A", "logprob": -0.25}]}]}})]
    [('A', -0.25, (('A', -0.25), ('B', -1.5)))]
    >>> chat_logprobs({"logprobs": None}) is None, chat_logprobs({}) is None
    (True, True)
    """
    data = choice.get("logprobs") if isinstance(choice, dict) else None
    if not isinstance(data, dict):
        return None
    tokens = (_chat_shape(data["content"]) if isinstance(data.get("content"), list) else
              _completion_shape(data) if "tokens" in data else None)
    if tokens is not None and text is not None and "".join(t.token for t in tokens) != text:
        return None
    return tokens
