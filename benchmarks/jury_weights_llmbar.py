"""Learned jury weights against an unweighted jury and each judge alone, out of sample, on
LLMBar's recorded real judges (issue 32's must-show).

Per group and seeded 50/50 split (``--splits``): the log-odds weights and the "best judge" are
learned on the calibration half's labels, the one-coin Dawid-Skene weights on every item's
votes without labels, and every rule is scored on the test half
(:func:`jurybox.recorded.learned.jury_rules_split`). Printed: each rule's mean test accuracy
over the splits with the 2.5-97.5 percentiles of the split-to-split spread; the share of splits
in which the learned jury beat GPT-4 alone; the strict majority's coverage and accuracy; the
effective number of independent judges. No model call: the bundled LLMBar recordings
(princeton-nlp/LLMBar, MIT).

Run: ``PYTHONPATH=src python benchmarks/jury_weights_llmbar.py --splits 500``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from jurybox.recorded.bundle import load_bundled
from jurybox.recorded.confidence import signal_table
from jurybox.recorded.learned import jury_rules_split
from jurybox.recorded.pool import pool_subsets

GROUPS = [("Processed/MT-Bench", "Vanilla_NoRules"), ("Processed/MT-Bench", "Metrics_Reference"),
          ("LLMBar/Adversarial (pooled)", "Vanilla"), ("LLMBar/Adversarial (pooled)", "CoT"),
          ("LLMBar/Natural", "Vanilla")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--splits", type=int, default=500)
    args = ap.parse_args()
    start = time.perf_counter()
    recordings = load_bundled("llmbar")
    every = recordings + pool_subsets(recordings)
    print(f"{args.splits} random 50/50 splits per group; test accuracy: mean [2.5, 97.5 "
          f"percentiles over splits]")
    for subset, strategy in GROUPS:
        table = signal_table([r for r in every if r.subset == subset and r.strategy == strategy])
        runs = [jury_rules_split(table, seed=s) for s in range(args.splits)]
        print(f"\n{subset}, {strategy}: {table.n} pairs, judges {', '.join(table.judges)}")
        for rule in ("unweighted", "learned", "dawid-skene", "best judge", "judge:GPT-4"):
            x = np.array([r.accuracy[rule] for r in runs])
            lo, hi = np.nanpercentile(x, [2.5, 97.5])
            print(f"  {rule:14} {np.nanmean(x):6.1%} [{lo:6.1%}, {hi:6.1%}]")
        beat = np.mean([r.accuracy["learned"] > r.accuracy["judge:GPT-4"] for r in runs])
        ties = np.mean([r.accuracy["learned"] == r.accuracy["judge:GPT-4"] for r in runs])
        cov = np.mean([r.strict[0] for r in runs])
        acc = np.nanmean([r.strict[1] for r in runs])
        eff = np.mean([r.effective_judges for r in runs])
        weights = np.mean([r.weights["learned"] for r in runs], axis=0)
        print(f"  learned > GPT-4 alone in {beat:.1%} of splits (equal in {ties:.1%}); mean "
              f"learned weights {', '.join(f'{j} {w:.2f}' for j, w in zip(table.judges, weights))}")
        print(f"  strict majority: coverage {cov:.1%}, accuracy {acc:.1%}; effective "
              f"independent judges {eff:.2f} of {len(table.judges)}")
    print(f"\ntotal {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
