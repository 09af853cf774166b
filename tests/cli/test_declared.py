"""The options table (cli/options.toml, read by cli/_declared.py): every option's words once."""

from __future__ import annotations

import tomllib
from importlib.resources import files

import pytest
from typer.main import get_command

from jurybox.cli import _panels, app
from jurybox.cli._declared import argument, declared, help_of, used_keys


def _table() -> dict[str, dict[str, str]]:
    return tomllib.loads(files("jurybox.cli").joinpath("options.toml").read_text("utf-8"))


def _every_param() -> list[tuple[str, object]]:
    root = get_command(app)
    ctx = root.context_class(root)  # typer's own click, vendored or not
    out = []

    def walk(cmd, path: str) -> None:
        for p in cmd.params:
            out.append((path, p))
        for name in getattr(cmd, "list_commands", lambda ctx: [])(ctx):
            walk(cmd.get_command(ctx, name), f"{path} {name}".strip())

    walk(root, "")
    return out


def test_every_entry_is_declared_by_some_command_and_every_option_has_help():
    params = _every_param()  # imports every command module
    assert len(params) > 200
    unused = set(_table()) - used_keys()
    assert unused == set(), f"entries no command declares: {sorted(unused)}"
    no_help = [(c, p.name) for c, p in params if p.name != "help" and not p.help]
    assert no_help == []


def test_every_entry_names_a_known_panel_and_only_known_fields():
    panels = {n[len("PANEL_"):].lower() for n in dir(_panels)
              if n.startswith("PANEL_") and isinstance(getattr(_panels, n), str)}
    for key, entry in _table().items():
        assert set(entry) <= {"panel", "metavar", "envvar", "help", "help_as"}, key
        assert entry.get("panel", "start") in panels, key
        assert ("help" in entry) != ("help_as" in entry), key


def _param(command: str, name: str):
    return next(p for c, p in _every_param() if c == command and p.name == name)


def test_a_declared_option_takes_its_words_from_the_table():
    seed = _param("bench", "seed")
    assert seed.opts == ["--seed"]
    assert seed.envvar == "JURYBOX_SEED"  # by the rule: no envvar in the entry
    assert seed.rich_help_panel == _panels.PANEL_RUN and seed.metavar == "N"
    assert seed.help.startswith("Run seed: everything random")
    # a command's own option with its own variable, and a flag pair
    assert _param("score", "subset").envvar == "JURYBOX_SCORE_SUBSET"
    pool = _param("score", "pool")
    assert (pool.opts, pool.secondary_opts) == (["--pool"], ["--no-pool"])
    assert pool.envvar == "JURYBOX_SCORE_POOL"
    # aliases after the key; "" in the table: no variable at all
    assert _param("batch", "out").opts == ["--out", "-o"]
    assert _param("export", "texts").envvar == "JURYBOX_EXPORT_TEXTS"
    assert _param("rank", "path").help.startswith("Systems' outputs")
    # declared outside a command: the same option info
    info = declared("--seed")
    assert (info.envvar, info.metavar) == ("JURYBOX_SEED", "N")
    assert argument("rank path").help == _param("rank", "path").help


def test_help_fields_are_filled_only_when_asked():
    filled = help_of("--max-answer-chars", {"MAX_ANSWER_CHARS": 1234567,
                                            "DEFAULT_MAX_ANSWER_CHARS": 50000})
    assert filled.startswith("Answer budget, characters, 1 to 1,234,567:")
    assert filled.endswith("Default 50,000.")
    # braces of a help that is not filled stay as written (--template's {question})
    assert "{question}" in help_of("--template")
    # help_as: serve-sim's --faults says what --sim-faults says
    assert help_of("serve-sim --faults") == help_of("--sim-faults")


def test_a_missing_entry_is_named():
    with pytest.raises(KeyError, match=r"'--no-such' is not in jurybox/cli/options.toml"):
        declared("--no-such")
