"""The documentation's examples run as written, against the code (in a temporary folder,
simulated judge): the README's quickstart, and the examples of the docs pages."""

from __future__ import annotations

import ast
import asyncio
import shlex

import pytest

from .pages import DOCS, README, code_block, section

# (page, heading, how the command starts) of every copy of the `jurybox judge two.jsonl`
# example and its output (the README's, as pasted after make demo, calls .venv/bin/jurybox)
JUDGE_CLI_EXAMPLES = [(README, "## Quickstart: the simulated judge", ".venv/bin/jurybox judge"),
                      (DOCS / "judging.md", "# Judging your own candidates", "jurybox judge")]


@pytest.mark.parametrize(("page", "heading", "starts"), JUDGE_CLI_EXAMPLES,
                         ids=[p.name for p, _, _ in JUDGE_CLI_EXAMPLES])
def test_judge_cli_example_prints_what_the_page_shows(page, heading, starts, tmp_path,
                                                      monkeypatch):
    """The example's file, its command, and the table rows, summary lines and the warning
    it shows (q1 has no gold: the simulated judge's verdict on it is noise)."""
    from typer.testing import CliRunner

    from jurybox.cli import app

    text = section(page, heading)
    command = code_block(text, "bash", starts=starts).strip()
    args = shlex.split(command)[1:]
    (tmp_path / args[1]).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / args[1]).write_text(code_block(text, "json"))
    shown = code_block(text, "", starts="two: ").splitlines()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, [*args, "--no-cache"])
    assert result.exit_code == 0, result.output
    printed = [" ".join(line.split()) for line in result.output.splitlines()]
    checked = [line for line in shown if line.startswith(
        ("│", "2 items", "length bias", "accuracy", "model calls", "warning"))]
    # two item rows, the summary, length, accuracy and totals lines (--no-cache: a first run),
    # the warning
    assert len(checked) == 7, shown
    for line in checked:
        assert " ".join(line.split()) in printed, line


def test_python_judge_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    block = code_block(section(DOCS / "judging.md", "## From Python"), "python")
    exec(compile(block, "judging.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["q1", "q2"]
    assert (tmp_path / "runs/judge-example/judgments.csv").exists()


def test_template_example_is_a_valid_template(tmp_path):
    text = section(DOCS / "judging.md", "## Criteria and templates")
    path = tmp_path / "t.txt"
    path.write_text(code_block(text, "text"))
    from jurybox.protocols.templates import JudgePrompt, load_template

    prompt = JudgePrompt(criteria="Kind.", template=load_template(path, criteria="Kind."))
    user = prompt.render(question="[[q]]", candidates="[[c]]", answer_format="FORMAT",
                         default="")
    assert "Kind.\n\nThe question:\n[[q]]" in user and user.endswith("[[c]]\n\nFORMAT")


def test_notebook_example_runs_on_a_running_loop(tmp_path, monkeypatch):
    """The awaitable example, as a notebook cell runs it: top-level await on a running loop."""
    monkeypatch.chdir(tmp_path)
    block = code_block(section(DOCS / "python.md", "## Notebooks and async code"), "python")
    code = compile(block, "python.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    namespace: dict = {}

    async def cell() -> None:
        await eval(code, namespace)  # a coroutine: the cell's top-level await
    asyncio.run(cell())
    assert [j.item_id for j in namespace["result"].items] == ["q1"]
    assert (tmp_path / "runs/nb/judgments.jsonl").exists()


def test_library_example_runs(tmp_path, monkeypatch, capsys):
    """run_bench on 50 bundled items, run_agreement on bundled SQuALITY, load_rubric."""
    monkeypatch.chdir(tmp_path)
    block = code_block(section(DOCS / "python.md", "## Judging and benchmarking"), "python")
    namespace: dict = {}
    exec(compile(block, "python.md", "exec"), namespace)
    assert namespace["result"].summary.protocols["pcf"].accuracy.n == 50
    # SQuALITY's alpha per group, as the demo page shows them (correctness, selection, overall)
    assert capsys.readouterr().out.splitlines()[2] == "[0.534, 0.716, 0.722]"
    assert namespace["rubric"].dimensions[0].name == "specificity"


def test_jury_file_example_loads(tmp_path):
    from jurybox.jury.panel import load_jury

    path = tmp_path / "jury.yaml"
    path.write_text(code_block(section(DOCS / "jury.md", "## The jury file"), "yaml"))
    jury = load_jury(path)
    assert [(j.model, j.weight) for j in jury.judges] == [
        ("sim", 1.0), ("openai/gpt-4o-mini", 2.0), ("vllm/Qwen2.5-7B-Instruct", 1.0)]
    assert jury.judges[0].sim is not None and jury.judges[0].sim.seed == 1


def test_rubric_example_loads(tmp_path):
    from jurybox import load_rubric

    path = tmp_path / "rubric.yaml"
    path.write_text(code_block(section(DOCS / "formats.md", "## Rubrics"), "yaml"))
    rubric = load_rubric(path)
    need = rubric.dimensions[1]
    assert [d.name for d in rubric.dimensions] == ["specificity", "need_validity"]
    assert need.exclusion is not None and need.exclusion.code == 0


def test_format_examples_load(tmp_path):
    """The generic listwise lines, the JudgeBench pair and the ratings rows of formats.md."""
    from jurybox import load_ratings
    from jurybox.datasets import load_judgebench, load_listwise_jsonl

    page = DOCS / "formats.md"
    items = tmp_path / "items.jsonl"
    items.write_text(code_block(section(page, "## Generic listwise items"), "json"))
    assert [i.item_id for i in load_listwise_jsonl(items, labelled=False)] == ["q1", "q2"]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(code_block(section(page, "## Pairwise pairs (JudgeBench)"), "json"))
    assert [(p.item_id, p.label) for p in load_judgebench(pairs)] == [("p1", "A>B")]
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(code_block(section(page, "## Ratings"), "text"))
    assert len(load_ratings(ratings)) == 3
