"""CLI options of the judging protocols, shared by ``bench`` and ``judge`` (declared once)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

from ..limits import MAX_K
from ..providers.base import MAX_TOP_LOGPROBS
from ._options import PANEL_PROTOCOL, PANEL_START, rule_option

__all__ = ["AdaptiveOpt", "ConfidenceOpt", "CriteriaOpt", "K", "LogprobsOpt", "MinK",
           "PairwiseRuleOpt", "TemplateOpt", "Tolerance", "VerdictFormatOpt", "WeightsOpt"]

K = Annotated[int, rule_option("--k", PANEL_START, min=1, max=MAX_K, metavar="K",
    help="Listwise: PCF permutations (shown orders) per item, at "
                                "most n! for n candidates.")]
Tolerance = Annotated[float, rule_option("--tolerance", PANEL_PROTOCOL, metavar="POINTS",
    help="Listwise: winners within this many C_i points.")]
WeightsOpt = Annotated[str, rule_option("--weights", PANEL_PROTOCOL, metavar="M,B,V,U",
    help="Listwise: C_i weights of the mean score, Borda count, top-set vote and "
    "calibrated-uncertainty share.")]
VerdictFormatOpt = Annotated[Optional[str], rule_option("--verdict-format", PANEL_PROTOCOL,
    metavar="FORMAT", help="Pairwise: ask for a verdict "
    "token ([[A>B]]) or JSON ({\"verdict\": ...}): token or json (default: token).")]
PairwiseRuleOpt = Annotated[Optional[str], rule_option("--pairwise-rule", PANEL_PROTOCOL,
    metavar="RULE", help="both-orders: combine the two "
    "orders by net vote (a win and a tie make a win) or strict (MT-Bench: a win only when "
    "both orders agree, else a tie): net or strict (default: net).")]
LogprobsOpt = Annotated[Optional[int], rule_option("--logprobs", PANEL_PROTOCOL, metavar="N",
    min=2, max=MAX_TOP_LOGPROBS, help="Pairwise: ask the endpoint for each answer token's "
    "log-probability and its N likeliest alternatives (at least 2: the verdict's A and B; "
    "OpenAI-compatible logprobs: OpenAI, vLLM, llama.cpp, the simulated judge; not "
    "Anthropic), and record each verdict's token "
    "probability: a confidence signal that --target-agreement calibrates next to order "
    "agreement. Changes the cache key (default: not asked).")]
AdaptiveOpt = Annotated[Optional[str], rule_option("--adaptive", PANEL_PROTOCOL, metavar="MODE",
    help="PCF: stop asking orders early. exact: once "
    "no outcome of the remaining orders can change the winners (the same decisions as all "
    "K, fewer calls); sequential: once the top pick is settled at --confidence (LOSSY: may "
    "differ from all K); off (default).")]
ConfidenceOpt = Annotated[Optional[float], rule_option("--confidence", PANEL_PROTOCOL, metavar="P",
    help="PCF --adaptive sequential: confidence "
    "in (0, 1) that the top pick is settled (default 0.95).")]
MinK = Annotated[Optional[int], rule_option("--min-k", PANEL_PROTOCOL, metavar="K",
    help="PCF --adaptive sequential: successful orders before any stop (default 3).")]
CriteriaOpt = Annotated[Optional[str], rule_option("--criteria", PANEL_PROTOCOL, metavar="TEXT",
    help="Judge by this text instead of the default "
    "instructions (listwise: factual accuracy; pairwise: correctness), e.g. \"correct and "
    "useful to a beginner\".")]
TemplateOpt = Annotated[Optional[Path], rule_option("--template", PANEL_PROTOCOL, metavar="FILE",
    help="Prompt template file: "
    "places {question} and {candidates} once each, optionally {format} (appended when "
    "absent) and {criteria} (required with --criteria); {{ and }} are literal braces.")]
