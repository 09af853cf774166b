"""``jurybox score ... --learn-weights``: jury rules compared out of sample on recorded
judgments (:func:`jurybox.recorded.learned.jury_rules_split`), averaged over seeded splits."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from rich.table import Table

from ._declared import declared
from ..errors import ConfigError
from ..terminal import data, safe_text
from ._common import console
from ._fit import print_table

if TYPE_CHECKING:
    from ..recorded import Recording

__all__ = ["LearnOpt", "SplitsOpt", "print_learned"]

LearnOpt = Annotated[bool, declared("--learn-weights")]
SplitsOpt = Annotated[int, declared("--splits", min=1, max=10000)]

#: The rules shown, in order, and their names in the table.
RULES = (("unweighted", "unweighted"), ("learned", "learned weights"),
         ("dawid-skene", "Dawid-Skene"), ("best judge", "best judge"))


def _spread(values: list[float]) -> tuple[str, str]:
    import numpy as np

    x = np.array([v for v in values if v == v])  # NaN: a split where the rule decided nothing
    if not len(x):
        return "—", ""
    lo, hi = np.percentile(x, [2.5, 97.5])
    return f"{100 * x.mean():.1f}", f"[{np.floor(100 * lo):.0f}, {np.ceil(100 * hi):.0f}]"


def print_learned(recordings: list[Recording], *, share: float, seed: int, splits: int,
                  out: Path | None) -> list[dict[str, Any]]:
    """Per (subset, strategy) with two or more judges, the rules' mean test accuracy over
    ``splits`` seeded splits; the table, and ``out/summary.json`` ``learned`` with ``out``.

    Raises:
        ConfigError: no set with two or more judges; a share outside (0, 1).
    """
    import numpy as np

    from ..recorded.confidence import signal_table
    from ..recorded.jury import jury_groups
    from ..recorded.learned import jury_rules_split
    from ..rundir import write_json_atomic

    if not 0 < share < 1:
        raise ConfigError(f"--calibration-share must be in (0, 1), got {share:g}")
    groups = jury_groups(recordings)
    if not groups:
        raise ConfigError("--learn-weights compares jury rules: no set here was judged by two "
                          "or more judges")
    table = Table(title=f"jury rules out of sample: learned on {100 * share:g}% of each set, "
                  f"scored on the rest; mean test accuracy over {splits} seeded splits "
                  f"[2.5, 97.5 percentiles]", title_justify="left")
    table.add_column("set, strategy: rule", overflow="fold", max_width=24)
    table.add_column("accuracy %", justify="right")
    table.add_column("spread", justify="right")
    table.add_column("note", overflow="fold", max_width=20)
    found = []
    for (subset, strategy), group in groups.items():
        try:
            runs = [jury_rules_split(signal_table(group), calibration_share=share, seed=s)
                    for s in range(seed, seed + splits)]
        except ValueError as exc:
            raise ConfigError(f"{subset} {strategy}: {exc}") from None
        judges = runs[0].judges
        weights = np.mean([r.weights["learned"] for r in runs], axis=0)
        best = Counter(r.best_judge for r in runs).most_common(1)[0][0]
        notes = {"learned": ", ".join(f"{j} {w:.2f}" for j, w in sorted(
                     zip(judges, weights), key=lambda x: -x[1])[:3]),
                 "best judge": f"{best}, most often"}
        from rich.text import Text

        table.add_row(Text("\n").join(data(x) for x in (
            subset, f"{strategy or '-'}: {runs[0].n_test} test pairs")), style="bold")
        row: dict[str, Any] = {"subset": subset, "strategy": strategy, "judges": judges,
                               "n_test": runs[0].n_test, "splits": splits, "accuracy": {}}
        for key, name in RULES:
            values = [r.accuracy[key] for r in runs]
            mean, spread = _spread(values)
            table.add_row(data(f"  {name}"), mean, spread, data(notes.get(key, "")))
            row["accuracy"][key] = float(np.nanmean(values)) if mean != "—" else None
        coverage = float(np.mean([r.strict[0] for r in runs]))
        mean, spread = _spread([r.strict[1] for r in runs])
        table.add_row("  strict majority", mean, spread, f"decides {100 * coverage:.1f}%")
        eff = float(np.mean([r.effective_judges for r in runs]))
        table.add_row("  effective judges", f"{eff:.2f}", f"of {len(judges)}",
                      "from their errors", end_section=True)
        row.update(strict_coverage=coverage, effective_judges=eff,
                   learned_weights=dict(zip(judges, map(float, weights))), best_judge=best)
        found.append(row)
    table.caption = ("learned weights: log-odds of each judge's calibration accuracy "
                     "(Laplace's rule; 0 at or below chance); Dawid-Skene: one-coin, fitted "
                     "on every item's votes without labels; best judge: the most accurate on "
                     "the calibration items; strict majority: decides only when more than "
                     "half of the voting judges agree. A tie or no decision is wrong.")
    table.caption_justify = "left"
    print_table(table)
    if out is not None:
        write_json_atomic(out / "summary.json", {"learned": found})
        console.print(safe_text(f"written: {out / 'summary.json'}"), markup=False)
    return found
