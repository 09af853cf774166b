"""Builders of small comparison sets for the ranking tests."""

from __future__ import annotations

from jurybox.ranking import Comparison, Comparisons


def series(a: str, b: str, outcomes: list[float], start: int = 0,
           prefix: str = "p") -> list[Comparison]:
    """One comparison of ``a`` against ``b`` per outcome, each on its own prompt."""
    return [Comparison(f"{prefix}{start + i}", a, b, y) for i, y in enumerate(outcomes)]


def of(*groups: list[Comparison]) -> Comparisons:
    return Comparisons.of([c for g in groups for c in g])
