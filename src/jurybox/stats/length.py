"""Length bias: how often a judge picks the longest candidate, against the rate an unbiased
judge would give.

LLM judges favour longer answers; AlpacaEval's length-controlled win rate exists to undo it
(Dubois, Galambosi, Liang and Hashimoto 2024, "Length-Controlled AlpacaEval: A Simple Way to
Debias Automatic Evaluators", arXiv 2404.04475). This module measures the bias; it does not
correct for it.

Definition (one rule for listwise and pairwise; a pair is a list of two):

- Length is any count per candidate; jurybox records characters of the text as given
  (``len(text)``: Unicode code points, whitespace included;
  :attr:`jurybox.datasets.ListwiseItem.lengths`).
- Per decided item i with candidate lengths L_i (n_i candidates), the longest set
  M_i = {j : L_ij = max L_i}, and the pick W_i (the winners; several when tied, e.g. PCF
  winners within the tolerance):

  - observed credit x_i = |M_i ∩ W_i| / |W_i|: 1 when the pick is the longest candidate, the
    1/|winners| tie credit of RewardBench 2's accuracy when the pick is a tie set;
  - unbiased rate e_i = |M_i| / n_i: the chance that a pick made without regard to length
    lands on a longest candidate (1/n_i when one candidate is longest; 1/2 for a pair);
  - gold rate g_i = |M_i ∩ G_i| / |G_i| when the item has gold G_i: the credit of a
    perfectly accurate judge.

- ``observed`` = mean x_i, ``expected`` = mean e_i, ``gold`` = mean g_i over the same items.
- Excluded and counted, never scored: failed items (a failure is never a pick), tie verdicts
  of a pairwise judge (``n_tied``: no response was picked), items whose candidates all have
  the same length (``n_equal_length``: no longest candidate), and records without lengths
  (``n_unmeasured``: written before jurybox recorded them). A longest length shared by some
  but not all candidates is kept: every candidate of that length is "longest", and e_i
  counts them all.

The confound: where the gold answers are longer, an accurate judge picks the longest too. Read
the judge's ``observed`` against both baselines: ``expected`` (no regard to length) and
``gold`` (perfect accuracy). A judge above ``gold`` prefers length beyond what accuracy
explains.

Interval: Wilson's score interval for ``observed`` over the n items (Wilson 1927). With split
credits the variance of x_i is at most mean(1 - mean), so the interval is then conservative.

Test: two-sided and exact, conditional on each item's n_i, |M_i| and |W_i|: under the null
hypothesis the pick is a uniformly random |W_i|-subset of the candidates, whatever their
lengths, so |M_i ∩ W_i| is hypergeometric and the null distribution of sum x_i is their
convolution (for single picks a Poisson binomial; for pairs the binomial with p = 1/2, whose
test is scipy's ``binomtest``). The p-value sums the probabilities of outcomes no more likely
than the one observed (scipy ``binomtest``'s two-sided method). When that distribution would
take more than :data:`MAX_EXACT_WORK` steps to compute (tens of thousands of items), the
normal approximation with the same null mean and variance is used, and ``test`` says so.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Literal

import numpy as np

from .interval import ConfidenceInterval

__all__ = ["LengthBias", "LengthTally", "length_bias", "wilson_interval"]

#: Most array steps (items x lattice points) the exact test may take before the normal
#: approximation is used instead (about a second of numpy at most).
MAX_EXACT_WORK = 200_000_000

#: ``LengthBias.reason`` when no item was added at all.
NO_ITEMS = "no decided item with candidates of different lengths"


def _nothing_counted(left_out: Sequence[tuple[int, str]]) -> str:
    """Why no item was counted, from the counts left out: ``no item counted: 1 tie verdict,
    1 failed`` (:data:`NO_ITEMS` when there were none)."""
    parts = [f"{n} {what}" for n, what in left_out if n]
    return f"no item counted: {', '.join(parts)}" if parts else NO_ITEMS


@dataclass(frozen=True)
class LengthBias:
    """How often the pick is the longest candidate (see the module docstring).

    Attributes:
        observed: share of picks that are the longest candidate (tie credit), in [0, 1];
            NaN when no item was counted (``reason`` says why).
        expected: the rate of a judge that ignores length, mean of |longest| / n, in (0, 1);
            NaN when no item was counted.
        gold: the longest share of the gold answers on the same items (a perfectly accurate
            judge), in [0, 1]; None when no counted item has gold. n_gold: those items.
        n: items counted.
        n_failed, n_tied, n_equal_length, n_unmeasured: items excluded: no decision; a
            pairwise tie verdict; all candidates of one length; no lengths recorded.
        confidence_interval: Wilson score interval of ``observed`` (NaN bounds when n = 0).
        confidence_level: e.g. 0.95.
        p_value: two-sided test of observed against expected; NaN when n = 0.
        test: ``"exact"`` (conditional exact test) or ``"normal"`` (its normal approximation,
            for very large runs).
        reason: None, or why ``observed`` is NaN.
    """

    observed: float
    expected: float
    gold: float | None
    n: int
    n_gold: int
    n_failed: int
    n_tied: int
    n_equal_length: int
    n_unmeasured: int
    confidence_interval: ConfidenceInterval
    confidence_level: float
    p_value: float
    test: Literal["exact", "normal"] = "exact"
    reason: str | None = None

    @property
    def n_excluded(self) -> int:
        """Items left out, whatever the reason."""
        return self.n_failed + self.n_tied + self.n_equal_length + self.n_unmeasured


def wilson_interval(share: float, n: int, *, confidence: float = 0.95) -> ConfidenceInterval:
    """Wilson's score interval for a share observed over ``n`` trials (Wilson 1927, "Probable
    inference, the law of succession, and statistical inference", JASA 22: 209-212).

    Args:
        share: observed share in [0, 1]. n: trials, >= 0 (0 gives NaN bounds).
        confidence: in (0, 1).

    Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics
    in Medicine 17: 857-872, Table I, method 3, gives 0.2553 to 0.3662 for 81 of 263:

    >>> tuple(round(b, 4) for b in wilson_interval(81 / 263, 263))
    (0.2553, 0.3662)
    """
    if not 0 <= share <= 1 or n < 0 or not 0 < confidence < 1:
        raise ValueError(f"need a share in [0, 1], n >= 0 and confidence in (0, 1); got "
                         f"share={share!r}, n={n!r}, confidence={confidence!r}")
    if n == 0:
        return ConfidenceInterval(math.nan, math.nan)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    scale = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / scale
    half = z / scale * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return ConfidenceInterval(max(0.0, centre - half), min(1.0, centre + half))


class LengthTally:
    """Length bias accumulated one item at a time; memory grows with the distinct
    (n, |longest|, |winners|) shapes, not with items.

    >>> t = LengthTally()
    >>> t.add([10, 30, 20], [1], gold=[1]); t.add([10, 30, 20], [0]); t.add_failed()
    >>> r = t.result()
    >>> (r.observed, round(r.expected, 4), r.gold, r.n, r.n_failed)
    (0.5, 0.3333, 1.0, 2, 1)
    """

    def __init__(self) -> None:
        self._shapes: Counter[tuple[int, int, int]] = Counter()  # (n, |M|, |W|) -> items
        self._hits = Fraction(0)       # sum of x_i
        self._expected = Fraction(0)   # sum of e_i
        self._gold, self._n_gold = Fraction(0), 0
        self.n = self.n_failed = self.n_tied = self.n_equal_length = self.n_unmeasured = 0

    def add(self, lengths: Sequence[int], winners: Collection[int],
            gold: Collection[int] = ()) -> None:
        """One decided item: its candidates' lengths, its pick (winner indices) and its gold
        indices (empty: none).

        Raises:
            ValueError: fewer than two lengths, a negative length, no winners (a failed item
                goes to :meth:`add_failed`), or an index outside 0..n-1.
        """
        n = len(lengths)
        if n < 2 or min(lengths) < 0:
            raise ValueError(f"need two or more lengths >= 0, got {list(lengths)!r}")
        if not winners:
            raise ValueError("an item without winners failed: count it with add_failed()")
        if any(not 0 <= j < n for j in (*winners, *gold)):
            raise ValueError(f"a winner in {sorted(winners)!r} or gold index in "
                             f"{sorted(gold)!r} is outside 0..{n - 1}")
        top = max(lengths)
        longest = {j for j, length in enumerate(lengths) if length == top}
        if len(longest) == n:
            self.n_equal_length += 1
            return
        picked, w = set(winners), len(set(winners))
        hits = len(longest & picked)
        self.n += 1
        self._shapes[(n, len(longest), w)] += 1
        self._hits += Fraction(hits, w)
        self._expected += Fraction(len(longest), n)
        if gold:
            self._n_gold += 1
            self._gold += Fraction(len(longest & set(gold)), len(set(gold)))

    def add_failed(self) -> None:
        """An item without a decision (excluded, counted)."""
        self.n_failed += 1

    def add_tied(self) -> None:
        """A pairwise tie verdict: no response picked (excluded, counted)."""
        self.n_tied += 1

    def add_unmeasured(self) -> None:
        """A decision whose candidates' lengths are unknown (excluded, counted)."""
        self.n_unmeasured += 1

    def result(self, *, confidence: float = 0.95) -> LengthBias:
        """The statistic over the items added so far."""
        if not self.n:
            nan = math.nan
            why = _nothing_counted([
                (self.n_failed, "failed"),
                (self.n_tied, "tie verdict" + "s" * (self.n_tied != 1)),
                (self.n_equal_length, "with candidates of equal length"),
                (self.n_unmeasured, "without recorded lengths")])
            return self._result(nan, nan, None, ConfidenceInterval(nan, nan), confidence, nan,
                                "exact", why)
        observed = float(self._hits / self.n)
        p_value, test = _null_test(self._shapes, self._hits)
        return self._result(observed, float(self._expected / self.n),
                            float(self._gold / self._n_gold) if self._n_gold else None,
                            wilson_interval(observed, self.n, confidence=confidence),
                            confidence, p_value, test, None)

    def _result(self, observed: float, expected: float, gold: float | None,
                ci: ConfidenceInterval, confidence: float, p_value: float,
                test: Literal["exact", "normal"], reason: str | None) -> LengthBias:
        return LengthBias(observed, expected, gold, self.n, self._n_gold,
                          n_failed=self.n_failed, n_tied=self.n_tied,
                          n_equal_length=self.n_equal_length, n_unmeasured=self.n_unmeasured,
                          confidence_interval=ci, confidence_level=confidence, p_value=p_value,
                          test=test, reason=reason)


