"""Selective judging with a guarantee on LLMBar's recorded real judges (issue 32's must-show).

For each group (subset, strategy), signal or cascade, and target agreement: ``--splits``
seeded random 50/50 splits of the items into calibration and test halves; on each, the rule
is calibrated on one half (Trust or Escalate's fixed-sequence test with the exact binomial
bound, ``--delta``) and applied to the other. Printed per row: the share of splits whose
accepted test verdicts agree with the human labels less often than the target ("fail", to
compare with delta + 0.03), with its Wilson 95% interval; the mean coverage (accepted share of
the test half); the mean agreement on the accepted; for cascades, the mean share of test items
that reached the last (strongest) judge. No model call: the bundled LLMBar recordings
(princeton-nlp/LLMBar, MIT).

Run: ``PYTHONPATH=src python benchmarks/selective_llmbar.py --splits 500``
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from jurybox.recorded.bundle import load_bundled
from jurybox.recorded.confidence import named_signal, signal_table
from jurybox.recorded.selective import cascade_split, selective_split
from jurybox.stats import wilson_interval

GROUPS = [("Processed/MT-Bench", "Vanilla_NoRules"), ("LLMBar/Natural", "Vanilla")]
SIGNALS = ["order:GPT-4", "jury", "jury:GPT-4", "lex:GPT-4"]
#: how a cascade's stages are calibrated (jurybox.recorded.selective.cascade_split)
CASCADE_RULES = ("per-stage", "joint", "auto")
CHEAP = {"Processed/MT-Bench": "ChatGPT+LLaMA2+PaLM2",
         "LLMBar/Natural": "ChatGPT+LLaMA2+PaLM2"}
TARGETS = (0.80, 0.85, 0.90)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--splits", type=int, default=500)
    ap.add_argument("--delta", type=float, default=0.1)
    ap.add_argument("--strategies", action="store_true",
                    help="instead: LLMBar Natural's every strategy at target 0.9")
    args = ap.parse_args()
    start = time.perf_counter()
    recordings = load_bundled("llmbar")
    if args.strategies:
        sweep(recordings, args.splits, args.delta)
        print(f"total {time.perf_counter() - start:.1f} s")
        return
    print(f"{args.splits} random 50/50 splits per row, delta {args.delta}; fail: share of "
          f"splits whose test agreement < target [Wilson 95%]; must be <= delta + 0.03")
    print(f"{'group':32} {'rule':42} {'target':>6} {'fail':>20} {'coverage':>8} "
          f"{'agree':>6} {'to GPT-4':>8}")
    for subset, strategy in GROUPS:
        table = signal_table([r for r in recordings
                              if r.subset == subset and r.strategy == strategy])
        group = f"{subset.split('/')[-1]} {strategy} (n={table.n})"
        rules: list[tuple[str, object]] = [(s, s) for s in SIGNALS]
        for how in CASCADE_RULES:
            rules += [(f"{how}: ChatGPT > GPT-4", (how, ["ChatGPT", "GPT-4"])),
                      (f"{how}: {CHEAP[subset]} > GPT-4", (how, [CHEAP[subset], "GPT-4"]))]
        for label, rule in rules:
            for target in TARGETS:
                fails, cov, agree, last = 0, [], [], []
                for seed in range(args.splits):
                    if isinstance(rule, str):
                        out = selective_split(table, target=target, delta=args.delta,
                                              seed=seed, signals=[rule]).test
                    else:
                        how, stages = rule
                        res = cascade_split(table, stages, target=target, delta=args.delta,
                                            seed=seed, rule=how)
                        out = res.test
                        last.append(res.share_reaching(len(stages) - 1))
                    fails += out.n_accepted > 0 and out.agreement < target
                    cov.append(out.coverage)
                    if out.n_accepted:
                        agree.append(out.agreement)
                share = fails / args.splits
                lo, hi = wilson_interval(share, args.splits)
                to_last = f"{np.mean(last):8.1%}" if last else f"{'':8}"
                mean_agree = np.mean(agree) if agree else math.nan
                print(f"{group:32} {label:42} {target:6.2f} {share:6.3f} [{lo:.3f}, {hi:.3f}] "
                      f"{np.mean(cov):8.1%} {mean_agree:6.1%} {to_last}")
    print(f"total {time.perf_counter() - start:.1f} s")


def sweep(recordings: list, splits: int, delta: float, target: float = 0.9) -> None:
    """Natural's strategies: each signal's fail share and mean coverage at ``target``."""
    print(f"LLMBar Natural, target {target}, delta {delta}, {splits} splits per cell: "
          f"fail share / mean coverage")
    for strategy in sorted({r.strategy for r in recordings if r.subset == "LLMBar/Natural"}):
        table = signal_table([r for r in recordings
                              if r.subset == "LLMBar/Natural" and r.strategy == strategy])
        cells = []
        for name in SIGNALS:
            if named_signal(table, name) is None:
                continue
            fails, cov = 0, 0.0
            for seed in range(splits):
                out = selective_split(table, target=target, delta=delta, seed=seed,
                                      signals=[name]).test
                fails += out.n_accepted > 0 and out.agreement < target
                cov += out.coverage
            cells.append(f"{name} {fails / splits:.3f} / {cov / splits:5.1%}")
        print(f"{strategy:26} {len(table.judges)} judges  " + "  ".join(cells))


if __name__ == "__main__":
    main()
