"""Every command's --help starts with what a first run needs and ends with examples that run.

The examples (``jurybox.cli._examples.EXAMPLES``) are run here, in their order, in a scratch
folder holding a copy of ``examples/two.jsonl``, with the simulated judge; those that serve
forever, need a run with batches or take long are parsed by the command only (a wrong option
or a missing argument still fails).
"""

import shlex
import shutil
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.cli._examples import EXAMPLES

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
#: parsed, not run: serve forever (serve-sim, serve-local), need a --batch run against a batch
#: API (batch), or take half a minute or more on 2 cores (demo)
PARSE_ONLY = {"jurybox serve-sim --port 8123 --dataset examples/two.jsonl",
              "jurybox serve-local --port 8080", "jurybox batch status runs/two",
              "jurybox demo",
              "jurybox rank alpaca_eval/results --baseline gpt4_1106_preview"}


def _first_panel(path: list[str]) -> tuple[str, str]:
    shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"}).output
    first = next(line for line in shown.splitlines()
                 if line.startswith("╭─ ") and "Arguments" not in line)
    return first, shown


@pytest.mark.parametrize("path", [["judge"], ["bench"], ["personalize"]])
def test_a_judging_command_shows_model_in_its_first_panel(path):
    first, shown = _first_panel(path)
    assert first.startswith("╭─ Start here ")
    panel = shown.split("╭─ Start here")[1].split("╰")[0]
    assert "--model" in panel and "--base-url" in panel and "--dry-run" in panel
    assert "╭─ Options " not in shown  # --help sits in the first panel, not alone above it


def test_every_command_has_examples_in_its_help():
    commands = set(get_command(app).commands)
    assert commands == set(EXAMPLES)
    for name in commands:
        shown = runner.invoke(app, [name, "--help"], env={"COLUMNS": "100"}).output
        assert "Examples" in shown, name
        joined = " ".join(shown.split())
        for example in EXAMPLES[name]:
            assert example.line in joined, (name, example.line)
        assert 1 <= len(EXAMPLES[name]) <= 4, name


def test_every_example_runs(tmp_path, monkeypatch):
    (tmp_path / "examples").mkdir()
    for name in ("two.jsonl", "systems.jsonl"):
        shutil.copy(ROOT / "examples" / name, tmp_path / "examples" / name)
    monkeypatch.chdir(tmp_path)
    env = {"JURYBOX_CACHE": str(tmp_path / "cache.sqlite"), "OPENAI_API_KEY": "sk-example",
           "COLUMNS": "100"}
    ran = parsed = 0
    for name, examples in EXAMPLES.items():
        for example in examples:
            words = shlex.split(example.line)
            assert words[:2] == ["jurybox", name], example.line
            if example.line in PARSE_ONLY:
                command = get_command(app).commands[name]
                command.make_context(name, words[2:])  # raises on a bad option or argument
                parsed += 1
                continue
            result = runner.invoke(app, words[1:], env=env)
            assert result.exit_code == 0, (example.line, result.output)
            ran += 1
    assert (ran, parsed) == (sum(map(len, EXAMPLES.values())) - len(PARSE_ONLY), len(PARSE_ONLY))
    assert (tmp_path / "runs" / "two" / "report.html").is_file()
