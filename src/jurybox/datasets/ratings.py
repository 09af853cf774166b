"""Long-format ratings: one row per (item, rater, dimension) with a score.

Columns: ``item_id, rater_id, dimension, score`` and optionally ``domain`` and ``group``
(further columns, such as rater demographics, are ignored). Formats: CSV (UTF-8, with or
without a byte-order mark), JSONL, parquet. The id, dimension, domain and group fields are
names: text or an integer, not blank, at most 256 characters, no NUL or lone surrogate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from .rows import iter_csv, iter_jsonl, iter_parquet
from .validate import check_file, check_name

__all__ = ["Rating", "RatingsTable", "load_ratings", "RATING_COLUMNS"]

RATING_COLUMNS = ("item_id", "rater_id", "dimension", "score")


@dataclass(frozen=True)
class Rating:
    """One rater's score of one item on one dimension.

    Attributes:
        score: a number, or a label (string) when loaded with ``numeric=False``; NaN when the
            score is an exclusion code (missing by design).
        line: where it came from (1-based line or row), for error messages.
    """

    item_id: str
    rater_id: str
    dimension: str
    score: float | str
    domain: str | None = None
    group: str | None = None
    line: int = 0


@dataclass
class RatingsTable:
    """Ratings with where they came from.

    Attributes:
        ratings: in file order.
        path: the file.
        excluded: how many scores were exclusion codes (now NaN).
    """

    ratings: list[Rating]
    path: Path
    excluded: int = 0

    @property
    def dimensions(self) -> list[str]:
        """Dimensions in order of first appearance."""
        return list(dict.fromkeys(r.dimension for r in self.ratings))

    @property
    def raters(self) -> list[str]:
        return sorted({r.rater_id for r in self.ratings})

    def __len__(self) -> int:
        return len(self.ratings)


def _rows(path: Path) -> Iterator[tuple[int, dict]]:
    if path.suffix == ".parquet":
        yield from iter_parquet(path)
    elif path.suffix in (".jsonl", ".json"):
        yield from iter_jsonl(path)
    else:
        yield from iter_csv(path, required=RATING_COLUMNS)


def _text(path: Path, line: int, row: dict, name: str, required: bool = True) -> str | None:
    """A name field (see :func:`check_name`), stripped; None when absent and optional."""
    value = row.get(name)
    if not required and (value is None or (isinstance(value, str) and not value.strip())):
        return None
    return check_name(path, line, name, value).strip()


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$", re.ASCII)


def _score(path: Path, line: int, value: object, numeric: bool) -> float | str:
    """A number (numbers and plain numeric text such as "3" or "2.5"); with ``numeric``
    False, other text stays a label."""
    if isinstance(value, bool):
        raise DataError(path, f"score must be a number, got {value!r}", line=line, field="score")
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value).strip() if value is not None else ""
        if not text:
            raise DataError(path, "missing score", line=line, field="score")
        if not _NUMBER.match(text):
            if not numeric:
                return text
            raise DataError(path, f"score must be a number for this level of measurement, got "
                            f"{text!r}", line=line, field="score")
        number = float(text)
    if not math.isfinite(number):
        raise DataError(path, f"score must be finite, got {value!r}", line=line, field="score")
    return number


def load_ratings(path: str | Path, *, numeric: bool = True,
                 dimensions: Collection[str] | None = None,
                 exclusion_codes: Mapping[str, Collection[float]] | Collection[float] | None = None
                 ) -> RatingsTable:
    """Load long-format ratings from CSV, JSONL or parquet.

    Args:
        path: the file (parquet needs ``pip install 'jurybox[parquet]'``), or a bundled set
            by name (``"squality"``).
        numeric: scores must be numbers (ordinal, interval, ratio levels); False also accepts
            text labels (nominal). Numeric text is read as a number either way, so "1" and
            "1.0" are one category and exclusion codes apply.
        dimensions: the known dimensions; a row with another raises (None accepts any).
        exclusion_codes: scores that mean "not applicable" (e.g. 0 = "not a B2B product"),
            for every dimension or per dimension; they become NaN, missing for statistics.

    Raises:
        DataError: missing file or column, an empty, too long or non-text name field,
            unreadable bytes or CSV, non-numeric score where numbers are needed, an unknown
            dimension, a duplicate (item, rater, dimension) row (naming both lines), or no
            rows.
    """
    from .registry import BUNDLED_RATINGS, resolve_bundled  # registry imports this module

    path = check_file(resolve_bundled(path, BUNDLED_RATINGS))
    codes_for: dict[str | None, Collection[float]] = (
        {k: v for k, v in exclusion_codes.items()} if isinstance(exclusion_codes, Mapping)
        else {None: exclusion_codes or ()})
    seen: dict[tuple[str, str, str], int] = {}
    ratings, excluded = [], 0
    for line, row in _rows(path):
        item, rater, dim = (str(_text(path, line, row, c)) for c in ("item_id", "rater_id",
                                                                      "dimension"))
        if dimensions is not None and dim not in dimensions:
            raise DataError(path, f"unknown dimension {dim!r}; known: "
                                  f"{', '.join(sorted(dimensions))}", line=line, field="dimension")
        key = (item, rater, dim)
        if key in seen:
            raise DataError(path, f"duplicate rating of item {item!r} by rater {rater!r} on "
                            f"{dim!r} (first on line {seen[key]})", line=line, field="item_id")
        seen[key] = line
        if "score" not in row:
            raise DataError(path, "missing field", line=line, field="score")
        score = _score(path, line, row["score"], numeric)
        codes = codes_for.get(dim, codes_for.get(None, ()))
        if isinstance(score, float) and score in codes:
            score, excluded = math.nan, excluded + 1
        ratings.append(Rating(item, rater, dim, score, _text(path, line, row, "domain", False),
                              _text(path, line, row, "group", False), line))
    if not ratings:
        raise DataError(path, "no ratings")
    return RatingsTable(ratings, path, excluded)
