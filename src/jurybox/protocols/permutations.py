"""Which orders a listwise item is shown in.

Decisions (DESIGN.md, "Listwise (PCF)"; arXiv 2603.20562 leaves them open):
- The base order is a shuffle seeded by (run seed, item id), never dataset order (RewardBench 2
  and TruthfulQA store the correct answer first).
- The K orders are the n cyclic shifts of the base order (each candidate visits each position
  once), then distinct seeded random orders up to K; all n! orders when K >= n!.
- Permutation 0 is the base order, so the direct judgment is PCF's first call.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Iterable

from ..limits import MAX_K

__all__ = ["MAX_K", "OrdersCappedWarning", "base_order", "capped_orders", "permutation_set"]

Order = tuple[int, ...]



def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def base_order(n: int, *, seed: int, item_id: str) -> Order:
    """A seeded shuffle of ``range(n)``: the order the direct judge sees.

    Returns:
        Tuple of candidate indices, position 0 first. Same (n, seed, item_id) -> same order.
    """
    order = list(range(n))
    _rng("base", seed, item_id).shuffle(order)
    return tuple(order)


def permutation_set(base: Order, k: int, *, seed: int, item_id: str) -> list[Order]:
    """The K shown orders for permutation-consensus judging.

    Args:
        base: the base order (permutation 0).
        k: how many orders, 1 to :data:`MAX_K`.

    Returns:
        ``min(k, n!)`` distinct orders: the first ``min(k, n)`` cyclic shifts of ``base``
        (shift j starts at ``base[j]``), then seeded random distinct orders; when k >= n!, all
        n! orders (shifts first, the rest in lexicographic order).

    Raises:
        ValueError: k < 1 or k > MAX_K.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k > MAX_K:
        raise ValueError(f"k must be at most {MAX_K:,}, got {k:,}")
    n = len(base)
    shifts = [tuple(base[j:] + base[:j]) for j in range(n)]
    orders = list(dict.fromkeys(shifts))[:k]
    if k <= len(orders):
        return orders
    total = math.factorial(n)
    seen = set(orders)
    if k >= total:
        return orders + [p for p in itertools.permutations(base) if p not in seen]
    rng = _rng("extra", seed, item_id)
    while len(orders) < k:
        candidate = list(base)
        rng.shuffle(candidate)
        order = tuple(candidate)
        if order not in seen:
            seen.add(order)
            orders.append(order)
    return orders


class OrdersCappedWarning(UserWarning):
    """``k`` asks for more shown orders than some items' candidates have: an item of n
    candidates with n! < k is judged in all its n! orders (:func:`permutation_set`), so it
    gets fewer than k calls.

    Attributes:
        k: the orders asked for.
        counts: the candidate counts of the items, sorted, each once.
    """

    def __init__(self, k: int, counts: Iterable[int]) -> None:
        self.k, self.counts = k, tuple(sorted(set(counts)))
        super().__init__(self.text(f"k={k}"))

    def text(self, name: str) -> str:
        """The warning's sentence with ``k`` named as ``name`` (``k=7``; the CLI's ``--k 7``).

        >>> OrdersCappedWarning(7, [3, 3]).text("--k 7")
        '--k 7 asks for more orders than 3 candidates have (3! = 6): judging all 6'
        >>> print(OrdersCappedWarning(7, [2, 3, 4]).text("k=7"))  # doctest: +NORMALIZE_WHITESPACE
        k=7 asks for more orders than some items have: items with 2 candidates get 2 orders,
        with 3 get 6 (n! each; the others get 7)
        """
        capped = [n for n in self.counts if _fewer(n, self.k)]
        if len(self.counts) == 1 and capped:
            n = capped[0]
            return (f"{name} asks for more orders than {n} candidates have ({n}! = "
                    f"{math.factorial(n)}): judging all {math.factorial(n)}")
        first, *rest = capped
        parts = [f"items with {first} candidates get {math.factorial(first)} orders",
                 *(f"with {n} get {math.factorial(n)}" for n in rest)]
        others = f"; the others get {self.k}" if len(capped) < len(self.counts) else ""
        return (f"{name} asks for more orders than some items have: {', '.join(parts)} "
                f"(n! each{others})")


def _fewer(n: int, k: int) -> bool:
    """n! < k, without computing the factorial of a large n (8! is above MAX_K)."""
    return n < 8 and math.factorial(n) < k


def capped_orders(k: int, counts: Iterable[int]) -> OrdersCappedWarning | None:
    """The warning for judging items of ``counts`` candidates in ``k`` orders each, or None
    when every item has k orders (n! >= k for each).

    >>> capped_orders(6, [3, 4]) is None, capped_orders(7, [3]).counts
    (True, (3,))
    """
    counts = set(counts)
    if any(_fewer(n, k) for n in counts):
        return OrdersCappedWarning(k, counts)
    return None
