"""CLI options of the judging protocols, shared by ``bench`` and ``judge`` (declared once)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

from ._declared import declared
from ..limits import MAX_K
from ..providers.base import MAX_TOP_LOGPROBS

__all__ = ["AdaptiveOpt", "ConfidenceOpt", "CriteriaOpt", "K", "LogprobsOpt", "MinK",
           "PairwiseRuleOpt", "TemplateOpt", "Tolerance", "VerdictFormatOpt", "WeightsOpt"]

K = Annotated[int, declared("--k", min=1, max=MAX_K)]
Tolerance = Annotated[float, declared("--tolerance")]
WeightsOpt = Annotated[str, declared("--weights")]
VerdictFormatOpt = Annotated[Optional[str], declared("--verdict-format")]
PairwiseRuleOpt = Annotated[Optional[str], declared("--pairwise-rule")]
LogprobsOpt = Annotated[Optional[int], declared("--logprobs", min=2, max=MAX_TOP_LOGPROBS)]
AdaptiveOpt = Annotated[Optional[str], declared("--adaptive")]
ConfidenceOpt = Annotated[Optional[float], declared("--confidence")]
MinK = Annotated[Optional[int], declared("--min-k")]
CriteriaOpt = Annotated[Optional[str], declared("--criteria")]
TemplateOpt = Annotated[Optional[Path], declared("--template")]
