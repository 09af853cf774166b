"""Ranking systems from pairwise comparisons: win rates against a baseline, the
length-controlled win rate, Bradley-Terry scores, each with a CI from resampling prompts.
Pure statistics (numpy, scikit-learn): no model call, no file."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["Comparison", "Comparisons", "OrderVerdict"]

if _typing.TYPE_CHECKING:
    from .comparisons import Comparison, Comparisons, OrderVerdict

__getattr__, __dir__ = _lazy_exports(__name__)
