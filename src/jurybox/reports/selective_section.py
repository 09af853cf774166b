"""The report's selective-judging section: ``RUN/selective.json`` (written by ``bench`` or
``judge --target-agreement``) as a table, one row per protocol, and the guarantee; nothing
when the run has none. No statistic is computed here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .sections import Table, pct

__all__ = ["selective_section"]


def selective_section(run_dir: Path) -> dict[str, Any] | None:
    """The section's title, table and sentences, or None without a readable selective.json
    (a damaged one is left out, never an error: the report stays readable)."""
    from ..rundir.layout import SELECTIVE_FILE

    try:
        data = json.loads((run_dir / SELECTIVE_FILE).read_text(encoding="utf-8"))
        sel = data["selective"]
        sets = [s for s in sel["sets"] if isinstance(s, dict)]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    rows = []
    for s in sets:
        test = s.get("test") or {}
        rule = (s.get("rules") or {}).get(s.get("signal") or "") or {}
        ci = test.get("agreement_ci") or [None, None]
        rows.append([str(s.get("strategy", "")), str(s.get("signal") or "cannot certify"),
                     "—" if rule.get("threshold") is None else f"{rule['threshold']:.2f}",
                     f"{test.get('n_accepted', 0)} of {test.get('n', 0)}",
                     pct(test.get("coverage")), pct(test.get("agreement")),
                     f"{pct(ci[0])} to {pct(ci[1])}" if None not in ci else "—",
                     str(s.get("guarantee", ""))])
    target, delta = sel.get("target"), sel.get("delta")
    caption = (f"Calibrated on {pct(sel.get('calibration_share'))}% of the labelled items "
               f"(seed {sel.get('seed')}); accepted, coverage and agreement (with its Wilson "
               f"95% interval) are on the other labelled items. An item that failed is never "
               f"accepted. Trust or Escalate (Jung et al., ICLR 2025), section 3.1.")
    from ..stats.selective import percent

    shown = percent(target) if isinstance(target, (int, float)) else "?"
    return {"title": f"Selective judging: target {shown} agreement, delta {delta}",
            "table": Table(["protocol", "signal", "threshold", "accepted", "coverage %",
                            "agreement %", "95% CI", "guarantee"], rows, caption)}
