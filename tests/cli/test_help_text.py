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


def _command_paths():
    root = get_command(app)
    yield []
    for name in root.commands:
        yield [name]


@pytest.mark.parametrize("path", [pytest.param(p, id=" ".join(p) or "jurybox")
                                  for p in _command_paths()])
def test_help_at_80_columns_cuts_nothing_and_shows_every_default(path):
    shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert max(map(len, lines)) <= 80
    assert "…" not in shown.output, [line for line in lines if "…" in line]
    assert runner.invoke(app, [*path, "-h"], env={"COLUMNS": "80"}).output == shown.output
    if not path:
        return
    words = set(shown.output.replace("│", " ").split())
    for param in get_command(app).commands[path[0]].params:
        default = param.default
        if param.show_default is False:  # said in the help text instead
            assert "default" in (param.help or ""), param.name
            continue
        if default is None or isinstance(default, bool) or default == "":
            continue
        # every word of "[default: ...]" is on the screen whole (nothing cut or folded)
        for word in f"[default: {default}]".split():
            assert word in words, (path, param.name, word)


def test_bench_help_groups_options_in_panels_in_one_order():
    shown = runner.invoke(app, ["bench", "-h"], env={"COLUMNS": "80"}).output
    titles = [line.split("─ ")[1].split(" ─")[0] for line in shown.splitlines()
              if line.startswith("╭─ ")]
    # the first panel holds what a first run needs (and --help: no panel of --help alone)
    assert titles == ["Arguments", "Start here", "What to judge", "Protocol", "Statistics",
                      "Judge and endpoint", "Run", "Output", "Cost", "Batch", "Simulated judge"]
    start = shown.split("╭─ Start here")[1].split("╰")[0]
    assert [w for w in start.split() if w.startswith("--")] == [
        "--model", "--protocols", "--k", "--base-url", "--dry-run", "--help"]
    personalize = runner.invoke(app, ["personalize", "-h"], env={"COLUMNS": "80"}).output
    assert "╭─ What to judge" in personalize and "╭─ Simulated judge" in personalize
    # the choice lists and long defaults whole (wrapped lines joined)
    shown = " ".join(shown.replace("│", " ").split())
    for text in ("direct, pcf", "apoc, both-orders, keyed, pairwise",
                 "pairwise,both-orders,apoc", "~/.cache/jurybox/cache.sqlite",
                 "runs/<command>-<dataset>-<model>-<config", "rate_429=0.05, rate_500=0.02",
                 "[default: 0.5,0.25,0.2,0.05]"):
        assert text in shown, text


def test_an_option_shows_its_variable_only_when_not_named_after_it():
    from jurybox.cli._common import envvar_by_rule

    root = get_command(app)
    for name, command in root.commands.items():
        text = runner.invoke(app, [name, "--help"], env={"COLUMNS": "400"}).output
        for param in command.params:
            if param.param_type_name != "option" or param.name == "help":
                continue
            assert param.envvar, (name, param.name)  # every option has a JURYBOX_ variable
            by_rule = param.envvar == envvar_by_rule(param.opts[0])
            assert (f"[env var: {param.envvar}]" in text) is not by_rule, (name, param.name)
    bench = runner.invoke(app, ["bench", "--help"], env={"COLUMNS": "400"}).output
    assert "[env var: JURYBOX_CONCURRENCY]" not in bench
    assert envvar_by_rule("--sim-latency-ms") == "JURYBOX_SIM_LATENCY_MS"
    assert "[env var: JURYBOX_SIM_PORT]" in runner.invoke(
        app, ["serve-sim", "--help"], env={"COLUMNS": "400"}).output
