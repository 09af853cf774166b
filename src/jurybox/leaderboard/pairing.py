"""Which pairs of systems a live ranking judges, as pairwise items.

Three designs (``pairing``):

- ``baseline`` (default; AlpacaEval's): every system against the baseline, on every prompt
  both answered;
- ``all``: every pair of systems on every prompt both answered (``S (S - 1) / 2`` pairs a
  prompt);
- ``sample``: ``budget`` pairs drawn uniformly without replacement from all of those (a
  seeded draw), for many systems at a bounded cost.

Which system is shown as response A is drawn per pair (seeded), so that a one-order protocol
is not biased for or against a system by its position; both-orders protocols see both orders
anyway. The item id names the prompt and both systems (``prompt|a|b``; a hash when that is
longer than an id may be).

Two systems that gave the same output to a prompt tie there without a judge call (a judge
cannot prefer a text to itself; ``RankPair.identical``).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from dataclasses import dataclass
from typing import Literal

from ..datasets.items import PairwiseItem
from ..datasets.validate import MAX_NAME_CHARS
from ..errors import ConfigError, did_you_mean
from .outputs import SystemOutputs

__all__ = ["PAIRINGS", "Pairing", "RankPair", "plan_pairs"]

Pairing = Literal["baseline", "all", "sample"]
PAIRINGS: tuple[str, ...] = ("baseline", "all", "sample")


@dataclass(frozen=True)
class RankPair:
    """One pair: ``a`` (shown as response A) against ``b`` on ``prompt``; ``identical``: the
    two outputs are the same text (a tie, not judged)."""

    item: PairwiseItem
    prompt: str
    a: str
    b: str
    identical: bool = False


def _item_id(prompt: str, a: str, b: str) -> str:
    plain = f"{prompt}|{a}|{b}"
    if len(plain) <= MAX_NAME_CHARS:
        return plain
    return "pair-" + hashlib.sha256(plain.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def plan_pairs(outputs: SystemOutputs, *, pairing: Pairing = "baseline",
               baseline: str | None = None, budget: int | None = None,
               seed: int = 0) -> list[RankPair]:
    """The pairs to judge, in prompt order.

    Args:
        outputs: the systems' outputs.
        pairing: ``baseline``, ``all`` or ``sample`` (module docstring).
        baseline: the baseline system (required for ``baseline``).
        budget: for ``sample``: how many pairs (>= 1; all of them when it is larger).
        seed: the A/B draw and the sample.

    Raises:
        ConfigError: an unknown pairing or baseline, a missing baseline or budget, or no
            prompt on which two paired systems both have an output.
    """
    if pairing not in PAIRINGS:
        raise ConfigError(f"unknown pairing {pairing!r}{did_you_mean(pairing, PAIRINGS) or ''}"
                          f"; choose {', '.join(PAIRINGS)}")
    if baseline is not None and baseline not in outputs.systems:
        raise ConfigError(f"--baseline {baseline!r} is not a system of {outputs.source}"
                          f"{did_you_mean(baseline, outputs.systems) or ''}; its systems: "
                          f"{', '.join(outputs.systems[:10])}")
    if pairing == "baseline" and baseline is None:
        raise ConfigError("--pairing baseline needs --baseline NAME (the system every other "
                          "is judged against); or --pairing all")
    if pairing == "sample" and (budget is None or budget < 1):
        raise ConfigError("--pairing sample needs --budget N (the number of pairs, >= 1)")
    rng = random.Random(seed)
    candidates: list[tuple[str, str, str]] = []
    for prompt, given in outputs.outputs.items():
        names = [s for s in outputs.systems if s in given]
        if pairing == "baseline":
            wanted = [(s, baseline) for s in names if s != baseline and baseline in given]
        else:
            wanted = list(itertools.combinations(names, 2))
        candidates.extend((prompt, x, y) for x, y in wanted)
    if pairing == "sample" and budget is not None and budget < len(candidates):
        keep = set(rng.sample(range(len(candidates)), budget))
        candidates = [c for i, c in enumerate(candidates) if i in keep]
    if not candidates:
        raise ConfigError(f"no prompt of {outputs.source} has outputs of two systems to pair "
                          f"(pairing {pairing})")
    pairs = []
    for prompt, x, y in candidates:
        a, b = (x, y) if rng.random() < 0.5 else (y, x)
        given = outputs.outputs[prompt]
        right = outputs.correct.get(prompt, frozenset())
        label = ("A>B" if a in right and b not in right else
                 "B>A" if b in right and a not in right else "")
        item = PairwiseItem(item_id=_item_id(prompt, a, b), question=outputs.prompts[prompt],
                            response_a=given[a], response_b=given[b], label=label,
                            source=f"{a} vs {b}")
        pairs.append(RankPair(item, prompt, a, b, identical=given[a] == given[b]))
    return pairs
