"""``jurybox export RUN`` for a run with ``RUN/selective.json`` (``bench``/``judge
--target-agreement``): ``export/selective.<format>``, one row per protocol: the rule
calibrated (signal, threshold, calibration items, disagreements, Clopper-Pearson bound), its
outcome on the test items (accepted, coverage, agreement and its CI) and the guarantee."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .export import write_table

__all__ = ["SELECTIVE_COLUMNS", "export_selective", "selective_rows"]

#: The table's first columns, in order.
SELECTIVE_COLUMNS = ("protocol", "signal", "target", "delta", "threshold", "n_calibration",
                     "calibration_accepted", "calibration_disagree", "upper_bound", "n_test",
                     "accepted", "coverage", "agreement", "agreement_low", "agreement_high",
                     "unlabelled_accepted", "unlabelled", "guarantee")


def selective_rows(selective: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per set of a ``selective`` object (summary.json's or selective.json's)."""
    rows = []
    for s in selective.get("sets") or []:
        rules = s.get("rules") or {}
        rule = rules.get(s.get("signal") or "") or (
            next(iter(rules.values())) if len(rules) == 1 else {})  # the one tried
        test = s.get("test") or {}
        low, high = (test.get("agreement_ci") or [None, None])[:2]
        unlabelled = s.get("unlabelled") or [0, 0]
        rows.append({"protocol": s.get("strategy"), "signal": s.get("signal"),
                     "target": s.get("target"), "delta": s.get("delta"),
                     "threshold": rule.get("threshold"), "n_calibration": s.get("n_calibration"),
                     "calibration_accepted": rule.get("n_accepted"),
                     "calibration_disagree": rule.get("n_disagree"),
                     "upper_bound": rule.get("upper_bound"), "n_test": test.get("n"),
                     "accepted": test.get("n_accepted"), "coverage": test.get("coverage"),
                     "agreement": test.get("agreement"), "agreement_low": low,
                     "agreement_high": high, "unlabelled_accepted": unlabelled[0],
                     "unlabelled": unlabelled[1], "guarantee": s.get("guarantee")})
    return rows


def export_selective(run: Path, out: Path, format: str) -> tuple[Path, int] | None:
    """Write ``out/selective.<format>`` from ``run/selective.json``; None when the run has
    none (or an unreadable one). Raises RunWriteError: the file cannot be written."""
    from ..rundir.layout import SELECTIVE_FILE

    try:
        selective = json.loads((run / SELECTIVE_FILE).read_text(encoding="utf-8"))["selective"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    rows = selective_rows(selective)
    target = out / f"selective.{format}"
    return target, write_table(target, format, SELECTIVE_COLUMNS, lambda: rows)
