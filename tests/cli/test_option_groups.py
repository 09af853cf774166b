"""Option groups (cli/_compose.py): a command names a group once and gets its options."""

from __future__ import annotations

import dataclasses
from typing import Annotated

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.cli._compose import OptionGroup, option_groups
from jurybox.cli._groups import BatchFlags, CostOptions, EndpointOptions, ExecutorOptions, RunFlags


@dataclasses.dataclass(frozen=True)
class Pair(OptionGroup):
    left: Annotated[int, typer.Option(envvar="T_LEFT", min=0)] = 1
    right: Annotated[str, typer.Option("--right-side")] = "r"


def test_a_new_command_gets_a_groups_options_and_one_object():
    seen = []

    @option_groups
    def command(name: Annotated[str, typer.Argument()], *, pair: Pair) -> None:
        seen.append((name, pair))

    small = typer.Typer()
    small.command()(command)
    runner = CliRunner()
    result = runner.invoke(small, ["x", "--left", "3", "--right-side", "s"])
    assert result.exit_code == 0, result.output
    assert seen == [("x", Pair(3, "s"))]
    assert runner.invoke(small, ["y"], env={"T_LEFT": "5"}).exit_code == 0
    assert seen[-1] == ("y", Pair(5, "r"))
    assert runner.invoke(small, ["y", "--left", "-1"]).exit_code == 2  # the group's range


def test_a_name_used_twice_is_refused():
    with pytest.raises(TypeError, match="left"):
        @option_groups
        def command(left: int = 0, *, pair: Pair) -> None: ...


def test_the_judging_commands_share_the_groups_options():
    root = get_command(app)
    shared = {f.name for g in (RunFlags, EndpointOptions, CostOptions, BatchFlags,
                               ExecutorOptions) for f in dataclasses.fields(g)}
    for name in ("bench", "judge", "personalize"):
        assert shared <= {p.name for p in root.commands[name].params}, name
