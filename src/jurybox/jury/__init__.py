"""A jury: several judges (models) as one panel (PoLL, Verga et al. 2024, arXiv 2404.18796).

``rules``: how the judges' decisions become the jury's (pure functions, no model calls),
shared by live juries and by juries of recorded judgments.
"""

from .rules import JuryVote, jury_pairwise, jury_listwise, check_weights

__all__ = ["JuryVote", "check_weights", "jury_listwise", "jury_pairwise"]
