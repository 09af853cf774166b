"""Where jurybox's length-controlled win rates differ from AlpacaEval's leaderboard, and why.

    python benchmarks/alpaca_eval_lc_diagnosis.py [MIRROR_GIT_DIR] [--keep DIR] [--draws N]

Three checks on AlpacaEval's recorded ``weighted_alpaca_eval_gpt4_turbo`` annotations (the
mirror and the extraction of ``benchmarks/alpaca_eval_check.py``; CC BY-NC 4.0 data, read
there, never copied into jurybox):

1. **Their coefficients, our difficulties.** AlpacaEval's repository keeps every system's
   fitted GLM coefficients (``src/alpaca_eval/metrics/weights/weighted_alpaca_eval_gpt4_turbo/
   length_controlled_v1/baseline_gpt4_1106_preview.csv``). Our difficulties are mapped to
   their scale by one shift and one scale, chosen so that their coefficients reproduce each
   system's *raw* win rate (the score equation of the system term; the LC column is not
   used), then LC = mean_i logistic(b_sys + b_diff * d_i) is compared with the leaderboard.
   Close agreement says the difficulties and the prediction step are right, and that the
   differences come from the per-system fits.
2. **The baseline's gamed variants, reconstructed.** AlpacaEval regularises every fit with
   the annotations of ``gpt4_1106_preview_verbose`` and ``_concise`` (a hub file, absent
   here). Their outputs are in the repository, and so are their fitted coefficients; the
   log loss depends on the targets only through ``X^T y``, which at the fit equals
   ``X^T q`` (q the fitted probabilities, up to the L1 penalty), so the rows with targets
   ``q`` stand in for the annotations. jurybox's fit is rerun with them at AlpacaEval's
   weight 0.2 (``regularized == "baseline"``) instead of the proxies.
3. **Sensitivity to the difficulty covariate.** AlpacaEval's leaderboard uses difficulties
   fitted in early 2024 on the systems of then (``instruction_difficulty.csv``, a hub file);
   its notebook reports that a re-estimate correlates with it at Pearson 0.958. ``--draws``
   times, our difficulties plus Gaussian noise at that correlation are used for the fits:
   how far does LC move?
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).parent))
from alpaca_eval_check import ANNOTATOR, LEADERBOARD, MIRROR, extract  # noqa: E402

from jurybox.ranking.comparisons import Comparison, Comparisons  # noqa: E402
from jurybox.ranking.difficulty import (InstructionDifficulty, against_baseline,  # noqa: E402
                                        estimate_difficulty, scaled_length)
from jurybox.ranking.length_controlled import length_controlled_win_rates  # noqa: E402
from jurybox.recorded.alpaca_eval import read_alpaca_eval  # noqa: E402

WEIGHTS = ("src/alpaca_eval/metrics/weights/weighted_alpaca_eval_gpt4_turbo/"
           "length_controlled_v1/baseline_gpt4_1106_preview.csv")
GAMED = ("gpt4_1106_preview_verbose", "gpt4_1106_preview_concise")
#: AlpacaEval's notebooks/instruction_difficulty.ipynb: Pearson of its re-estimate and the hub's.
HUB_PEARSON = 0.958


def _logistic(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _summary(ours: np.ndarray, theirs: np.ndarray, names: list[str]) -> str:
    d = np.abs(ours - theirs)
    return (f"Spearman {spearmanr(ours, theirs).statistic:.4f}, within 1 point "
            f"{int((d < 1).sum())}/{len(names)}, median |diff| {np.median(d):.2f}, max "
            f"{d.max():.2f} ({names[int(d.argmax())]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirror", nargs="?", default=MIRROR)
    parser.add_argument("--keep", help="extract here (and reuse it if already there)")
    parser.add_argument("--draws", type=int, default=3, help="noise draws of check 3 (0: skip)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        if not (root / LEADERBOARD).is_file():
            extract(args.mirror, root)
        weights_csv = root / "weights.csv"
        if not weights_csv.is_file():
            import subprocess
            weights_csv.write_bytes(subprocess.run(
                ["git", "-C", args.mirror, "show", f"HEAD:{WEIGHTS}"], check=True,
                capture_output=True).stdout)
        t0 = time.perf_counter()
        results = read_alpaca_eval(root / "results", annotator=ANNOTATOR, texts=False)
        comparisons, baseline = results.comparisons, results.baseline
        difficulty = estimate_difficulty(comparisons, baseline)
        print(f"read and difficulties in {time.perf_counter() - t0:.1f} s")
        with open(root / LEADERBOARD, newline="", encoding="utf-8") as fh:
            board = {r[""]: float(r["length_controlled_winrate"]) for r in csv.DictReader(fh)}
        with open(weights_csv, newline="", encoding="utf-8") as fh:
            coef = {r[""]: np.array([float(r["np.tanh(std_delta_len)"]),
                                     float(r["instruction_difficulty"]),
                                     float(r["not_gamed_baseline.astype(float)"])])
                    for r in csv.DictReader(fh)}
        base_outputs = json.loads((root / "results" / baseline / "model_outputs.json")
                                  .read_text(encoding="utf-8"))
        gamed_outputs = {g: json.loads((root / "results" / g / "model_outputs.json")
                                       .read_text(encoding="utf-8")) for g in GAMED}

    rows = against_baseline(comparisons, baseline)
    d_row = difficulty.for_prompts([comparisons.prompts[p] for p in rows.prompt])
    length = scaled_length(rows.delta_len, rows.system)
    names = [s for s in comparisons.systems if s in board and s in coef and s != baseline]
    mine = {s: rows.system == comparisons.system_index(s) for s in names}
    theirs = np.array([board[s] for s in names])

    # 1. their coefficients, our difficulties on their scale (from raw win rates only)
    def raw_error(ab: np.ndarray) -> np.ndarray:
        return np.array([_logistic(coef[s][0] * length[m] + coef[s][1] * (ab[0] * d_row[m] + ab[1])
                                   + coef[s][2]).mean() - rows.outcome[m].mean()
                         for s, m in mine.items()])
    a, b = minimize(lambda ab: float(np.sum(raw_error(ab) ** 2)), [1.0, 0.0],
                    method="Nelder-Mead").x
    lc1 = np.array([100 * _logistic(coef[s][2] + coef[s][1] * (a * d_row[m] + b)).mean()
                    for s, m in mine.items()])
    print(f"\n1. their coefficients, our difficulties (scale {a:.3f}, shift {b:+.3f}; raw win "
          f"rates reproduced within {100 * np.abs(raw_error(np.array([a, b]))).max():.2f} "
          f"points):\n   {_summary(lc1, theirs, names)}")

    # 2. the gamed baselines reconstructed from their outputs and coefficients
    order: dict[str, int] = {}
    for rec in base_outputs:
        order.setdefault(rec["instruction"], len(order))
    base_len = {rec["instruction"]: len(rec["output"]) for rec in base_outputs}
    extra: list[Comparison] = []
    for g, outputs in gamed_outputs.items():
        delta = np.array([base_len[o["instruction"]] - len(o["output"]) for o in outputs], float)
        d = difficulty.for_prompts([str(order[o["instruction"]]) for o in outputs])
        q = _logistic(coef[g][0] * np.tanh(delta / delta.std(ddof=1))
                      + coef[g][1] * (a * d + b) + coef[g][2])
        extra += [Comparison(str(order[o["instruction"]]), g, baseline, float(qi),
                             length_a=len(o["output"]), length_b=base_len[o["instruction"]])
                  for o, qi in zip(outputs, q)]
    t1 = time.perf_counter()
    with_gamed = Comparisons.of(list(comparisons.rows) + extra)
    lc2 = length_controlled_win_rates(with_gamed, baseline, difficulty=difficulty, rounds=0)
    regularized = {lc2[s].regularized for s in names}
    ours2 = np.array([lc2[s].lc_win_rate for s in names])
    print(f"\n2. gamed baselines reconstructed ({len(extra)} rows, regularised: "
          f"{', '.join(sorted(regularized))}; {time.perf_counter() - t1:.1f} s):\n   "
          f"{_summary(ours2, theirs, names)}")

    # 3. sensitivity to the difficulty covariate
    plain = length_controlled_win_rates(comparisons, baseline, difficulty=difficulty, rounds=0)
    ours = np.array([plain[s].lc_win_rate for s in names])
    print(f"\n3. jurybox as shipped: {_summary(ours, theirs, names)}")
    rng = np.random.default_rng(0)
    sd = float(difficulty.values.std())
    for k in range(args.draws):
        noisy = difficulty.values + rng.normal(0, sd * np.sqrt(1 / HUB_PEARSON ** 2 - 1),
                                               len(difficulty.values))
        r = float(np.corrcoef(noisy, difficulty.values)[0, 1])
        alt = length_controlled_win_rates(
            comparisons, baseline, difficulty=InstructionDifficulty(difficulty.prompts, noisy),
            rounds=0)
        moved = np.abs(np.array([alt[s].lc_win_rate for s in names]) - ours)
        print(f"   draw {k + 1} (Pearson {r:.3f} with ours): LC moves median "
              f"{np.median(moved):.2f}, max {moved.max():.2f} points, over 1 point for "
              f"{int((moved > 1).sum())}/{len(names)}")


if __name__ == "__main__":
    sys.exit(main())
