"""CLI options of the judging protocols, shared by ``bench`` and ``judge`` (declared once)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..limits import MAX_K
from ._options import PANEL_PROTOCOL, PANEL_START

__all__ = ["AdaptiveOpt", "ConfidenceOpt", "CriteriaOpt", "K", "MinK", "PairwiseRuleOpt",
           "TemplateOpt", "Tolerance", "VerdictFormatOpt", "WeightsOpt"]

K = Annotated[int, typer.Option(envvar="JURYBOX_K", min=1, max=MAX_K, metavar="K",
                                rich_help_panel=PANEL_START,
                                help="Listwise: PCF permutations (shown orders) per item, at "
                                "most n! for n candidates.")]
Tolerance = Annotated[float, typer.Option(
    envvar="JURYBOX_TOLERANCE", metavar="POINTS", rich_help_panel=PANEL_PROTOCOL,
    help="Listwise: winners within this many C_i points.")]
WeightsOpt = Annotated[str, typer.Option(
    "--weights", envvar="JURYBOX_WEIGHTS", metavar="M,B,V,U", rich_help_panel=PANEL_PROTOCOL,
    help="Listwise: C_i weights of the mean score, Borda count, top-set vote and "
    "calibrated-uncertainty share.")]
VerdictFormatOpt = Annotated[Optional[str], typer.Option(
    "--verdict-format", envvar="JURYBOX_VERDICT_FORMAT", metavar="FORMAT",
    rich_help_panel=PANEL_PROTOCOL, help="Pairwise: ask for a verdict "
    "token ([[A>B]]) or JSON ({\"verdict\": ...}): token or json (default: token).")]
PairwiseRuleOpt = Annotated[Optional[str], typer.Option(
    "--pairwise-rule", envvar="JURYBOX_PAIRWISE_RULE", metavar="RULE",
    rich_help_panel=PANEL_PROTOCOL, help="both-orders: combine the two "
    "orders by net vote (a win and a tie make a win) or strict (MT-Bench: a win only when "
    "both orders agree, else a tie): net or strict (default: net).")]
AdaptiveOpt = Annotated[Optional[str], typer.Option(
    "--adaptive", envvar="JURYBOX_ADAPTIVE", metavar="MODE", rich_help_panel=PANEL_PROTOCOL,
    help="PCF: stop asking orders early. exact: once "
    "no outcome of the remaining orders can change the winners (the same decisions as all "
    "K, fewer calls); sequential: once the top pick is settled at --confidence (LOSSY: may "
    "differ from all K); off (default).")]
ConfidenceOpt = Annotated[Optional[float], typer.Option(
    "--confidence", envvar="JURYBOX_CONFIDENCE", metavar="P", rich_help_panel=PANEL_PROTOCOL,
    help="PCF --adaptive sequential: confidence "
    "in (0, 1) that the top pick is settled (default 0.95).")]
MinK = Annotated[Optional[int], typer.Option(
    "--min-k", envvar="JURYBOX_MIN_K", metavar="K", rich_help_panel=PANEL_PROTOCOL,
    help="PCF --adaptive sequential: successful orders before any stop (default 3).")]
CriteriaOpt = Annotated[Optional[str], typer.Option(
    "--criteria", envvar="JURYBOX_CRITERIA", metavar="TEXT", rich_help_panel=PANEL_PROTOCOL,
    help="Judge by this text instead of the default "
    "instructions (listwise: factual accuracy; pairwise: correctness), e.g. \"correct and "
    "useful to a beginner\".")]
TemplateOpt = Annotated[Optional[Path], typer.Option(
    "--template", envvar="JURYBOX_TEMPLATE", metavar="FILE", rich_help_panel=PANEL_PROTOCOL,
    help="Prompt template file: "
    "places {question} and {candidates} once each, optionally {format} (appended when "
    "absent) and {criteria} (required with --criteria); {{ and }} are literal braces.")]
