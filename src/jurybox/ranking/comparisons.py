"""Pairwise comparisons of systems: the one input every ranking statistic reads.

A :class:`Comparison` is one judged pair on one prompt: system ``a`` against system ``b``,
with the share of the verdict that went to ``a`` (1 a won, 0 b won, 0.5 a tie; AlpacaEval's
weighted preferences give values in between). Where the judge saw both presentation orders,
each order's verdict is kept (:class:`OrderVerdict`) for the order-flip and first-shown rates.
:class:`Comparisons` holds many, columnar (numpy arrays) for the fits and the bootstrap.

A judge failure is never a comparison: a pair whose judgment failed is left out by whoever
builds the comparisons, and counted there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Comparison", "Comparisons", "OrderVerdict"]


@dataclass(frozen=True)
class OrderVerdict:
    """One presentation order's verdict on a pair.

    Attributes:
        first: the system shown first (``a`` or ``b`` of its :class:`Comparison`, by name).
        outcome: the share of this order's verdict that went to ``a``, in [0, 1] (0.5 a tie).
    """

    first: str
    outcome: float


@dataclass(frozen=True)
class Comparison:
    """System ``a`` against system ``b`` on ``prompt``.

    Attributes:
        prompt: the prompt's (item's) id; the bootstrap resamples prompts.
        a, b: the two systems' names (different).
        outcome: the share of the verdict that went to ``a``, in [0, 1]: 1 ``a`` won, 0 ``b``
            won, 0.5 a tie (ties count half). Over both orders it is the mean of the orders'
            outcomes; for AlpacaEval's annotations, ``preference - 1`` with ``a`` the model
            (``output_2``) and ``b`` the baseline.
        length_a, length_b: the outputs' lengths in characters, or None when unknown (the
            length-controlled win rate and style control need them).
        text_a, text_b: the outputs, or None when not recorded (style control counts their
            markdown elements).
        orders: each presentation order's verdict, when recorded (both orders: two).

    Raises:
        ValueError: a == b, an outcome outside [0, 1] or NaN, a negative length.
    """

    prompt: str
    a: str
    b: str
    outcome: float
    length_a: int | None = None
    length_b: int | None = None
    text_a: str | None = None
    text_b: str | None = None
    orders: tuple[OrderVerdict, ...] = ()

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise ValueError(f"comparison on prompt {self.prompt!r}: a system against itself "
                             f"({self.a!r})")
        for value in (self.outcome, *(o.outcome for o in self.orders)):
            if not (0.0 <= value <= 1.0):  # also False for NaN
                raise ValueError(f"comparison on prompt {self.prompt!r}: outcome {value} is "
                                 f"not in [0, 1]")
        for length in (self.length_a, self.length_b):
            if length is not None and length < 0:
                raise ValueError(f"comparison on prompt {self.prompt!r}: negative length "
                                 f"{length}")


@dataclass(frozen=True)
class Comparisons:
    """Many comparisons, columnar: row ``r`` is ``a[r]`` against ``b[r]`` on ``prompt[r]``.

    Build with :meth:`of`. Systems are numbered in ``systems`` (sorted names); ``a`` and ``b``
    hold those numbers, ``prompt`` numbers into ``prompts`` (first-seen order).

    Attributes:
        systems: the systems' names, sorted.
        prompts: the prompts' ids, in first-seen order.
        a, b: shape (n,), int: the systems of each row (indices into ``systems``).
        prompt: shape (n,), int: each row's prompt (index into ``prompts``).
        outcome: shape (n,), float in [0, 1]: the share of each verdict that went to ``a``.
        length_a, length_b: shape (n,), float: lengths in characters, NaN where unknown.
        rows: the :class:`Comparison` objects, in row order (texts and orders live there).
    """

    systems: tuple[str, ...]
    prompts: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    prompt: np.ndarray
    outcome: np.ndarray
    length_a: np.ndarray
    length_b: np.ndarray
    rows: tuple[Comparison, ...] = field(repr=False)

    @classmethod
    def of(cls, comparisons: Iterable[Comparison]) -> Comparisons:
        """Columnar form of ``comparisons`` (any iterable; kept in its order).

        Raises:
            ValueError: no comparisons.
        """
        rows = tuple(comparisons)
        if not rows:
            raise ValueError("no comparisons to rank (every judgment failed, or none given)")
        systems = tuple(sorted({r.a for r in rows} | {r.b for r in rows}))
        index = {name: i for i, name in enumerate(systems)}
        prompts = tuple(dict.fromkeys(r.prompt for r in rows))
        prompt_index = {p: i for i, p in enumerate(prompts)}

        def lengths(values: Sequence[int | None]) -> np.ndarray:
            return np.array([math.nan if v is None else float(v) for v in values])

        return cls(
            systems=systems, prompts=prompts,
            a=np.array([index[r.a] for r in rows], dtype=np.int64),
            b=np.array([index[r.b] for r in rows], dtype=np.int64),
            prompt=np.array([prompt_index[r.prompt] for r in rows], dtype=np.int64),
            outcome=np.array([r.outcome for r in rows], dtype=float),
            length_a=lengths([r.length_a for r in rows]),
            length_b=lengths([r.length_b for r in rows]),
            rows=rows)

    def __len__(self) -> int:
        return len(self.rows)

    def system_index(self, name: str) -> int:
        """The number of system ``name``.

        Raises:
            KeyError: no comparison names it (the message lists the systems).
        """
        try:
            return self.systems.index(name)
        except ValueError:
            raise KeyError(f"no system named {name!r}; the systems are: "
                           f"{', '.join(self.systems)}") from None
