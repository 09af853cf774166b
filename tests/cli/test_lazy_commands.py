"""The app loads a command's module only when that command is used, and ``jurybox --help``
lists the commands from summaries kept equal to their docstrings."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
from typer.main import get_command

from jurybox.cli import app
from jurybox.cli._lazy import COMMANDS


def _loaded_after(args: list[str]) -> list[str]:
    """The jurybox.cli modules a fresh ``jurybox ARGS`` has imported."""
    probe = ("import sys\nfrom jurybox.cli import main\nsys.argv = ['jurybox', *sys.argv[1:]]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\nimport json\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('jurybox.cli.'))), "
             "file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                         timeout=120)
    return json.loads(out.stderr.strip().splitlines()[-1])


def test_every_summary_is_the_first_paragraph_of_its_commands_help():
    root = get_command(app)
    assert list(root.commands) == list(COMMANDS)
    for name, command in root.commands.items():
        first = inspect.cleandoc(command.help or "").split("\n\n")[0]
        assert COMMANDS[name].summary == " ".join(first.split("\n")), name


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], []])
def test_the_root_help_imports_no_command_module(args):
    loaded = _loaded_after(args)
    commands = {f"jurybox.cli.{e.module}" for e in COMMANDS.values()}
    assert not commands & set(loaded)
    assert "jurybox.cli._options" not in loaded


def test_a_command_imports_its_own_module_alone():
    loaded = set(_loaded_after(["cache", "--help"]))
    assert "jurybox.cli.cache_cmd" in loaded and "jurybox.cli.bench" not in loaded


def test_the_root_help_lists_every_command_without_typers_help_renderer():
    # typer.rich_utils imports rich's Markdown and Traceback: most of the help's start-up time
    probe = ("import sys\nfrom jurybox.cli import main\nsys.argv = ['jurybox', '--help']\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('typer.rich_utils', 'rich.markdown', 'rich.traceback') "
             "if m in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, env={**__import__("os").environ, "TERMINAL_WIDTH": "100"})
    assert out.stderr.strip().splitlines()[-1] == "[]"
    lines = out.stdout.splitlines()
    assert lines[1].strip() == "Usage: jurybox [OPTIONS] COMMAND [ARGS]..."
    assert max(len(line) for line in lines) == 100
    listed = [line.split()[1] for line in lines if line.startswith("│ ") and
              line[2:3] not in ("", " ")]
    assert listed == ["--version", "--help", *COMMANDS]
    # each summary shown whole (wrapped), its markdown backticks dropped
    shown = " ".join(" ".join(line.strip("│ ").split()) for line in lines)
    for entry in COMMANDS.values():
        assert " ".join(entry.summary.replace("`", "").split()[-4:]) in shown
    assert "Environment: every option has a JURYBOX_ variable" in shown