def length_bias(lengths: Sequence[Sequence[int]], winners: Sequence[Collection[int] | None],
                *, gold: Sequence[Collection[int]] | None = None,
                confidence: float = 0.95) -> LengthBias:
    """Length bias of a judge's picks (see the module docstring for the definition).

    Args:
        lengths: per item, its candidates' lengths (jurybox records characters).
        winners: per item, the indices it picked; None or empty for a failed item.
        gold: per item, its gold indices (empty: none); None: no gold at all.
        confidence: level of the Wilson interval.

    Raises:
        ValueError: sequences of different lengths, or a bad item (:meth:`LengthTally.add`).

    Four 3-candidate items, the longest candidate picked in three (p = 1/3 each), two of
    them with gold: P(3 or 4 of 4) = 9/81, and the outcomes as unlikely as 3 are {3, 4}, so
    p = 1/9:

    >>> r = length_bias([[1, 5, 2]] * 4, [[1], [1], [1], [0]], gold=[[1], [0], [], []])
    >>> (r.observed, round(r.expected, 4), r.gold, r.n_gold, round(r.p_value, 4))
    (0.75, 0.3333, 0.5, 2, 0.1111)
    """
    gold = gold if gold is not None else [()] * len(lengths)
    if not len(lengths) == len(winners) == len(gold):
        raise ValueError("lengths, winners and gold must have one entry an item")
    tally = LengthTally()
    for item_lengths, picked, item_gold in zip(lengths, winners, gold):
        if picked:
            tally.add(item_lengths, picked, item_gold)
        else:
            tally.add_failed()
    return tally.result(confidence=confidence)


