"""Rescore LLMBar's whole release and check LLMBar's own statistics for every file.

    python benchmarks/llmbar_rescore.py /path/to/LLMBar/Dataset [--must-show]

Reads every result.json (499 in princeton-nlp/LLMBar at 900616b), asserts that
correct_False, correct_True, correct_average, correct_both and equal of each statistics.json
are reproduced exactly, and prints the time taken. ``--must-show`` also prints the table of
order-1/order-2/both-orders/agree-only accuracy, consistency and first-shown rate (with n
and 95% CIs) for Vanilla, Vanilla_NoRules, CoT and Swap on Natural, Adversarial (pooled)
and the Processed sets, and the recorded juries on MT-Bench and Adversarial.
"""

from __future__ import annotations

import sys
import time

from jurybox.recorded.jury import jury_groups, score_jury
from jurybox.recorded.llmbar import read_llmbar_tree
from jurybox.recorded.llmbar_stats import llmbar_statistics
from jurybox.recorded.pool import pool_subsets
from jurybox.recorded.scoring import score_recording

STRATEGIES = ("Vanilla", "Vanilla_NoRules", "CoT", "Swap")
SUBSETS = ("LLMBar/Natural", "LLMBar/Adversarial (pooled)", "Processed/MT-Bench",
           "Processed/FairEval", "Processed/LLMEval^2")


def _f(a) -> str:
    low, high = a.confidence_interval
    return f"{100 * a.accuracy:.1f} [{100 * low:.0f},{100 * high:.0f}]"


def main(dataset: str, must_show: bool) -> None:
    start = time.perf_counter()
    recordings = list(read_llmbar_tree(dataset))
    read = time.perf_counter() - start
    checked = 0
    for rec in recordings:
        assert rec.reference is not None, f"{rec.source}: no statistics.json"
        mismatches = llmbar_statistics(rec).mismatches(rec.reference)  # type: ignore[union-attr]
        assert not mismatches, f"{rec.source}: {mismatches}"
        checked += 1
    print(f"{checked} of {len(recordings)} statistics.json reproduced exactly; read in "
          f"{read:.1f} s, checked in {time.perf_counter() - start - read:.2f} s")
    assert checked == len(recordings) == 499, f"expected 499 files, got {len(recordings)}"
    t = time.perf_counter()
    every = recordings + pool_subsets(recordings)
    scores = [score_recording(r) for r in every]
    print(f"scored {len(every)} recordings (incl. pooled) in {time.perf_counter() - t:.1f} s")
    if not must_show:
        return
    print("| subset | judge | strategy | n | order 1 | order 2 | both (net) | agree-only "
          "(coverage) | consistency | first-shown (n) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for subset in SUBSETS:
        for strategy in STRATEGIES:
            for s in sorted((s for s in scores if s.subset == subset
                             and s.strategy == strategy), key=lambda s: s.judge):
                print(f"| {subset} | {s.judge} | {strategy} | {s.n} | {_f(s.by_order[0])} | "
                      f"{_f(s.by_order[1])} | {_f(s.net)} | {_f(s.agree_only)} "
                      f"({100 * s.agree_only.coverage:.0f}%) | {100 * s.consistency:.1f} | "
                      f"{100 * s.first_shown_rate:.1f} ({s.n_decisive}) |")
    for (subset, strategy), group in jury_groups(every).items():
        if subset not in ("Processed/MT-Bench", "LLMBar/Adversarial (pooled)") or \
                strategy not in STRATEGIES:
            continue
        j = score_jury(group)
        best = j.judge_net[j.best_judge]
        low, high = j.alpha.confidence_interval if j.alpha else (float("nan"),) * 2
        print(f"jury {subset} {strategy}: {', '.join(j.judges)}; n={j.n}; jury "
              f"{_f(j.jury)}; best {j.best_judge} {_f(best)}; best order 1 "
              f"{_f(j.judge_order1[j.best_judge])}; jury of order-1 {_f(j.jury_order1)}; "
              f"mean judge {100 * j.mean_judge:.1f}; jury vs best p="
              f"{j.vs_best.p_value if j.vs_best else float('nan'):.2g}; alpha "
              f"{j.alpha.alpha if j.alpha else float('nan'):.2f} [{low:.2f},{high:.2f}]; most "
              f"disagreeing {j.most_disagreeing} "
              f"{100 * j.disagreement[j.most_disagreeing][0]:.0f}%")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python benchmarks/llmbar_rescore.py /path/to/LLMBar/Dataset "
                 "[--must-show]")
    main(sys.argv[1], "--must-show" in sys.argv[2:])
