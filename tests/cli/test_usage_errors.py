"""Usage errors typer would draw in a box are the one-line error form, exit 2."""

import pytest
from typer.testing import CliRunner

from jurybox.cli import app

from ..cli_checks import one_line_error

runner = CliRunner()


@pytest.mark.parametrize("args, fragments", [
    (["bench", "truthfulqa", "--k", "0"], ["'--k'", "greater than or equal to 1",
                                           "bench --help"]),
    (["bench", "truthfulqa", "--concurrency", "many"], ["'--concurrency'", "valid integer"]),
    (["serve-sim", "--port", "70000"], ["'--port'", "less than or equal to 65535"]),
    (["bench"], ["Missing argument 'dataset'"]),
    (["bench", "truthfulqa", "--lmit", "3"], ["No such option: --lmit", "--limit"]),
    (["judgement"], ["No such command 'judgement'", " --help"]),
    (["export", "runs/x", "--format"], ["'--format' requires an argument"]),
])
def test_usage_errors_are_one_line(args, fragments):
    line = one_line_error(runner.invoke(app, args), *fragments)
    assert "╭" not in line and "│" not in line


def test_help_version_and_no_arguments_keep_their_exits():
    assert runner.invoke(app, ["--version"]).exit_code == 0
    shown = runner.invoke(app, ["bench", "--help"])
    assert shown.exit_code == 0 and "Usage" in shown.output and "error" not in shown.output
    bare = runner.invoke(app, [])
    assert bare.exit_code == 2 and "Commands" in bare.output and "error:" not in bare.output
