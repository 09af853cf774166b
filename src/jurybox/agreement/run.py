"""``run_agreement``: load ratings, analyze agreement per group, write summary.json and plots."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, get_args

import numpy as np

from ..datasets import BUNDLED_RATINGS, load_ratings, resolve_bundled
from ..errors import ConfigError, DataError
from ..fields import check_arguments
from ..reports import write_report
from ..rundir import write_json_atomic
from ..stats import Level
from .analyze import GroupAgreement, analyze
from .plots import plot_alpha, plot_jaccard

__all__ = ["AgreementReport", "run_agreement", "MAX_RESAMPLES"]

#: Most bootstrap resamples for alpha's CI (each holds a units-long array; 10**11 of them
#: ran out of memory). 1000 give the CI's ends to about +-0.01.
MAX_RESAMPLES = 100_000


@dataclass(frozen=True)
class AgreementReport:
    """What :func:`run_agreement` found and wrote.

    Attributes:
        results: one per group (dimension, and domain or group when asked).
        path: the ratings file read.
        n_ratings, n_raters: of the file; excluded: scores set to missing by exclusion codes.
        written: summary.json, the plots and report.html, in the order written.
    """

    results: list[GroupAgreement]
    path: Path
    n_ratings: int
    n_raters: int
    level: str
    excluded: int
    exclusion_codes: tuple[float, ...]
    written: list[Path]


def _summary(results: list[GroupAgreement], **meta: Any) -> dict[str, Any]:
    groups = []
    for g in results:
        groups.append({
            "key": g.key, "n_ratings": g.n_ratings, "alpha": asdict(g.alpha),
            "coarse": {"mean": g.coarse.mean, "n_pairs_used": g.coarse.n_pairs_used,
                       "n_pairs_eligible": g.coarse.n_pairs_eligible,
                       "min_common": g.coarse.min_common, "reason": g.coarse.reason,
                       "pairs": [asdict(p) for p in g.coarse.pairs]},
            "profiles": [{**asdict(p), "distribution": {str(k): v for k, v in
                                                        p.distribution.items()}}
                         for p in g.profiles],
            # pairs, not dense matrices: thousands of raters make n^2 mostly-empty cells
            "pairwise_alpha": {"skipped": g.pairwise.skipped, "pairs": [
                {"rater_a": g.pairwise.raters[i], "rater_b": g.pairwise.raters[j],
                 "alpha": float(g.pairwise.matrix[i, j]),
                 "n_common": int(g.pairwise.n_common[i, j])}
                for i, j in zip(*np.nonzero(np.triu(g.pairwise.n_common, 1)))]}})
    return {**meta, "groups": groups}


def run_agreement(ratings: str | Path, *, by: Sequence[str] = ("dimension",),
                  level: str = "ordinal", min_common: int = 10, resamples: int = 1000,
                  seed: int = 0, exclusion_codes: Sequence[float] = (),
                  out: Path | None = None, plots: bool = True) -> AgreementReport:
    """How much raters agree, per group: Krippendorff's alpha with a bootstrap CI, coarse
    Jaccard, rater profiles and pairwise alpha; summary.json and PNG plots in ``out``.

    Args:
        ratings: a long-format ratings file, or a bundled set by name (``"squality"``).
        by: group by these fields, each once (must include ``dimension`` when there are
            several); ``domain`` and ``group`` need that column in the ratings (a value on
            some row).
        level: nominal, ordinal, interval or ratio.
        min_common: co-rated items a rater pair needs for Jaccard and pairwise alpha.
        resamples: bootstrap resamples for alpha's CI, 0 (none) to :data:`MAX_RESAMPLES`;
            seed: the bootstrap seed.
        exclusion_codes: scores meaning "not applicable", treated as missing.
        out: folder for summary.json and plots (default ``runs/agreement-<file stem>``).

    Raises:
        ConfigError: a bad level, a repeated ``by`` field, ``resamples`` outside
            0..MAX_RESAMPLES, a non-finite exclusion code, or an ``out`` that cannot be a
            folder (a file, or not creatable: the message gives the OS reason).
        DataError: a bad ratings file, a ``by`` column the ratings do not have, or ratings
            alpha cannot take (naming the file).
    """
    if level not in get_args(Level):
        raise ConfigError(f"--level must be one of {', '.join(get_args(Level))}, got {level!r}")
    fields = tuple(by)
    twice = sorted({f for f in fields if fields.count(f) > 1})
    if twice:
        raise ConfigError(f"--by names {', '.join(map(repr, twice))} more than once")
    if not 0 <= resamples <= MAX_RESAMPLES:
        raise ConfigError(f"--resamples must be 0 to {MAX_RESAMPLES:,}, got {resamples!r}")
    check_arguments("run_agreement", ratings=(ratings, (str, Path)),
                    exclusion_codes=(exclusion_codes, (list, tuple)),
                    out=(out, (str, Path, type(None))))
    if not all(isinstance(c, (int, float)) and not isinstance(c, bool)
               for c in exclusion_codes):  # a string would be read as its characters
        raise ConfigError(f"--exclude-codes takes numbers, e.g. 0, 99; got "
                          f"{', '.join(map(repr, exclusion_codes))}")
    codes = tuple(float(c) for c in exclusion_codes)
    if not all(math.isfinite(c) for c in codes):
        raise ConfigError(f"--exclude-codes takes finite numbers, e.g. 0 or 0,99; got "
                          f"{list(exclusion_codes)}")
    out = out or Path("runs") / f"agreement-{Path(ratings).stem}"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {str(out)!r} is a file, not a folder")
    path = resolve_bundled(ratings, BUNDLED_RATINGS)
    table = load_ratings(path, numeric=level != "nominal", exclusion_codes=codes)
    for column in ("domain", "group"):
        if column in fields and all(getattr(r, column) is None for r in table.ratings):
            raise DataError(path, f"--by {column}: the ratings have no {column!r} column (or "
                            f"it is empty on every row)", field=column)
    try:
        results = analyze(table, by=fields, level=level,  # type: ignore[arg-type]
                          min_common=min_common, n_resamples=resamples, seed=seed)
    except ValueError as exc:  # ratings alpha cannot take: say which file
        raise DataError(path, str(exc)) from None
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot use {str(out)!r} as the output directory (--out): "
                          f"{exc.strerror}") from None
    write_json_atomic(out / "summary.json", _summary(
        results, ratings=str(path), by=list(fields), level=level, min_common=min_common,
        n_resamples=resamples, seed=seed, exclusion_codes=list(codes), excluded=table.excluded))
    written = [out / "summary.json"]
    if plots:
        written.append(plot_alpha(results, out / "alpha.png", ci=resamples > 0))
        for k, g in enumerate(results, start=1):
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", "_".join(g.key.values()))[:60]
            if (png := plot_jaccard(g, out / f"jaccard_{k:02d}_{slug}.png")) is not None:
                written.append(png)
    written.append(write_report(out))
    return AgreementReport(results, path, len(table), len(table.raters), level,
                           table.excluded, codes, written)
