"""A ranking from the verdicts whose agreement with humans is guaranteed (``jurybox rank
OUTPUTS --target-agreement P --calibration FILE``): the judge also judges a file of labelled
pairs, with the same protocol and settings (``OUT/calibration``, a judge run); its confidence
threshold is calibrated on a seeded share of them and measured on the rest
(:func:`jurybox.judging.selective.selective_judgments`; Trust or Escalate, Jung et al., ICLR
2025, section 3.1), then applied to the ranking's pairs: the leaderboard counts only the
pairs it accepts. Abstained pairs are left out, not counted as ties; the guarantee holds for
ranking pairs drawn like the calibration pairs.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..judging.selective import accepted_items, run_judgments, selective_judgments
from ..stats.selective import SelectiveResult, guarantee_text

__all__ = ["CALIBRATION_FOLDER", "selective_pairs", "selective_summary"]

#: The calibration pairs' judge run, inside the ranking's folder.
CALIBRATION_FOLDER = "calibration"


def selective_pairs(calibration_run: Path, judge_run: Path, *, target: float, delta: float,
                    calibration_share: float = 0.5, seed: int = 0
                    ) -> tuple[SelectiveResult, set[str]]:
    """Calibrate on the labelled pairs of ``calibration_run`` and apply the rule to the
    ranking's pairs in ``judge_run``.

    Returns:
        The rule and its outcome on the held-out labelled pairs (``unlabelled``: the
        ranking's pairs accepted and judged), and the accepted pairs' item ids.

    Raises:
        ConfigError: the calibration file has fewer than 2 labelled pairs, or no pairwise
            verdicts; as :func:`~jurybox.stats.selective.calibrate_threshold`.
    """
    labelled = [j for j in run_judgments(calibration_run) if j.task == "pairwise"]
    try:
        results = selective_judgments(labelled, dataset="calibration", target=target,
                                      delta=delta, calibration_share=calibration_share,
                                      seed=seed)
    except ValueError as exc:
        raise ConfigError(f"--calibration: {exc}") from None
    if len(results) != 1:
        raise ConfigError(f"--calibration: the judge run {calibration_run} holds "
                          f"{len(results)} protocols' verdicts, not one")
    ranked = run_judgments(judge_run)
    accepted = accepted_items(results[0], ranked)
    return replace(results[0], unlabelled=(len(accepted), len(ranked))), accepted


def selective_summary(result: SelectiveResult, calibration: str) -> dict[str, Any]:
    """summary.json's ``selective``: the rule, its outcome on the held-out calibration pairs,
    the ranking's pairs accepted of those judged, and the guarantee as a sentence."""
    used = (result.rules[result.signal] if result.signal else
            max(result.rules.values(), key=lambda c: c.n_calibration)).n_calibration
    return {**asdict(result), "calibration": calibration,
            "pairs_accepted": result.unlabelled[0], "pairs_judged": result.unlabelled[1],
            "guarantee": guarantee_text(result.target, result.delta, result.signal, used)}
