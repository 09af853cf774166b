"""Counting prompt tokens before a run: a real tokenizer where one is available, else an
estimate from characters that says it is one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..providers import ChatRequest

__all__ = ["CHARS_PER_TOKEN", "MESSAGE_OVERHEAD", "TokenCounter", "token_counter"]

#: Characters per token of the estimate (English prose with BPE tokenizers: about 4).
CHARS_PER_TOKEN = 4.0
#: Tokens a chat format adds per message (role, separators): OpenAI's documented ~3-4.
MESSAGE_OVERHEAD = 4


@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of text. ``exact``: a real tokenizer (``name`` says which);
    otherwise ``len(text) / CHARS_PER_TOKEN``, an estimate."""

    name: str
    exact: bool
    count: Callable[[str], int]

    def request(self, request: ChatRequest) -> int:
        """Prompt tokens of a chat request: its messages plus the chat format's overhead."""
        return sum(self.count(m.content) + MESSAGE_OVERHEAD for m in request.messages) + 3


def _estimate(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN + 0.5)


def token_counter(model: str) -> TokenCounter:
    """The best counter for ``model`` (``provider/model``): tiktoken's encoding for OpenAI
    models when tiktoken is installed and its encoding files are available (they are
    downloaded on first use, so an offline machine gets the estimate), else the estimate."""
    provider, _, name = model.partition("/")
    if provider == "openai":
        try:
            import tiktoken

            encoding = tiktoken.encoding_for_model(name)
            return TokenCounter(f"tiktoken {encoding.name}", True,
                                lambda text: len(encoding.encode(text, disallowed_special=())))
        except Exception:  # noqa: BLE001 - not installed, unknown model, no encoding files
            pass
    return TokenCounter(f"estimate: {CHARS_PER_TOKEN:g} characters a token", False, _estimate)
