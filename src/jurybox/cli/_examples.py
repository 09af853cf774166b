"""The "Examples" part of every command's ``--help``: commands that really run.

Each example is a command line and what it does. The judging examples use the simulated judge
and the shipped ``examples/two.jsonl`` or a bundled dataset, so they run offline in a clone;
``tests/cli/test_help_examples.py`` runs them, in this order, in a scratch folder (the ones
that serve or need a real endpoint are parsed only), so an example that stops working fails a
test.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["EXAMPLES", "Example", "examples_epilog"]


class Example(NamedTuple):
    """One example: the command line (starting with ``jurybox``) and what it does."""

    line: str
    does: str


#: Per command (as typed after ``jurybox``), its examples, in the order the test runs them:
#: a later example may read the run directory an earlier one wrote (``runs/two``).
EXAMPLES: dict[str, tuple[Example, ...]] = {
    "judge": (
        Example("jurybox judge examples/two.jsonl --model sim --out runs/two",
                "the best of each item's candidates, 7 orders each (simulated judge)"),
        Example("jurybox judge examples/two.jsonl --model sim --protocol direct",
                "one call per item, in one seeded order"),
        Example("jurybox judge examples/two.jsonl --model openai/gpt-4o-mini --dry-run",
                "the calls, tokens and USD of a real judge; no call made"),
        Example("jurybox judge examples/two.jsonl --model vllm/Qwen2.5-7B-Instruct "
                "--base-url http://localhost:8000/v1 --k 3 --dry-run",
                "a self-hosted OpenAI-compatible server (drop --dry-run to judge)"),
    ),
    "bench": (
        Example("jurybox bench truthfulqa --model sim --protocols direct,pcf --limit 50 "
                "--out runs/tqa", "direct vs PCF on 50 bundled TruthfulQA items"),
        Example("jurybox bench judgebench --model sim --protocols pairwise,both-orders,apoc "
                "--limit 20", "pairwise protocols on bundled JudgeBench pairs"),
        Example("jurybox bench truthfulqa --model openai/gpt-4o-mini --limit 200 --dry-run",
                "what 200 items would cost with a real judge; no call made"),
    ),
    "personalize": (
        Example("jurybox personalize squality --rubric squality --model sim --raters 2 "
                "--limit 10", "zero-shot, aggregate and personalized rubric judges of 2 raters"),
    ),
    "rank": (
        Example("jurybox rank examples/systems.jsonl --baseline sometimes --model sim "
                "--out runs/rank", "three systems against a baseline, each pair in both "
                "orders (simulated judge: its verdicts here are noise)"),
        Example("jurybox rank examples/systems.jsonl --pairing all --model sim --rounds 200",
                "every pair of systems; Bradley-Terry scores with the mean at 1000"),
        Example("jurybox rank examples/systems.jsonl --baseline sometimes --model "
                "openai/gpt-4o-mini --dry-run", "the calls and USD of a real judge; no call"),
        Example("jurybox rank alpaca_eval/results --baseline gpt4_1106_preview",
                "AlpacaEval's recorded annotations (a clone of tatsu-lab/alpaca_eval): win "
                "rates and LC win rates, no model call"),
    ),
    "score": (
        Example("jurybox score runs/tqa", "re-decide a bench run from its recorded answers"),
        Example("jurybox score llmbar", "rescore LLMBar's recorded real judges (no calls)"),
        Example("jurybox score llmbar --subset Processed/MT-Bench --target-agreement 0.85",
                "accept only the verdicts whose agreement with the human labels is "
                "guaranteed at 85%"),
    ),
    "agreement": (
        Example("jurybox agreement squality", "Krippendorff's alpha of SQuALITY's raters"),
    ),
    "show": (
        Example("jurybox show runs/two q1", "one item: every order, score and raw answer"),
    ),
    "export": (
        Example("jurybox export runs/two", "the run's decisions and calls as CSV files"),
    ),
    "report": (
        Example("jurybox report runs/two", "rewrite runs/two/report.html"),
        Example("jurybox report runs", "every run's report, and runs/index.html"),
    ),
    "runs": (
        Example("jurybox runs", "the runs under ./runs, one row each"),
    ),
    "cache": (
        Example("jurybox cache info", "where the response cache is and what it holds"),
    ),
    "batch": (
        Example("jurybox batch status runs/two", "a --batch run's batches (none here)"),
    ),
    "demo": (
        Example("jurybox demo", "six parts on bundled data (simulated judge, under a minute)"),
    ),
    "serve-sim": (
        Example("jurybox serve-sim --port 8123 --dataset examples/two.jsonl",
                "serve the simulated judge; then judge with --model vllm/sim "
                "--base-url http://127.0.0.1:8123/v1"),
    ),
    "serve-local": (
        Example("jurybox serve-local --port 8080",
                "serve SmolLM2 with llama.cpp (the [local] extra)"),
    ),
}


def examples_epilog(command: str, *, then: str = "") -> str:
    """The help epilog of ``command``: its examples (markdown, one paragraph each, as typer's
    markdown mode shows an epilog), then ``then`` (another paragraph, e.g. the environment
    variables).

    Raises:
        KeyError: ``command`` has no examples (every command has some).
    """
    lines = [f"`{e.line}`: {e.does}" for e in EXAMPLES[command]]
    parts = ["**Examples**", *lines]
    if then:
        parts.append(then)
    return "\n\n".join(parts)
