"""Agreement analysis of multi-rater data: alpha, coarse Jaccard, rater profiles, plots."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports
from .analyze import analyze

__all__ = ["AgreementReport", "GROUP_FIELDS", "GroupAgreement", "analyze", "plot_alpha",
           "plot_jaccard", "ratings_matrix", "run_agreement"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .analyze import GROUP_FIELDS, GroupAgreement, ratings_matrix
    from .plots import plot_alpha, plot_jaccard
    from .run import AgreementReport, run_agreement
