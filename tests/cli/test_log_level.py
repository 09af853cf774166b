"""JURYBOX_LOG_LEVEL: empty means the default; a bad value is one line and exit 2, and
--version / --help still answer."""

import logging

import pytest

from jurybox import __version__
from jurybox.cli import main
from jurybox.cli._logging import log_level
from jurybox.errors import ConfigError

LEVELS = "DEBUG, INFO, WARNING, ERROR, CRITICAL"


@pytest.mark.parametrize("value, level", [
    (None, logging.WARNING), ("", logging.WARNING), ("  ", logging.WARNING),
    ("debug", logging.DEBUG), (" Info ", logging.INFO), ("ERROR", logging.ERROR),
])
def test_levels_are_read_in_any_case_and_empty_is_the_default(value, level):
    assert log_level(value) == level


@pytest.mark.parametrize("value", ["bogus", "10", "WARN ING", "trace"])
def test_a_bad_level_is_a_config_error_listing_the_levels(value):
    with pytest.raises(ConfigError, match=rf"JURYBOX_LOG_LEVEL must be one of {LEVELS} "
                                          rf"\(or empty for WARNING\), got {value!r}"):
        log_level(value)


def _main(monkeypatch, capsys, value, *args):
    monkeypatch.setenv("JURYBOX_LOG_LEVEL", value)
    monkeypatch.setattr("sys.argv", ["jurybox", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    out, err = capsys.readouterr()
    return exit_.value.code, out, err


def test_a_bad_level_stops_a_command_with_one_line(monkeypatch, capsys):
    code, out, err = _main(monkeypatch, capsys, "bogus", "cache", "info", "--path", "x.sqlite")
    assert code == 2 and out == ""
    assert err == (f"error: JURYBOX_LOG_LEVEL must be one of {LEVELS} (or empty for WARNING), "
                   f"got 'bogus'\n")


@pytest.mark.parametrize("args", [["--version"], ["judge", "--help"]])
def test_version_and_help_still_answer_with_a_bad_level(monkeypatch, capsys, args):
    code, out, err = _main(monkeypatch, capsys, "bogus", *args)
    assert code == 0
    assert err.startswith("warning: JURYBOX_LOG_LEVEL must be one of") and err.count("\n") == 1
    assert (f"jurybox {__version__}" if args == ["--version"] else "Usage:") in out


@pytest.mark.parametrize("value", ["", "info"])
def test_an_empty_or_good_level_runs_the_command(monkeypatch, capsys, value):
    code, out, err = _main(monkeypatch, capsys, value, "--version")
    assert (code, out, err) == (0, f"jurybox {__version__}\n", "")
