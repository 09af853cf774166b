"""Time Bradley-Terry with prompt-bootstrap CIs on an AlpacaEval-sized synthetic set.

60 systems x 805 prompts, each system judged against one baseline (AlpacaEval's pairing),
and an all-pairs sample of the same size (805 prompts, 60 random pairs per prompt), for 100
and 1000 bootstrap rounds, plain and style-controlled (length only: no texts).

    PYTHONPATH=src python benchmarks/rank_fit.py [--rounds 100 1000] [--style-rounds 100 1000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from jurybox.ranking.bradley_terry import fit_bradley_terry
from jurybox.ranking.comparisons import Comparison, Comparisons
from jurybox.ranking.style import style_controlled_bt

SYSTEMS, PROMPTS = 60, 805


def synthetic(pairing: str, seed: int = 0) -> Comparisons:
    """Simulated BT data: strengths ~ N(0, 1) logits, lengths 200-3000 chars, 5% ties."""
    rng = np.random.default_rng(seed)
    names = [f"system{i:02d}" for i in range(SYSTEMS)]
    strength = rng.normal(0.0, 1.0, SYSTEMS)
    rows = []
    for p in range(PROMPTS):
        if pairing == "baseline":
            pairs = [(i, 0) for i in range(1, SYSTEMS)]
        else:
            pairs = [tuple(rng.choice(SYSTEMS, 2, replace=False)) for _ in range(SYSTEMS - 1)]
        for i, j in pairs:
            win = 1.0 / (1.0 + np.exp(-(strength[i] - strength[j])))
            u = rng.random()
            outcome = 0.5 if u < 0.05 else float(rng.random() < win)
            rows.append(Comparison(f"p{p}", names[i], names[j], outcome,
                                   length_a=int(rng.integers(200, 3000)),
                                   length_b=int(rng.integers(200, 3000))))
    return Comparisons.of(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--style-rounds", type=int, nargs="*", default=[100, 1000])
    args = parser.parse_args()
    for pairing in ("baseline", "all-pairs"):
        data = synthetic(pairing)
        baseline = "system00"
        for rounds in args.rounds:
            start = time.perf_counter()
            fit_bradley_terry(data, baseline, rounds=rounds, seed=1)
            seconds = time.perf_counter() - start
            print(f"BT {pairing:9} {len(data):6d} comparisons {rounds:5d} rounds: "
                  f"{seconds:6.2f} s")
        for rounds in args.style_rounds:
            start = time.perf_counter()
            style_controlled_bt(data, baseline, rounds=rounds, seed=1)
            seconds = time.perf_counter() - start
            print(f"style BT {pairing:9} {len(data):6d} comparisons {rounds:5d} rounds: "
                  f"{seconds:6.2f} s")


if __name__ == "__main__":
    main()
