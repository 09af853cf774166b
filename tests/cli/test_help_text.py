"""--help shows every placeholder and lists the key environment variables."""

import inspect

import pytest
from rich.console import Console
from rich.markdown import Markdown
from typer.main import get_command
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.providers import PROVIDERS

runner = CliRunner()


def _commands(command, path=("jurybox",)):
    yield " ".join(path), command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def _help_texts():
    for path, command in _commands(get_command(app)):
        yield f"{path} (help)", command.help or ""
        yield f"{path} (epilog)", command.epilog or ""
        for param in command.params:
            yield f"{path} {param.name}", getattr(param, "help", None) or ""


def _as_typer_shows(text: str) -> str:
    """The text as typer's markdown mode renders it (rich Markdown), whitespace collapsed."""
    console = Console(width=10_000, no_color=True, record=True, file=open("/dev/null", "w"))
    console.print(Markdown(inspect.cleandoc(text)))
    return " ".join(console.export_text().split())


@pytest.mark.parametrize("text", [pytest.param(text, id=where)
                                  for where, text in _help_texts() if text])
def test_markdown_keeps_every_word_of_the_help(text):
    # `<model>` outside a code span is an HTML tag to markdown and vanishes ("runs/---")
    expected = text.replace("`", "").replace("**", "")  # code spans and bold, as shown
    assert _as_typer_shows(text) == " ".join(expected.split())


def test_rendered_help_shows_placeholders():
    bench = runner.invoke(app, ["bench", "--help"], env={"COLUMNS": "400"}).output
    assert "runs/<command>-<dataset>-<model>-<config hash>" in bench
    assert "vllm/<model>" in bench and "local/<file.gguf>" in bench
    assert "<run>/rescored" in runner.invoke(app, ["score", "--help"],
                                             env={"COLUMNS": "400"}).output
    assert "[RESULT] <score>" in runner.invoke(app, ["personalize", "--help"],
                                               env={"COLUMNS": "400"}).output


@pytest.mark.parametrize("command", [[], ["bench"], ["personalize"]])
def test_help_lists_the_key_environment_variables(command):
    shown = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "400"}).output
    keys = {p.key_env for p in PROVIDERS.values() if p.key_env}
    assert keys == {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "VLLM_API_KEY"}
    for name in (*keys, "JURYBOX_API_KEY", "JURYBOX_BASE_URL", "JURYBOX_CACHE",
                 "JURYBOX_LOG_LEVEL"):
        assert name in shown, name
