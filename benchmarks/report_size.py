"""How big report.html gets when candidates are long: the page against the item texts.

Judges ``--items`` listwise items of ``--candidates`` candidates of ``--chars`` characters
each (seeded random words, with ``<``, ``&`` and quotes so escaping is part of the cost) with
the simulated judge at ``--k`` orders (protocols direct and pcf), then writes the report and
prints its size, the size of the texts (question and candidates, UTF-8), their ratio, and
the time to render it.

Usage: python benchmarks/report_size.py [--items 50] [--candidates 4] [--chars 25000] [--k 6]
(the defaults: 100 kB of candidate text per item).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from jurybox.compare import BenchConfig, run_bench  # noqa: E402
from jurybox.reports import write_report  # noqa: E402
from jurybox.run import RunOptions  # noqa: E402

WORDS = ("the", "judge", "answer", "is", "<b>bold</b>", "a&b", "\"quoted\"", "it's", "model",
         "candidate", "order", "position", "bias", "consensus", "item", "text", "line\n")


def _text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)[:chars]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument("--chars", type=int, default=25_000)
    parser.add_argument("--k", type=int, default=6)
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "long.jsonl"
        rows = [{"id": f"i{i}", "prompt": f"Which answer to question {i} is best?",
                 "candidates": [_text(rng, args.chars) for _ in range(args.candidates)],
                 "gold": 0} for i in range(args.items)]
        data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        text = sum(len(r["prompt"].encode()) + sum(len(c.encode()) for c in r["candidates"])
                   for r in rows)
        out = Path(tmp) / "run"
        run_bench(BenchConfig(dataset=str(data), k=args.k), out,
                  options=RunOptions(cache_path=None, concurrency=8))
        t0 = time.perf_counter()
        page = write_report(out).stat().st_size
        seconds = time.perf_counter() - t0
    print(f"{args.items} items x {args.candidates} candidates x {args.chars:,} characters, "
          f"K = {args.k}")
    print(f"texts: {text / 1e6:.2f} MB; report.html: {page / 1e6:.2f} MB "
          f"({page / text:.2f} times the texts), rendered in {seconds:.2f} s")


if __name__ == "__main__":
    main()
