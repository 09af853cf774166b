"""Typed items that loaders produce and protocols consume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ListwiseItem", "PairwiseItem", "Verdict"]

#: A pairwise verdict in terms of the original responses: A better, B better, or a tie.
Verdict = Literal["A", "B", "tie"]


@dataclass(frozen=True)
class ListwiseItem:
    """One best-of-N question: a prompt and n >= 2 candidates, some of them correct.

    Attributes:
        item_id: unique within its dataset.
        prompt: the question or instruction the candidates answer.
        candidates: candidate texts, in dataset order (never the order shown to a judge).
        gold: indices into ``candidates`` of the correct candidates (at least one in a
            labelled dataset; empty for an unlabelled item, which ``jurybox judge`` takes).
        group: optional grouping key (a source or category), or None.
    """

    item_id: str
    prompt: str
    candidates: tuple[str, ...]
    gold: frozenset[int]
    group: str | None = None

    @property
    def n(self) -> int:
        """Number of candidates."""
        return len(self.candidates)

    @property
    def labelled(self) -> bool:
        """True when some candidate is marked correct."""
        return bool(self.gold)

    @property
    def lengths(self) -> tuple[int, ...]:
        """Each candidate's length in characters (``len``: Unicode code points, whitespace
        included), in dataset order: the unit of the length bias
        (:mod:`jurybox.stats.length`)."""
        return tuple(len(c) for c in self.candidates)


@dataclass(frozen=True)
class PairwiseItem:
    """A question and two responses, one labelled better.

    Attributes:
        item_id: unique within its dataset (JudgeBench's pair_id).
        question: the task both responses answer.
        response_a, response_b: the responses, in dataset order (never the shown order).
        label: ``"A>B"`` or ``"B>A"``; ``""`` for an unlabelled pair (``jurybox judge``).
        source: fine-grained origin (e.g. ``mmlu-pro-law``).
        bucket: the group accuracy is macro-averaged over (e.g. ``mmlu-pro``).
        split: which file or split it came from (e.g. ``gpt``, ``claude``).
    """

    item_id: str
    question: str
    response_a: str
    response_b: str
    label: str
    source: str = ""
    bucket: str = ""
    split: str = ""

    @property
    def labelled(self) -> bool:
        """True when the pair says which response is better."""
        return self.label in ("A>B", "B>A")

    @property
    def better(self) -> Verdict:
        """The better response, ``"A"`` or ``"B"`` (meaningless when unlabelled)."""
        return "A" if self.label == "A>B" else "B"

    @property
    def responses(self) -> tuple[str, str]:
        return (self.response_a, self.response_b)

    @property
    def lengths(self) -> tuple[int, int]:
        """The two responses' lengths in characters, as :attr:`ListwiseItem.lengths`."""
        return (len(self.response_a), len(self.response_b))
