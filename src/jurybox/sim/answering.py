"""The simulated judge's answers as HTTP bodies, shared by the online endpoints and the batches.

:class:`Answerer` turns one OpenAI chat-completions body, or one Anthropic messages body, into
a :class:`Reply` (HTTP status, JSON body, headers, delay). ``POST /v1/chat/completions`` and
``POST /v1/messages`` send it after the delay; a batch line gets the same reply without the
delay, so a body answered online and in a batch gets the same text (the judge's text depends
only on the body; the attempt count only decides the injected HTTP faults).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .judge import SimJudge
from .logprobs import answer_logprobs

__all__ = ["Answerer", "Reply", "PrefixCache", "SIM_MODEL", "UNKNOWN_HEADER", "body_key"]

SIM_MODEL = "judge"
#: Response header: how many of the prompt's candidates or responses the judge does not know.
UNKNOWN_HEADER = "X-Jurybox-Sim-Unknown"

log = logging.getLogger("jurybox.sim.server")  # the server's log, whose name users set


def body_key(raw: bytes) -> str:
    """The key counting attempts of one request: sha256 (hex) of its raw bytes."""
    return hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True)
class Reply:
    """One answer as HTTP: ``status`` (200 or the injected fault's), the JSON ``body``
    (a chat.completion, an Anthropic message, or the provider's error object), response
    ``headers``, and ``delay_s`` (seconds the online endpoint waits before sending it;
    batches ignore it)."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] | None = None
    delay_s: float = 0.0


class PrefixCache:
    """A prompt-prefix cache like vLLM's automatic prefix caching: the prompt (messages
    concatenated) is cut into blocks of ``block`` characters, each block keyed by the hash of
    everything up to its end; the leading blocks already seen are "cached". Reported as
    ``prompt_tokens_details.cached_tokens`` (about 4 characters a token), so runs show what a
    provider's prefix discount would see. Holds one 16-byte digest per distinct block."""

    def __init__(self, block: int = 256) -> None:
        self.block = block
        self._seen: set[bytes] = set()

    def cached_chars(self, prompt: str) -> int:
        """Characters of ``prompt`` in leading blocks seen before; records its blocks."""
        digest, cached, hit = hashlib.blake2b(digest_size=16), 0, True
        for start in range(0, len(prompt) - self.block + 1, self.block):
            digest.update(prompt[start:start + self.block].encode())
            key = digest.copy().digest()
            if hit and key in self._seen:
                cached += self.block
            else:
                hit = False
                self._seen.add(key)
        return cached


def anthropic_error_body(kind: str, message: str) -> dict[str, Any]:
    """Anthropic's error object: ``{"type": "error", "error": {"type": kind, "message"}}``."""
    return {"type": "error", "error": {"type": kind, "message": message}}


class Answerer:
    """Answers request bodies with ``judge``, counting attempts per request key (a retry of a
    refused request is its next attempt, online or in a batch).

    Args:
        judge: the behaviour.
    """

    def __init__(self, judge: SimJudge) -> None:
        self.judge = judge
        self.attempts: Counter[str] = Counter()
        self.prefixes = PrefixCache()

    def _attempt(self, key: str) -> int:
        attempt = self.attempts[key]
        self.attempts[key] += 1
        return attempt

    def _note_unknown(self) -> None:
        """Log the unknown prompts at the first one, then at 10, 100, 1000, ..."""
        judge = self.judge
        n = judge.stats.unknown_prompts
        if n == 1 or (n >= 10 and str(n).rstrip("0") == "1"):
            log.warning("asked about %d prompt(s) whose candidates or responses it does not "
                        "know (it was loaded with %d items: start serve-sim with the run's "
                        "--dataset); their judgments are noise around a middling quality", n,
                        judge.stats.known_items)

    def chat(self, body: dict[str, Any], key: str) -> Reply:
        """``POST /v1/chat/completions``: a chat.completion (choices, usage) or
        ``{"error": {"message"}}`` with the injected fault's status. ``key``: see
        :func:`body_key`."""
        answer = self.judge.answer(body, self._attempt(key))
        if answer.unknown:
            self._note_unknown()
        if answer.status != 200:
            headers = ({"Retry-After": f"{answer.retry_after_s:g}"}
                       if answer.retry_after_s is not None else None)
            return Reply(answer.status, {"error": {"message": answer.text}}, headers,
                         answer.delay_s)
        messages = body.get("messages", [])
        prompt = "".join(f"{m.get('role')}\x1f{m.get('content', '')}\x1e"
                         for m in messages if isinstance(m, dict))
        prompt_chars = sum(len(m.get("content", "")) for m in messages)
        cached = min(self.prefixes.cached_chars(prompt) // 4, prompt_chars // 4 + 1)
        choice: dict[str, Any] = {"index": 0, "finish_reason": answer.finish_reason,
                                  "message": {"role": "assistant", "content": answer.text}}
        if body.get("logprobs") is True:
            top = body.get("top_logprobs")
            choice["logprobs"] = answer_logprobs(
                answer.text, answer.p_first, top if isinstance(top, int) else 0)
        return Reply(200, {
            "id": f"sim-{key[:12]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", SIM_MODEL), "choices": [choice],
            "usage": {"prompt_tokens": prompt_chars // 4 + 1,
                      "prompt_tokens_details": {"cached_tokens": cached},
                      "completion_tokens": len(answer.text) // 4 + 1,
                      "total_tokens": (prompt_chars + len(answer.text)) // 4 + 2},
        }, {UNKNOWN_HEADER: str(answer.unknown)}, answer.delay_s)

    def messages(self, body: dict[str, Any], key: str) -> Reply:
        """Anthropic's ``POST /v1/messages``: a message, or Anthropic's error object (429
        ``rate_limit_error``, 400 ``invalid_request_error``, other faults 529
        ``overloaded_error``). A forced ``answer`` tool gets the answer as tool input."""
        tools = body.get("tools") or []
        chat: dict[str, Any] = {
                "messages": ([{"role": "system", "content": body["system"]}]
                             if body.get("system") else []) + list(body.get("messages", [])),
                "max_tokens": body.get("max_tokens"),
                "response_format": {"type": "json_schema"} if tools else None}
        answer = self.judge.answer(chat, self._attempt(key))
        if answer.unknown:
            self._note_unknown()
        if answer.status != 200:
            kind = {429: "rate_limit_error", 400: "invalid_request_error"}.get(
                answer.status, "overloaded_error")
            status = 529 if kind == "overloaded_error" else answer.status
            headers = ({"Retry-After": f"{answer.retry_after_s:g}"}
                       if answer.retry_after_s is not None else None)
            return Reply(status, anthropic_error_body(kind, answer.text), headers,
                         answer.delay_s)
        content: list[dict[str, Any]] = [{"type": "text", "text": answer.text}]
        if tools:
            try:
                content = [{"type": "tool_use", "id": f"toolu_{key[:12]}",
                            "name": tools[0]["name"], "input": json.loads(answer.text)}]
            except json.JSONDecodeError:
                pass  # a refusal or a cut-off answer comes back as text
        prompt_chars = sum(len(str(m.get("content", ""))) for m in chat["messages"])
        return Reply(200, {
            "id": f"msg_{key[:12]}", "type": "message", "role": "assistant",
            "model": body.get("model", SIM_MODEL), "content": content,
            "stop_reason": "max_tokens" if answer.finish_reason == "length" else
            "tool_use" if tools else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": prompt_chars // 4 + 1,
                      "output_tokens": len(answer.text) // 4 + 1}}, None, answer.delay_s)
