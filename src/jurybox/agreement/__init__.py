"""Agreement analysis of multi-rater data: alpha, coarse Jaccard, rater profiles, plots."""

from .analyze import GROUP_FIELDS, GroupAgreement, analyze, ratings_matrix
from .plots import plot_alpha, plot_jaccard
from .run import AgreementReport, run_agreement

__all__ = ["AgreementReport", "GROUP_FIELDS", "GroupAgreement", "analyze", "plot_alpha",
           "plot_jaccard", "ratings_matrix", "run_agreement"]
