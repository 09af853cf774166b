"""A real judge: the local llama.cpp judge on TruthfulQA, direct vs PCF, structured on and off.

Needs the local judge: ``pip install 'jurybox[local]'``. Runs

    bench truthfulqa --model local --protocols direct,pcf --k 4 --limit 60 --n-candidates 4
        --structured json-schema | off

(K = 4 on 4 candidates: the four cyclic shifts, each candidate shown once in each position) and
prints, per mode and protocol: the share of judgments that ended as parse failures or
refusals (after one re-ask), accuracy with a 95% bootstrap CI, the flip rate, the top pick by
shown position, and seconds per model call (mean latency of the calls made). Calls are cached
in ``runs/real-judge/cache.sqlite``: a second run makes none.

The default judge is SmolLM2-135M-Instruct (Q4_1), a 135M model: its numbers show real
position bias and real failures, not what a strong judge does. ``--model local/PATH.gguf``
measures another GGUF.

Usage: python benchmarks/real_judge.py [--limit 60] [--model local] [--out runs/real-judge]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from jurybox.compare import BenchConfig, run_bench
from jurybox.run import RunOptions


def _pct(x: float | None) -> str:
    return "—" if x is None or x != x else f"{100 * x:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--model", default="local")
    parser.add_argument("--out", type=Path, default=Path("runs/real-judge"))
    parser.add_argument("--modes", default="json-schema,off")
    args = parser.parse_args()
    rows = []
    for mode in args.modes.split(","):
        config = BenchConfig(dataset="truthfulqa", model=args.model, protocols=("direct", "pcf"),
                             k=4, limit=args.limit, n_candidates=4, max_tokens=512)
        result = run_bench(config, args.out / mode, options=RunOptions(
            structured=mode, cache_path=args.out / "cache.sqlite"))  # type: ignore[arg-type]
        calls = [json.loads(line) for line in (result.out / "calls.jsonl").open()]
        made = [c["latency_s"] for c in calls if not c["cached"] and not c["error"]]
        for name, s in result.summary.protocols.items():
            planned = s.calls_planned
            failed = sum(n for kind, n in s.calls_failed.items() if kind != "api")
            acc = s.accuracy
            rates = s.order.win_rate_by_position.get(4) if s.order else None
            rows.append((mode, name, acc.n, acc.n_total, failed / planned if planned else None,
                         acc.accuracy, acc.confidence_interval,
                         s.order.flip_rate if s.order else None, rates,
                         statistics.fmean(made) if made else None))
        print(f"{mode}: judge {result.judge}; {result.totals.model_calls} model calls, "
              f"{result.totals.reasks} re-asks, {result.totals.cache_hits} cache hits",
              flush=True)
    print("\n| structured | protocol | judged | parse failures | acc % [95% CI] | flip % "
          "| top pick by shown position A/B/C/D % | s per call |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, name, n, total, fail, acc, ci, flip, rates, secs in rows:
        pos = "/".join(f"{100 * r:.0f}" for r in rates) if rates else "—"
        print(f"| {mode} | {name} | {n}/{total} | {_pct(fail)}% | {_pct(acc)} "
              f"[{_pct(ci[0])}, {_pct(ci[1])}] | {_pct(flip)} | {pos} | "
              f"{'—' if secs is None else f'{secs:.1f}'} |")


if __name__ == "__main__":
    main()
