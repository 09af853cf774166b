"""Ranking systems from pairwise comparisons: win rates against a baseline, the
length-controlled win rate, Bradley-Terry scores, each with a CI from resampling prompts.
Pure statistics (numpy, scikit-learn): no model call, no file."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["DEFAULT_ROUNDS", "ELO_PER_LOGIT", "BTScore", "Bootstrap", "BradleyTerry", "Comparison",
           "Comparisons", "OrderEffects", "OrderVerdict", "PairOrder", "StyleCoefficient",
           "StyleControlled", "WinRate", "WinRateMatrix", "WinRates", "fit_bradley_terry",
           "markdown_counts", "order_effects", "percentile_ci", "prompt_counts",
           "rank_intervals", "row_weights", "style_controlled_bt", "style_differences",
           "win_rate_matrix", "win_rates"]

if _typing.TYPE_CHECKING:
    from .bootstrap import DEFAULT_ROUNDS, Bootstrap, percentile_ci, prompt_counts, row_weights
    from .bradley_terry import (ELO_PER_LOGIT, BradleyTerry, BTScore, fit_bradley_terry,
                                rank_intervals)
    from .comparisons import Comparison, Comparisons, OrderVerdict
    from .order import OrderEffects, PairOrder, order_effects
    from .style import (StyleCoefficient, StyleControlled, markdown_counts,
                        style_controlled_bt, style_differences)
    from .winrate import WinRate, WinRateMatrix, WinRates, win_rate_matrix, win_rates

__getattr__, __dir__ = _lazy_exports(__name__)
