"""What a run would cost, before any model call (``--dry-run``).

For every unit and protocol, the protocol's :class:`~jurybox.protocols.CallBudget` gives every
call it may ask and the fewest it can ask. Identical requests are counted once over the whole
run (the engine sends an item's identical requests once, and the cache answers repeats, e.g.
a zero-shot rubric prompt shared by every rater). Input tokens are counted on the rendered
messages; output tokens at most are ``max_tokens`` per call. Re-asks after unusable output (at
most one per call) are not included.

Shared prefix: for each request after the first of its unit, the characters it shares with the
unit's earlier requests from the start (as a share of the prompt, in tokens). Providers that
discount a repeated prompt prefix bill at most that share at the cached rate; each provider has
its own minimum length and block size, so this is an upper bound on what prefix caching can
save, not a promise.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from ..providers import ChatRequest
from .prices import Price
from .tokens import TokenCounter

__all__ = ["RunPlan", "plan_run"]


@dataclass(frozen=True)
class RunPlan:
    """A run's cost before it starts.

    Attributes:
        units: units planned.
        calls_max, calls_min: distinct calls at most, and the fewest (adaptive and staged
            protocols can stop early; both equal otherwise).
        input_tokens_max, input_tokens_min: prompt tokens of those calls (the minimum counts
            each unit's cheapest calls, the first ``least`` planned).
        output_tokens_max: ``max_tokens`` summed over ``calls_max``.
        shared_prefix_tokens: prompt tokens a provider's prefix cache could serve (module
            docstring).
        tokenizer: how tokens were counted; ``exact_tokens`` False for the estimate.
        price: the prices used, or None (no USD figures).
        rounds_max: batch rounds a unit needs at most (:func:`batch_rounds`): a batch run
            waits for each round's batches before it sends the next.
    """

    units: int
    calls_max: int
    calls_min: int
    input_tokens_max: int
    input_tokens_min: int
    output_tokens_max: int
    shared_prefix_tokens: int
    tokenizer: str
    exact_tokens: bool
    price: Price | None
    rounds_max: int = 1

    @property
    def shared_prefix_share(self) -> float:
        """shared_prefix_tokens / input_tokens_max (0 when there is no input)."""
        return self.shared_prefix_tokens / self.input_tokens_max if self.input_tokens_max else 0.0

    def usd_range(self) -> tuple[float, float] | None:
        """(least, most) USD: the fewest calls with no output, and every call asked with its
        full output budget; None without prices."""
        if self.price is None:
            return None
        return (self.price.usd(self.input_tokens_min, 0),
                self.price.usd(self.input_tokens_max, self.output_tokens_max))

    def batch_usd_range(self) -> tuple[float, float] | None:
        """:meth:`usd_range` had every call gone through the provider's batch API (the
        batch rate, ``price.batch_share`` of it); None without prices or without a batch
        rate."""
        if self.price is None or self.price.batch_share is None:
            return None
        return (self.price.usd(self.input_tokens_min, 0, batch=True),
                self.price.usd(self.input_tokens_max, self.output_tokens_max, batch=True))


def _digest(request: ChatRequest) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for m in request.messages:
        h.update(m.role.encode() + b"\x1f" + m.content.encode("utf-8", "surrogatepass") + b"\x1e")
    h.update(repr((request.sampling(), request.seed, request.sample_index)).encode())
    return h.digest()


def _text(request: ChatRequest) -> str:
    return "".join(f"{m.role}\x1f{m.content}\x1e" for m in request.messages)


def _longest_common_prefix(text: str, ordered: list[str]) -> int:
    """The longest prefix ``text`` shares with any string of ``ordered`` (sorted, not empty):
    that string is a neighbour of ``text`` in sorted order, so two comparisons, not one per
    string (a unit of K orders: O(K log K), not O(K**2))."""
    i = bisect.bisect_left(ordered, text)
    return max(_common_prefix_length(text, ordered[j])
               for j in (i - 1, i) if 0 <= j < len(ordered))


def _common_prefix_length(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share: a binary search over slice
    comparisons, which run in C (``os.path.commonprefix`` steps through the characters in
    Python: 1 s of a SQuALITY dry run's 6 were spent there).

    >>> _common_prefix_length("abcx", "abcyz"), _common_prefix_length("", "a")
    (3, 0)
    """
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def plan_run(units: Iterable[Any], protocols: list[Any], *, counter: TokenCounter,
             price: Price | None = None) -> RunPlan:
    """Plan every unit with every protocol, without calling anything.

    Raises:
        ConfigError: a protocol that cannot say its calls in advance (no ``budget``).
    """
    for p in protocols:
        if not hasattr(p, "budget"):
            raise ConfigError(f"protocol {p.name!r} cannot plan its calls; --dry-run needs "
                              f"every protocol to")
    seen: set[bytes] = set()
    n_units = calls_max = calls_min = tokens_max = tokens_min = out_max = shared = 0
    rounds = 1
    for unit in units:
        n_units += 1
        earlier: list[str] = []  # this unit's texts so far, sorted
        for protocol in protocols:
            budget = protocol.budget(unit)
            rounds = max(rounds, batch_rounds(protocol, budget))
            for j, call in enumerate(budget.calls):
                digest = _digest(call.request)
                if digest in seen:
                    continue
                seen.add(digest)
                tokens = counter.request(call.request)
                calls_max += 1
                tokens_max += tokens
                out_max += call.request.max_tokens
                if j < budget.least:
                    calls_min += 1
                    tokens_min += tokens
                text = _text(call.request)
                if earlier:
                    common = _longest_common_prefix(text, earlier)
                    shared += round(tokens * common / max(len(text), 1))
                bisect.insort(earlier, text)
    return RunPlan(n_units, calls_max, calls_min, tokens_max, tokens_min, out_max, shared,
                   counter.name, counter.exact, price, rounds)


def batch_rounds(protocol: Any, budget: Any) -> int:
    """Batch rounds one unit of ``protocol`` needs at most, re-asks aside (each can add one):
    a rubric judge asks its dimensions one after another (one round each); adaptive
    permutation consensus asks its first ``least`` orders at once, then one order a round;
    every other protocol asks all its calls at once (APOC's four calls included).

    >>> from types import SimpleNamespace as NS
    >>> batch_rounds(NS(dimensions=("a", "b", "c")), NS(calls=[1] * 9, least=3))
    3
    >>> batch_rounds(NS(), NS(calls=[1] * 7, least=3))
    5
    >>> batch_rounds(NS(), NS(calls=[1] * 7, least=7))
    1
    """
    dimensions = getattr(protocol, "dimensions", None)
    if dimensions:
        return len(dimensions)
    return 1 + max(0, len(budget.calls) - max(budget.least, 1))
