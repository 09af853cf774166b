"""Typed items that loaders produce and protocols consume."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ListwiseItem"]


@dataclass(frozen=True)
class ListwiseItem:
    """One best-of-N question: a prompt and n >= 2 candidates, some of them correct.

    Attributes:
        item_id: unique within its dataset.
        prompt: the question or instruction the candidates answer.
        candidates: candidate texts, in dataset order (never the order shown to a judge).
        gold: indices into ``candidates`` of the correct candidates (at least one).
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
