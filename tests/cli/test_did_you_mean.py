"""A mistyped bundled name gets the closest one suggested, on one error line."""

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import ConfigError, DataError
from jurybox.datasets import load_dataset, load_ratings
from jurybox.protocols import protocol_class
from jurybox.rubrics import load_rubric

from ..cli_checks import one_line_error

runner = CliRunner()


@pytest.mark.parametrize("args, suggestion", [
    (["bench", "truthfulq", "--dry-run"], "did you mean 'truthfulqa'?"),
    (["bench", "judgebench-gtp", "--dry-run"], "did you mean 'judgebench-gpt'?"),
    (["bench", "truthfulqa", "--protocols", "direct,pfc", "--dry-run"], "did you mean 'pcf'?"),
    (["agreement", "squalty"], "did you mean 'squality'?"),
    (["personalize", "squalty", "--rubric", "squality", "--dry-run"],
     "did you mean 'squality'?"),
    (["personalize", "squality", "--rubric", "pbg", "--dry-run"], "did you mean 'pbig'?"),
    (["personalize", "squality", "--items", "squalty", "--rubric", "squality", "--dry-run"],
     "did you mean 'squality'?"),
    (["serve-sim", "--dataset", "judgebnch"], "did you mean 'judgebench'?"),
    (["score", "arena-hard-haik"], "did you mean 'arena-hard-haiku'?"),
])
def test_cli_suggests_the_bundled_name(args, suggestion, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line_error(runner.invoke(app, args), suggestion)


def test_library_lookups_suggest_too():
    with pytest.raises(DataError, match="did you mean 'truthfulqa'"):
        load_dataset("truthfulq")
    with pytest.raises(DataError, match="did you mean 'squality'"):
        load_ratings("squalty")
    with pytest.raises(DataError, match=r"did you mean 'offensiveness'\? \(bundled: pbig"):
        load_rubric("offensivenes")
    with pytest.raises(ConfigError, match="did you mean 'both-orders'"):
        protocol_class("both-order")


def test_nothing_close_gets_no_suggestion(tmp_path):
    line = one_line_error(runner.invoke(app, ["bench", str(tmp_path / "mine.jsonl")]),
                          "file not found")
    assert "did you mean" not in line