def _kernel(n: int, m: int, w: int) -> dict[int, float]:
    """P(|M ∩ W| = k) when W is a uniformly random w-subset of n, |M| = m (hypergeometric)."""
    total = math.comb(n, w)
    return {k: math.comb(m, k) * math.comb(n - m, w - k) / total
            for k in range(max(0, w - (n - m)), min(m, w) + 1)}


def _null_test(shapes: Counter[tuple[int, int, int]], hits: Fraction
               ) -> tuple[float, Literal["exact", "normal"]]:
    """Two-sided p-value of sum x_i under the null (module docstring), exact on the lattice
    of multiples of 1/D (D = lcm of the random items' winner counts), or normal when that
    would cost more than MAX_EXACT_WORK steps."""
    # an item whose pick is every candidate (w = n) has x_i = e_i for certain: no variance
    random = {s: c for s, c in shapes.items() if s[2] < s[0]}
    fixed = sum((Fraction(m, n) * c for (n, m, w), c in shapes.items() if w == n), Fraction(0))
    if not random:
        return 1.0, "exact"
    lattice = math.lcm(*(w for _, _, w in random))
    # each item shifts the whole distribution so far: items x final size bounds the work
    size = 1 + sum(c * min(m, w) * lattice // w for (n, m, w), c in random.items())
    steps = sum(random.values()) * size
    if steps > MAX_EXACT_WORK:
        return _normal_p(random, hits - fixed), "normal"
    dist = np.ones(1)
    for (n, m, w), count in sorted(random.items()):
        kernel = [(k * lattice // w, p) for k, p in _kernel(n, m, w).items()]
        for _ in range(count):
            grown = np.zeros(dist.size + kernel[-1][0])
            for shift, p in kernel:
                grown[shift:shift + dist.size] += p * dist
            dist = grown
    # lattice points observed: D * sum over the random items of hits / w
    t = hits - fixed
    observed = int(t * lattice)
    assert observed == t * lattice  # on the lattice by construction
    # scipy binomtest's relative tolerance for "as likely as the observed outcome"
    p = float(dist[dist <= dist[observed] * (1 + 1e-7)].sum())
    return min(1.0, p), "exact"


def _normal_p(random: dict[tuple[int, int, int], int], t: Fraction) -> float:
    """Two-sided normal p-value of t = sum x_i over the random items: mean sum m/n, variance
    sum of the hypergeometric variance w (m/n)(1 - m/n)(n - w)/(n - 1), divided by w^2."""
    mean = sum(c * m / n for (n, m, w), c in random.items())
    var = sum(c * (m / n) * (1 - m / n) * (n - w) / (n - 1) / w for (n, m, w), c in
              random.items())
    z = abs(float(t) - mean) / math.sqrt(var)
    return 2 * (1 - NormalDist().cdf(z))
