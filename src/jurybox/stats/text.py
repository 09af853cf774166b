"""TF-IDF cosine similarity of short texts (judge reasoning)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["TfidfIndex"]

_TOKEN = re.compile(r"[a-z0-9]+")


class TfidfIndex:
    """TF-IDF vectors of a fixed set of documents; cosine between any two.

    Weights: raw term count x smoothed idf, idf(t) = ln((1 + N) / (1 + df(t))) + 1 (the
    scikit-learn default), vectors L2-normalised; tokens are lower-cased alphanumeric runs.

    By hand: idf(the) = idf(cat) = ln(4/3) + 1 = 1.2877, idf(sat) = idf(ran) = ln 2 + 1 =
    1.6931; cosine(0, 1) = 2 * 1.2877^2 / (2 * 1.2877^2 + 1.6931^2) = 3.3163 / 6.1828 = 0.536.

    >>> index = TfidfIndex(["the cat sat", "the cat ran", "dogs bark"])
    >>> round(index.cosine(0, 1), 3), index.cosine(0, 2)
    (0.536, 0.0)
    """

    def __init__(self, documents: Sequence[str]) -> None:
        counts = [Counter(_TOKEN.findall(doc.lower())) for doc in documents]
        df = Counter(t for c in counts for t in c)
        n = len(documents)
        idf = {t: math.log((1 + n) / (1 + d)) + 1 for t, d in df.items()}
        self._vectors = []
        for c in counts:
            vec = {t: tf * idf[t] for t, tf in c.items()}
            norm = math.sqrt(sum(w * w for w in vec.values())) or 1.0
            self._vectors.append({t: w / norm for t, w in vec.items()})

    def cosine(self, i: int, j: int) -> float:
        """Cosine similarity of documents i and j, in [0, 1]."""
        a, b = self._vectors[i], self._vectors[j]
        if len(a) > len(b):
            a, b = b, a
        return sum(w * b.get(t, 0.0) for t, w in a.items())
