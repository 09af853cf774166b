"""Statistics: accuracy, paired comparison, order diagnostics. Result objects, not floats."""

from ._bootstrap import bootstrap_mean_ci
from .interval import ConfidenceInterval
from .accuracy import AccuracyResult, accuracy
from .coarse import CoarseAgreement, PairJaccard, co_rated_pairs, coarse_agreement
from .krippendorff import (AlphaResult, DegenerateAlphaWarning, InsufficientRatingsError, Level,
                           krippendorff_alpha)
from .judgebench import (BucketAccuracy, JudgeBenchCounts, VoteOutcome, bucket_accuracy,
                         judgebench_counts, judgebench_vote)
from .order import OrderDiagnostics, OrderTally, order_diagnostics
from .paired import PairedComparison, paired_comparison
from .text import TfidfIndex
from .profiles import PairwiseAlpha, RaterProfile, pairwise_alpha, rater_profile

__all__ = [
    "AccuracyResult",
    "AlphaResult",
    "BucketAccuracy",
    "CoarseAgreement",
    "ConfidenceInterval",
    "DegenerateAlphaWarning",
    "InsufficientRatingsError",
    "JudgeBenchCounts",
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
    "bucket_accuracy",
    "co_rated_pairs",
    "coarse_agreement",
    "judgebench_counts",
    "judgebench_vote",
    "krippendorff_alpha",
    "order_diagnostics",
    "paired_comparison",
    "pairwise_alpha",
    "rater_profile",
]
