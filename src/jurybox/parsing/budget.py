"""The answer budget: the longest judge answer read (:data:`MAX_REPLY_CHARS` characters by
default; ``--max-answer-chars``, ``RunOptions.max_answer_chars``, :func:`answer_budget`). A
longer answer is a parse failure naming its length and the budget, never scanned."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .._context import scoped
from ..limits import DEFAULT_MAX_ANSWER_CHARS

__all__ = ["MAX_REPLY_CHARS", "answer_budget", "check_length"]

#: The default answer budget: the longest reply read, in characters (about 250,000 tokens,
#: far above any judge's ``max_tokens``); a longer reply is a parse failure saying so
#: (:func:`check_length`). Set for a run with ``--max-answer-chars`` (up to
#: :data:`jurybox.limits.MAX_ANSWER_CHARS`), in Python with :func:`answer_budget`.
MAX_REPLY_CHARS = DEFAULT_MAX_ANSWER_CHARS
#: The answer budget in effect (None: :data:`MAX_REPLY_CHARS`): see :func:`answer_budget`.
_BUDGET: ContextVar[int | None] = ContextVar("jurybox_answer_budget", default=None)


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
    with scoped(_BUDGET, max_chars):
        yield


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
