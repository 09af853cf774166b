"""Every ``JURYBOX_`` variable a command reads is checked as its flag is: garbage in it is one
error line naming the variable, exit 2; a variable the command does not read is ignored,
whatever it holds (a break-test found garbage in some read variables kept, and the messages
naming only the flag a user never typed).

The variables are enumerated from the commands themselves (typer's ``envvar=``), plus those
read with ``os.environ`` (JURYBOX_PROGRESS here; JURYBOX_LOG_LEVEL: test_log_level.py), so a
new option is checked here without a new row.
"""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

import jurybox.sim
from jurybox.cli import app
from jurybox.cli._environment import name_variables

from ..cli_checks import one_line_error

runner = CliRunner()
GARBAGE = "garbage"

#: How each command is run here (in a folder holding ``run``, a two-item bench run, and
#: ``items.jsonl``): nothing else given, so its options come from their variables.
COMMANDS = {
    "bench": ["bench", "truthfulqa"],
    "judge": ["judge", "items.jsonl", "--model", "sim"],
    "score": ["score", "run"],
    "agreement": ["agreement", "squality"],
    "personalize": ["personalize", "squality"],
    "report": ["report", "run"],
    "show": ["show", "run", "ITEM"],
    "export": ["export", "run"],
    "cache": ["cache", "info"],
    "batch": ["batch", "status", "run"],
    "demo": ["demo"],
    "serve-sim": ["serve-sim"],
    "serve-local": ["serve-local", "--gguf", "judge.gguf"],
    "rank": ["rank", "systems.jsonl", "--model", "sim", "--baseline", "a", "--dry-run"],
}
#: Variables set for a command (personalize has no bundled default rubric).
SETTINGS = {"personalize": {"JURYBOX_RUBRIC": "squality"}}
#: The variables read with os.environ by the commands that draw a progress line.
DIRECT = {"JURYBOX_PROGRESS": ("bench", "judge", "score", "personalize", "demo")}
#: Variables no value of which is garbage, and why.
FREE = {
    "JURYBOX_CRITERIA": "any text is a criterion",
    "JURYBOX_OUT": "a path; a new one is a new run directory",
    "JURYBOX_EXPORT_OUT": "a path",
    "JURYBOX_BATCH_EXPORT_OUT": "a path (refused unless exporting: tested below)",
    "JURYBOX_CACHE": "a path; a new one is a new cache",
    "JURYBOX_GGUF": "a path, checked after llama.cpp's extra, absent here",
}


def _variables(name: str) -> list[str]:
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    given = set(COMMANDS[name])
    read = {p.envvar for p in command.params
            if isinstance(p.envvar, str) and not given & set(getattr(p, "opts", ()))}
    read |= {v for v, names in DIRECT.items() if name in names}
    return sorted(read - set(FREE))


def _all_read() -> set[str]:
    command = typer.main.get_command(app)
    return {p.envvar for c in command.commands.values()  # type: ignore[attr-defined]
            for p in c.params if isinstance(p.envvar, str)} | set(DIRECT)


