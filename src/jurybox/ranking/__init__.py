"""Ranking systems from pairwise comparisons: win rates against a baseline, the
length-controlled win rate, Bradley-Terry scores, each with a CI from resampling prompts.
Pure statistics (numpy, scikit-learn): no model call, no file."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["DEFAULT_ROUNDS", "Comparison", "Comparisons", "OrderVerdict", "percentile_ci",
           "prompt_counts", "row_weights"]

if _typing.TYPE_CHECKING:
    from .bootstrap import DEFAULT_ROUNDS, percentile_ci, prompt_counts, row_weights
    from .comparisons import Comparison, Comparisons, OrderVerdict

__getattr__, __dir__ = _lazy_exports(__name__)
