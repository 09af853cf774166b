"""PNG plots of an agreement analysis (matplotlib, Agg backend, imported lazily)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ..terminal import safe_text
from .analyze import GroupAgreement

__all__ = ["plot_alpha", "plot_jaccard"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_alpha(results: Sequence[GroupAgreement], path: Path, *, ci: bool = True) -> Path:
    """Alpha per group with its bootstrap CI as error bars (``ci``); undefined alphas are
    marked."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(results) + 2), 3.6))
    xs, labels = range(len(results)), [safe_text(g.label) for g in results]
    for x, g in zip(xs, results):
        a = g.alpha
        if math.isnan(a.alpha):
            ax.annotate("undefined", (x, 0.05), ha="center", fontsize=8, color="grey")
            continue
        lo, hi = a.confidence_interval
        err = [[a.alpha - lo], [hi - a.alpha]] if not math.isnan(lo) else None
        ax.errorbar([x], [a.alpha], yerr=err, fmt="o", capsize=4, color="tab:blue")
    ax.axhline(0, color="grey", lw=0.8)
    ax.axhline(0.667, color="tab:orange", lw=0.8, ls="--", label="0.667 (tentative)")
    ax.axhline(0.8, color="tab:green", lw=0.8, ls="--", label="0.8 (reliable)")
    ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"Krippendorff's alpha ({results[0].alpha.level})")
    ax.set_title("Agreement per group" + (", 95% bootstrap CI" if ci else ""))
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_jaccard(group: GroupAgreement, path: Path, *, max_raters: int = 60) -> Path | None:
    """Heatmap of pairwise Jaccard agreement (above-median sets); None when no pair is
    defined. With more than ``max_raters`` raters, only the raters in the most pairs."""
    coarse = group.coarse
    if not coarse.n_pairs_used:
        return None
    plt = _pyplot()
    import numpy as np

    matrix, raters = coarse.matrix, list(coarse.raters)
    index = {r: k for k, r in enumerate(raters)}
    undefined = np.zeros(matrix.shape, dtype=bool)  # eligible pairs whose J is undefined
    for p in coarse.pairs:
        if np.isnan(p.jaccard):
            undefined[index[p.rater_a], index[p.rater_b]] = True
            undefined[index[p.rater_b], index[p.rater_a]] = True
    shown = ""
    if len(raters) > max_raters:
        keep = np.argsort(-np.sum(~np.isnan(matrix), axis=0), kind="stable")[:max_raters]
        keep.sort()
        matrix, undefined = matrix[np.ix_(keep, keep)], undefined[np.ix_(keep, keep)]
        raters = [raters[k] for k in keep]
        shown = f"; shown: the {max_raters} raters in most pairs"
    size = min(10.0, 2.5 + 0.35 * len(raters))
    fig, ax = plt.subplots(figsize=(size + 1, size))
    ax.imshow(np.where(undefined, 1.0, np.nan), cmap="Greys", vmin=0, vmax=2.5)
    image = ax.imshow(np.ma.masked_invalid(matrix), vmin=0, vmax=1, cmap="viridis")
    if len(raters) <= 30:
        names = [safe_text(r) for r in raters]  # data: control characters shown escaped
        ax.set_xticks(range(len(raters)), names, rotation=90, fontsize=7)
        ax.set_yticks(range(len(raters)), names, fontsize=7)
    if len(raters) <= 12:  # small enough to print each value
        for (i, j), value in np.ndenumerate(matrix):
            if not np.isnan(value):
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if value < 0.6 else "black")
    fig.colorbar(image, ax=ax, label="Jaccard of above-median item sets")
    ax.set_title(f"{safe_text(group.label)}: coarse agreement (mean {coarse.mean:.2f} over "
                 f"{coarse.n_pairs_used} pairs{shown})\ngrey: undefined (empty union); white: "
                 f"fewer than {coarse.min_common} co-rated items", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
