"""What a personalize run judges: conditions (judge kind x shots) and units (rater x item)."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence

from ..datasets import RatingsTable
from ..errors import ConfigError
from ..protocols import JUDGE_KINDS, Condition, Unit

__all__ = ["conditions", "select_units"]


def conditions(judges: Sequence[str], shots: Sequence[int]) -> list[Condition]:
    """zero-shot at 0 shots; aggregate and personalized at every k > 0 (at k = 0 they are the
    zero-shot judge, judged once).

    Raises:
        ConfigError: no judge kind, an unknown or repeated judge kind, a negative shot count,
            or nothing to judge.
    """
    if not judges:
        raise ConfigError(f"--judges/--configs names no judge kind; choose from {JUDGE_KINDS}")
    twice = sorted({c for c in judges if list(judges).count(c) > 1})
    if twice:
        raise ConfigError(f"--judges/--configs names {', '.join(map(repr, twice))} more than "
                          f"once")
    unknown = [c for c in judges if c not in JUDGE_KINDS]
    if unknown or any(k < 0 for k in shots):
        raise ConfigError(f"--judges/--configs takes {JUDGE_KINDS} and --shots integers >= 0; "
                          f"got {list(judges)} and {list(shots)}")
    out = [Condition("zero-shot", 0)] if "zero-shot" in judges or 0 in shots else []
    out += [Condition(c, k) for k in sorted(set(shots)) if k > 0 for c in judges  # type: ignore[arg-type]
            if c != "zero-shot"]
    if not out:
        raise ConfigError("no condition to judge: add zero-shot or a shot count above 0")
    return out


def _rng(*parts: object) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(
        "\x1f".join(map(str, parts)).encode()).digest()[:8], "big"))


def select_units(table: RatingsTable, *, raters: Sequence[str] | int | None, limit: int | None,
                 items: Sequence[str], seed: int) -> list[Unit]:
    """Target raters and, per rater, up to ``limit`` of the items they rated.

    Raters: the ids given, or a seeded sample of that many raters, or all. Items per rater
    favour items that more of the chosen raters rated (so rater pairs share items, which the
    reasoning-similarity analysis needs), ties broken by a seeded shuffle. Only items with a
    text in ``items`` are used.

    Raises:
        ConfigError: an unknown rater id, or no unit left.
    """
    known = sorted({r.rater_id for r in table.ratings})
    if isinstance(raters, int):
        chosen = sorted(_rng("raters", seed).sample(known, min(raters, len(known))))
    elif raters:
        missing = [r for r in raters if r not in known]
        if missing:
            raise ConfigError(f"unknown rater(s) {missing}; the ratings have {len(known)} "
                              f"raters, e.g. {known[:5]}")
        chosen = list(raters)
    else:
        chosen = known
    texts = set(items)
    rated: dict[str, set[str]] = {r: set() for r in chosen}
    for r in table.ratings:
        if r.rater_id in rated and r.item_id in texts:
            rated[r.rater_id].add(r.item_id)
    popularity = Counter(i for its in rated.values() for i in its)
    units = []
    for rater in chosen:
        order = sorted(rated[rater])
        _rng("items", seed, rater).shuffle(order)
        order.sort(key=lambda i: -popularity[i])
        units += [Unit(rater, item) for item in order[:limit]]
    if not units:
        raise ConfigError("no (rater, item) pair to judge: do the items file's ids match the "
                          "ratings?")
    return units
