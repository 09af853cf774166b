"""Check jurybox's raw and length-controlled win rates against AlpacaEval's leaderboard.

    python benchmarks/alpaca_eval_check.py [MIRROR_GIT_DIR] [--rounds N] [--keep DIR]

MIRROR_GIT_DIR: a git directory of github tatsu-lab/alpaca_eval (default
/work/.mirror/tatsu-lab+alpaca_eval/repo). Its ``results/`` folder and
``src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv``
are written to a temporary folder, file by file (``git archive`` stops at the first blob a
partial mirror lacks; those files are skipped and counted). AlpacaEval's data are CC BY-NC
4.0: they are read there, never copied into jurybox.

Prints, per system on the leaderboard, the raw win rate and the LC win rate (ours, with a
95% prompt-bootstrap CI of ``--rounds`` rounds, default 200; 0: none) beside the CSV's
``win_rate`` and ``length_controlled_winrate``; then the largest |difference| of the raw win
rates, Spearman's rho and the largest |difference| of the LC ones, the share within 1 point,
and the time of each step.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from jurybox.ranking.difficulty import estimate_difficulty
from jurybox.ranking.length_controlled import length_controlled_win_rates
from jurybox.recorded.alpaca_eval import read_alpaca_eval

MIRROR = "/work/.mirror/tatsu-lab+alpaca_eval/repo"
LEADERBOARD = ("src/alpaca_eval/leaderboards/data_AlpacaEval_2/"
               "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv")
ANNOTATOR = "weighted_alpaca_eval_gpt4_turbo"


def extract(git_dir: str, out: Path) -> tuple[int, int]:
    """Write results/ and the leaderboard CSV of HEAD under ``out``: (written, absent)."""
    listing = subprocess.run(["git", "-C", git_dir, "ls-tree", "-r", "-z", "HEAD", "results/",
                              LEADERBOARD], check=True, capture_output=True).stdout
    written = absent = 0
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        sha = meta.split()[2].decode()
        blob = subprocess.run(["git", "-C", git_dir, "cat-file", "blob", sha],
                              capture_output=True)
        if blob.returncode != 0:
            absent += 1
            continue
        target = out / path.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)
        written += 1
    return written, absent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirror", nargs="?", default=MIRROR)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--keep", help="extract here (and reuse it if already there)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        t0 = time.perf_counter()
        if not (root / LEADERBOARD).is_file():
            written, absent = extract(args.mirror, root)
            print(f"extracted {written} files ({absent} absent from the mirror) in "
                  f"{time.perf_counter() - t0:.1f} s")
        t1 = time.perf_counter()
        results = read_alpaca_eval(root / "results", annotator=ANNOTATOR, texts=False)
        comparisons = results.comparisons
        t2 = time.perf_counter()
        print(f"read {len(comparisons)} annotations of {len(comparisons.systems) - 1} "
              f"systems vs {results.baseline} ({sum(results.failed.values())} failed, "
              f"{len(results.skipped)} folders without {ANNOTATOR}) in {t2 - t1:.1f} s")
        difficulty = estimate_difficulty(comparisons, results.baseline)
        t3 = time.perf_counter()
        print(f"instruction difficulty: {len(difficulty.prompts)} prompts from "
              f"{difficulty.n_systems} systems, C={difficulty.c:.3g}, in {t3 - t2:.1f} s")
        lc = length_controlled_win_rates(comparisons, results.baseline, difficulty=difficulty,
                                         rounds=args.rounds)
        t4 = time.perf_counter()
        regularized = {v.regularized for v in lc.values()}
        print(f"LC win rates of {len(lc)} systems ({args.rounds} bootstrap rounds, "
              f"regularised: {', '.join(sorted(regularized)) or 'no'}) in {t4 - t3:.1f} s")
        with open(root / LEADERBOARD, newline="", encoding="utf-8") as fh:
            board = {row[""]: row for row in csv.DictReader(fh)}
    names = [n for n in lc if n in board]
    print(f"\n{'system':38} {'n':>4} {'raw':>6} {'theirs':>6} {'LC':>6} {'95% CI':>13} "
          f"{'theirs':>6}")
    for n in sorted(names, key=lambda n: -lc[n].lc_win_rate):
        r = lc[n]
        ci = f"[{r.lc_ci.low:.1f}, {r.lc_ci.high:.1f}]" if args.rounds else ""
        print(f"{n[:38]:38} {r.n:4d} {r.win_rate:6.2f} {float(board[n]['win_rate']):6.2f} "
              f"{r.lc_win_rate:6.2f} {ci:>13} {float(board[n]['length_controlled_winrate']):6.2f}")
    raw = np.array([lc[n].win_rate - float(board[n]["win_rate"]) for n in names])
    ours = np.array([lc[n].lc_win_rate for n in names])
    theirs = np.array([float(board[n]["length_controlled_winrate"]) for n in names])
    diff = np.abs(ours - theirs)
    worst = names[int(diff.argmax())]
    print(f"\n{len(names)} systems on the leaderboard ({len(lc) - len(names)} not)")
    print(f"raw win rate: max |diff| {np.abs(raw).max():.2e} points")
    print(f"LC win rate: Spearman {spearmanr(ours, theirs).statistic:.4f}, max |diff| "
          f"{diff.max():.2f} points ({worst}), within 1 point: {int((diff < 1).sum())}/"
          f"{len(names)}, median |diff| {np.median(diff):.2f}")
    print(f"time: read {t2 - t1:.1f} s, difficulty {t3 - t2:.1f} s, LC {t4 - t3:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