CASES = [(name, variable) for name in COMMANDS for variable in _variables(name)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A folder with ``run`` (a bench run of two items) and ``items.jsonl`` (one item)."""
    here = tmp_path_factory.mktemp("env")
    result = runner.invoke(app, ["bench", "truthfulqa", "--limit", "2", "--k", "2", "--out",
                                 str(here / "run"), "--no-cache"])
    assert result.exit_code == 0, result.output
    (here / "items.jsonl").write_text('{"id": "q1", "prompt": "Which?", "candidates": '
                                      '["a", "b", "c"]}\n')
    (here / "systems.jsonl").write_text('{"id": "p1", "prompt": "Which?", "outputs": '
                                        '{"a": "x", "b": "y"}}\n')
    return here


@pytest.fixture
def quiet_servers(monkeypatch):
    """serve-sim returns instead of serving (its checks come first)."""
    monkeypatch.setattr(jurybox.sim, "serve_forever", lambda *a, **kw: None)


def _args(name: str, folder) -> list[str]:
    first = json.loads((folder / "run" / "items.jsonl").open().readline())["item_id"]
    return [first if a == "ITEM" else a for a in COMMANDS[name]]


@pytest.mark.parametrize("name, variable", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_garbage_in_a_variable_the_command_reads_is_one_line_naming_it(
        name, variable, folder, monkeypatch, quiet_servers):
    monkeypatch.chdir(folder)
    monkeypatch.setenv("JURYBOX_CACHE", str(folder / "cache.sqlite"))
    result = runner.invoke(app, _args(name, folder),
                           env={**SETTINGS.get(name, {}), variable: GARBAGE})
    one_line_error(result, variable)


def test_every_variable_is_checked_somewhere_or_free_text():
    checked = {variable for _, variable in CASES}
    assert _all_read() - checked == set(FREE)


def test_the_messages_name_the_variable_its_value_and_what_it_takes(folder, monkeypatch):
    monkeypatch.chdir(folder)
    bench = ["bench", "truthfulqa", "--limit", "1"]
    assert one_line_error(runner.invoke(app, bench, env={"JURYBOX_K": "seven"})) == (
        "error: Invalid value for '--k' (from JURYBOX_K='seven'): Input should be a valid "
        "integer, unable to parse string as an integer (see 'root bench --help')")
    assert one_line_error(runner.invoke(app, bench, env={"JURYBOX_NO_CACHE": "maybe"})) == (
        "error: Invalid value for '--no-cache' (from JURYBOX_NO_CACHE='maybe'): Input should "
        "be a valid boolean, unable to interpret input; JURYBOX_NO_CACHE takes 1, true, yes, "
        "on or 0, false, no, off (or empty for unset) (see 'root bench --help')")
    assert one_line_error(runner.invoke(app, bench, env={"JURYBOX_SIM_BIAS": "left"})) == (
        "error: --sim-bias must be one of none, primacy, recency, got 'left' "
        "(from JURYBOX_SIM_BIAS)")
    assert one_line_error(runner.invoke(app, bench, env={"JURYBOX_PROGRESS": "always"})) == (
        "error: JURYBOX_PROGRESS must be one of 1, true, yes, on or 0, false, no, off (or "
        "empty: a progress line only on a terminal), got 'always'")
    # the same value given as the flag: the same check, the flag's message
    assert one_line_error(runner.invoke(app, [*bench, "--sim-bias", "left"])) == (
        "error: --sim-bias must be one of none, primacy, recency, got 'left'")
    assert "(from JURYBOX_K=" not in runner.invoke(app, [*bench, "--k", "x"]).output


def test_serve_sim_refuses_items_without_ratings(monkeypatch, quiet_servers):
    # it used to start and keep them, unused
    one_line_error(runner.invoke(app, ["serve-sim", "--dataset", "none"],
                                 env={"JURYBOX_SIM_ITEMS": "squality"}),
                   "--items gives the texts of the items rated in --ratings: add --ratings, "
                   "or leave --items unset (from JURYBOX_SIM_ITEMS)")
    one_line_error(runner.invoke(app, ["serve-sim", "--dataset", "none", "--items", "x"]),
                   "--items gives the texts")
    started = runner.invoke(app, ["serve-sim", "--dataset", "none"],
                            env={"JURYBOX_SIM_ITEMS": "squality", "JURYBOX_SIM_RATINGS":
                                 "squality"})
    assert started.exit_code == 0, started.output
    assert "0 items, 2700 ratings" in started.output


@pytest.mark.parametrize("name, args", [
    ("bench", ["bench", "truthfulqa", "--limit", "1", "--k", "2", "--no-cache"]),
    ("report", ["report", "run"]),
    ("score", ["score", "run"]),
    ("serve-sim", ["serve-sim", "--dataset", "none"]),
    ("runs", ["runs", "."]),
])
def test_variables_of_other_commands_are_ignored_whatever_they_hold(
        name, args, folder, monkeypatch, quiet_servers):
    monkeypatch.chdir(folder)
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    own = {p.envvar for p in command.params} | {
        v for v, names in DIRECT.items() if name in names}
    others = sorted(_all_read() - own - {"JURYBOX_CACHE"})
    assert {"JURYBOX_SCORE_POOL", "JURYBOX_FORCE", "JURYBOX_BATCH_DELAY",
            "JURYBOX_SIM_ITEMS"} - own <= set(others)
    result = runner.invoke(app, args, env=dict.fromkeys(others, GARBAGE))
    assert result.exit_code == 0, result.output
    assert "error" not in result.output and "JURYBOX_" not in result.output


def test_a_message_names_only_the_variables_it_is_about():
    class Param:
        def __init__(self, name, opts, envvar):
            self.name, self.opts, self.envvar = name, opts, envvar

    class Source:
        name = "ENVIRONMENT"

    class Ctx:
        class command:
            params = [Param("batch", ["--batch"], "JURYBOX_BATCH"),
                      Param("model", ["--model"], "JURYBOX_MODEL"),
                      Param("limit", ["--limit"], "JURYBOX_LIMIT")]

        @staticmethod
        def get_parameter_source(name):
            return Source()

    with pytest.MonkeyPatch.context() as mp:
        for variable, value in (("JURYBOX_BATCH", "1"), ("JURYBOX_MODEL", "vllm/m"),
                                ("JURYBOX_LIMIT", "10")):
            mp.setenv(variable, value)
        # --batch-fallback is not --batch; 10 and 1 are numbers any message may hold
        assert name_variables("--batch-fallback is for batches; line 10: 1 field", Ctx) == (
            "--batch-fallback is for batches; line 10: 1 field")
        assert name_variables("vllm/m: no such model; --batch needs a key", Ctx) == (
            "vllm/m: no such model; --batch needs a key (from JURYBOX_BATCH, JURYBOX_MODEL)")
        assert name_variables("--limit (JURYBOX_LIMIT) is 10", Ctx) == (
            "--limit (JURYBOX_LIMIT) is 10")
