"""Parse time of hostile judge answers, and how long the event loop stalls meanwhile.

Each case is one answer text (200 kB of ``{``, 200 kB of ``<think>``, 5 MB of prose, a 5 MB
JSON answer, 5 MB of prose with an unclosed ``<think>`` and a stray ``{`` in every line, and
the same shapes at 1 MB, the most jurybox reads), parsed by the listwise,
pairwise and rubric parsers. Every (case, parser) runs in a fresh subprocess with a time
limit, so a parser that hangs (the quadratic one before the fix) is reported as ``>limit``
instead of hanging the benchmark. Inside it the parse runs the way the runner runs it
(``jurybox.runner.runner.parse_answer`` when it exists, else in place as before), next to a
ticker coroutine that wakes every millisecond: the largest gap between its wake-ups is how
long every other call in flight would have stalled.

Usage: python benchmarks/hostile_answers.py [--limit 60] [--src PATH] [--cases a,b]
                                            [--max-answer-chars N]
  --max-answer-chars: the answer budget the parse runs with (default: jurybox's default);
  the ``+ans`` cases need 6000000 to be read
  --src: the jurybox source folder to measure (default: this checkout's src), e.g. a copy of
  an older commit: git archive <commit> src | tar -x -C /tmp/old; --src /tmp/old/src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

LABELS = ("A", "B", "C", "D")
ANSWER = json.dumps({"candidates": {lab: {"score": 50 + i, "major_factual_error": False,
                                          "hallucinated_specificity": False,
                                          "calibrated_uncertainty": False}
                                    for i, lab in enumerate(LABELS)},
                     "ranking": list(reversed(LABELS)), "rationale": "D is best."})


def _prose(size: int) -> str:
    line = "Candidate B cites the 1969 landing; candidate C is vague about the date.\n"
    return (line * (size // len(line) + 1))[:size - len(ANSWER) - 1] + "\n" + ANSWER


def _mixed(size: int) -> str:
    """Prose with an unclosed tag and a stray brace in every line, then the answer."""
    line = "<think> Candidate {B cites the 1969 landing; C is vague about the date.\n"
    return (line * (size // len(line) + 1))[:size - len(ANSWER) - 1] + "\n" + ANSWER


def _json(size: int) -> str:
    pad = size - len(ANSWER) - len(', "notes": ""')
    return ANSWER[:-1] + ', "notes": "' + "x" * pad + '"}'


CASES = {
    "braces-200k": lambda: "{" * 200_000,
    "think-200k": lambda: "<think>" * (200_000 // 7),
    "text-5M": lambda: _prose(5_000_000),
    "json-5M": lambda: _json(5_000_000),
    "mixed-5M": lambda: _mixed(5_000_000),
    "braces-1M": lambda: "{" * 1_000_000,
    "think-1M": lambda: "<think>" * (1_000_000 // 7),
    "text-1M": lambda: _prose(999_000),
    "json-1M": lambda: _json(999_000),
    "mixed-1M": lambda: _mixed(999_000),
    "deep-10k": lambda: '{"a":' * 10_000 + "1" + "}" * 10_000,
    "quotes-1M": lambda: '{x"' * 333_000,
    # junk, then a valid answer (issue 29): found when --max-answer-chars holds the text
    "braces+ans-5M": lambda: "{" * 5_000_000 + "\n" + ANSWER,
    "think+ans-5M": lambda: "<think>" * (5_000_000 // 7) + "\n" + ANSWER,
    "objs+ans-5M": lambda: '{"a": "b"} ' * (5_000_000 // 11) + "\n" + ANSWER,
    "quotes+ans-5M": lambda: '{x"' * (5_000_000 // 3) + "\n" + ANSWER,
    "ans+deep-10k": lambda: ANSWER + "\n" + '{"a":' * 10_000 + "1" + "}" * 10_000,
}
PARSERS = ("listwise", "pairwise", "rubric")


def _parser(name: str):
    from jurybox.parsing import parse_listwise, parse_rubric, parse_verdict

    if name == "listwise":
        return lambda text: parse_listwise(text, LABELS)
    if name == "pairwise":
        return parse_verdict
    return lambda text: parse_rubric(text, lambda s: 1 <= s <= 5, "an integer 1-5", scale_max=5)


async def _measure(parse, text: str) -> tuple[float, float, str]:
    """(parse seconds, largest event-loop gap in seconds, outcome)."""
    try:
        from jurybox.runner.runner import parse_answer
    except ImportError:  # before the fix: the runner parsed in place on the loop
        async def parse_answer(parse, text):
            return parse(text)
    gaps = [0.0]
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    try:
        await parse_answer(parse, text)
        outcome = "parsed"
    except Exception as exc:  # noqa: BLE001 - the outcome is what is measured
        outcome = f"{type(exc).__name__}: {str(exc)[:70]}"
    took = time.perf_counter() - start
    done.set()
    await tick
    return took, max(gaps), outcome


def _child(case: str, parser: str, budget: int | None) -> None:
    text = CASES[case]()
    if budget:
        from jurybox.parsing.extract import answer_budget

        with answer_budget(budget):
            took, gap, outcome = asyncio.run(_measure(_parser(parser), text))
    else:
        took, gap, outcome = asyncio.run(_measure(_parser(parser), text))
    print(json.dumps({"seconds": took, "stall": gap, "outcome": outcome}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per parse (default 60)")
    ap.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--max-answer-chars", type=int, default=0)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(*args.child, args.max_answer_chars)
        return
    env = {**os.environ, "PYTHONPATH": args.src}
    print(f"jurybox from {args.src}; limit {args.limit:g} s per parse; answer budget "
          f"{args.max_answer_chars or 'default'}")
    print(f"{'case':<14} {'parser':<9} {'parse s':>9} {'loop stall s':>13}  outcome")
    for case in args.cases.split(","):
        for parser in PARSERS:
            try:
                out = subprocess.run([sys.executable, __file__, "--child", case, parser,
                                      "--max-answer-chars", str(args.max_answer_chars)],
                                     env=env, capture_output=True, text=True,
                                     timeout=args.limit)
                row = json.loads(out.stdout.strip().splitlines()[-1])
                print(f"{case:<14} {parser:<9} {row['seconds']:>9.3f} {row['stall']:>13.3f}"
                      f"  {row['outcome']}", flush=True)
            except subprocess.TimeoutExpired:
                print(f"{case:<14} {parser:<9} {'>' + format(args.limit, 'g'):>9} "
                      f"{'-':>13}  hung (killed)", flush=True)
            except (IndexError, json.JSONDecodeError):
                print(f"{case:<14} {parser:<9} {'-':>9} {'-':>13}  crashed: "
                      f"{out.stderr.strip().splitlines()[-1:]}", flush=True)


if __name__ == "__main__":
    main()
