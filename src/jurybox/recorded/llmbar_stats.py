"""LLMBar's own statistics (``LLMEvaluator/evaluate.py``), reproduced exactly.

For each record, with ``label = str(record["label"])`` and the final round's winners
``w0 = results[-1]["swap = False"]["winner"]``, ``w1 = results[-1]["swap = True"]["winner"]``:
``correct_False`` counts ``w0 == label``, ``correct_True`` counts ``w1 == label``,
``correct_both`` counts both, and ``equal`` counts ``w1 == w0`` -- so two unparsed (null)
winners count as equal, and an unparsed winner is never correct. Each is written
``"{k} / {n} = {k / n * 100}%"``; ``correct_average`` is ``"{(cF + cT) / 2 / n * 100}%"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Recording

__all__ = ["LLMBarStatistics", "llmbar_statistics", "KEYS"]

#: The statistics.json keys reproduced (the kappas are not).
KEYS = ("correct_False", "correct_True", "correct_average", "correct_both", "equal")


@dataclass(frozen=True)
class LLMBarStatistics:
    """LLMBar's counts over one recording of two orders (AB = swap False, BA = swap True)."""

    n: int
    correct_False: int  # noqa: N815 - LLMBar's names
    correct_True: int  # noqa: N815
    correct_both: int
    equal: int

    def as_written(self) -> dict[str, str]:
        """The values as LLMBar's statistics.json writes them (``"94 / 100 = 94.0%"``)."""
        n = self.n

        def frac(k: int) -> str:
            return "{} / {} = {}%".format(k, n, k / n * 100)

        return {"correct_False": frac(self.correct_False),
                "correct_True": frac(self.correct_True),
                "correct_average": "{}%".format(
                    (self.correct_False + self.correct_True) / 2 / n * 100),
                "correct_both": frac(self.correct_both), "equal": frac(self.equal)}

    def mismatches(self, reference: dict) -> list[str]:
        """Keys of :data:`KEYS` whose value in ``reference`` differs from ours (a key
        missing from ``reference`` differs)."""
        ours = self.as_written()
        return [k for k in KEYS if reference.get(k) != ours[k]]


def llmbar_statistics(rec: Recording) -> LLMBarStatistics | None:
    """LLMBar's statistics of ``rec``, or None unless its orders are ``("AB", "BA")`` and it
    has items."""
    if rec.orders != ("AB", "BA") or not rec.items:
        return None
    c0 = c1 = both = equal = 0
    for item in rec.items:
        v0, v1 = item.verdicts
        r0, r1 = v0 == item.label, v1 == item.label
        c0, c1, both, equal = c0 + r0, c1 + r1, both + (r0 and r1), equal + (v0 == v1)
    return LLMBarStatistics(rec.n, c0, c1, both, equal)
