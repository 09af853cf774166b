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

from ..limits import MAX_K

__all__ = ["MAX_K", "base_order", "permutation_set"]

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
