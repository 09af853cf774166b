"""Statistics: accuracy, paired comparison, order and length diagnostics. Result objects, not
floats."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from .accuracy import accuracy

__all__ = [
    "AccuracyResult",
    "AlphaResult",
    "BucketAccuracy",
    "CoarseAgreement",
    "ConfidenceInterval",
    "DegenerateAlphaWarning",
    "InsufficientRatingsError",
    "JudgeBenchCounts",
    "LengthBias",
    "LengthTally",
    "Level",
    "OrderDiagnostics",
    "OrderTally",
    "PairJaccard",
    "PairedComparison",
    "PairwiseAlpha",
    "TfidfIndex",
    "VoteOutcome",
    "RaterProfile",
    "accuracy",
    "bootstrap_mean_ci",
    "bootstrap_ratio_ci",
    "bucket_accuracy",
    "co_rated_pairs",
    "coarse_agreement",
    "judgebench_counts",
    "judgebench_vote",
    "krippendorff_alpha",
    "length_bias",
    "order_diagnostics",
    "paired_comparison",
    "paired_or_none",
    "paired_sign",
    "pairwise_alpha",
    "rater_profile",
    "sign_test_p",
    "wilson_interval",
]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from ._bootstrap import bootstrap_mean_ci, bootstrap_ratio_ci
    from .interval import ConfidenceInterval
    from .accuracy import AccuracyResult
    from .coarse import CoarseAgreement, PairJaccard, co_rated_pairs, coarse_agreement
    from .krippendorff import (AlphaResult, DegenerateAlphaWarning, InsufficientRatingsError, Level,
                               krippendorff_alpha)
    from .judgebench import (BucketAccuracy, JudgeBenchCounts, VoteOutcome, bucket_accuracy,
                             judgebench_counts, judgebench_vote)
    from .length import LengthBias, LengthTally, length_bias, wilson_interval
    from .order import OrderDiagnostics, OrderTally, order_diagnostics
    from .paired import (PairedComparison, paired_comparison, paired_or_none, paired_sign,
                         sign_test_p)
    from .text import TfidfIndex
    from .profiles import PairwiseAlpha, RaterProfile, pairwise_alpha, rater_profile
