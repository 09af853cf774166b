"""What a personalize run judges: conditions (judge kind x shots) and units (rater x item)."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence

from ..datasets import RatingsTable
from ..errors import ConfigError
from ..protocols import JUDGE_KINDS, Condition, Unit

__all__ = ["conditions", "select_units", "check_names"]


def check_names(values: Sequence[object], option: str, what: str) -> None:
    """Refuse an empty list or a repeated entry of a list option (``option`` names the flag
    in the message, ``what`` one entry: "rater", "dimension", "shot count").

    Raises:
        ConfigError: ``values`` is empty, or holds an entry twice.
    """
    if not values:
        raise ConfigError(f"{option} names no {what}; leave the option out for the default")
    twice = sorted({str(v) for v in values if list(values).count(v) > 1})
    if twice:
        raise ConfigError(f"{option} names {', '.join(map(repr, twice))} more than once")


def conditions(judges: Sequence[str], shots: Sequence[int]) -> list[Condition]:
    """zero-shot at 0 shots; aggregate and personalized at every k > 0 (at k = 0 they are the
    zero-shot judge, judged once).

    Raises:
        ConfigError: no judge kind, an unknown or repeated judge kind, no shot count, a
            repeated or negative shot count, or nothing to judge.
    """
    if not judges:
        raise ConfigError(f"--judges/--configs names no judge kind; choose from "
                          f"{', '.join(JUDGE_KINDS)}")
    twice = sorted({c for c in judges if list(judges).count(c) > 1})
    if twice:
        raise ConfigError(f"--judges/--configs names {', '.join(map(repr, twice))} more than "
                          f"once")
    check_names(shots, "--shots", "shot count")
    unknown = [c for c in judges if c not in JUDGE_KINDS]
    if unknown or any(k < 0 for k in shots):
        raise ConfigError(f"--judges/--configs takes {', '.join(JUDGE_KINDS)} and --shots "
                          f"integers >= 0; got {', '.join(judges)} and "
                          f"{', '.join(map(str, shots))}")
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

    Raters: the ids given (a non-empty tuple without repeats), or a seeded sample of that
    many raters (>= 1; all when it is the number of raters or more), or all (None). Items per
    rater
    favour items that more of the chosen raters rated (so rater pairs share items, which the
    reasoning-similarity analysis needs), ties broken by a seeded shuffle. Only items with a
    text in ``items`` are used.

    Raises:
        ConfigError: no rater id, a repeated or unknown rater id, a count below 1, or no unit
            left.
    """
    known = sorted({r.rater_id for r in table.ratings})
    if isinstance(raters, int) and (raters < 1 or isinstance(raters, bool)):
        raise ConfigError(f"--raters must be a number of raters to sample (>= 1) or a comma "
                          f"list of rater ids, got {raters!r}")
    if raters is not None and not isinstance(raters, int):
        check_names(raters, "--raters", "rater")
    if isinstance(raters, int):
        chosen = sorted(_rng("raters", seed).sample(known, min(raters, len(known))))
    elif raters is not None:
        missing = [r for r in raters if r not in known]
        if missing:
            raise ConfigError(f"unknown rater(s) {', '.join(map(repr, missing))}; the ratings "
                              f"have {len(known)} raters, e.g. {', '.join(known[:5])}")
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
