"""Never a silent simulated judge on the user's own data: judge, bench and personalize on a
user's file need --model (or JURYBOX_MODEL); bundled data keeps the simulated default."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import jurybox
from jurybox.cli import app
from jurybox.errors import ConfigError

from ..cli_checks import one_line_error

runner = CliRunner()
CHOICES = ("'sim' to try the tool", "told the gold answers", "'local'", "'openai/gpt-4o-mini'",
           "'vllm/<model>'")


@pytest.fixture
def mine(tmp_path, monkeypatch):
    monkeypatch.delenv("JURYBOX_MODEL", raising=False)
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "prompt": f"Question {i}?",
                                        "candidates": [f"a{i}", f"b{i}", f"c{i}"], "gold": 0})
                            + "\n" for i in range(3)))
    return path


@pytest.mark.parametrize("command", [["judge"], ["bench"], ["judge", "--dry-run"],
                                     ["bench", "--dry-run"]])
def test_a_users_file_without_a_model_is_refused_listing_the_choices(command, mine, tmp_path):
    out = tmp_path / "run"
    line = one_line_error(runner.invoke(app, [*command, str(mine), "--out", str(out)]),
                          f"no judge named for {str(mine)!r}", "--model (or JURYBOX_MODEL)",
                          *CHOICES)
    assert "SIMULATED" not in line
    assert not out.exists()


def test_personalize_on_the_users_ratings_without_a_model_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("JURYBOX_MODEL", raising=False)
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,rater_id,dimension,score\nu1,a,overall,3\nu1,b,overall,4\n")
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"item_id": "u1", "text": "a summary"}) + "\n")
    one_line_error(runner.invoke(app, ["personalize", str(ratings), "--items", str(items),
                                       "--rubric", "squality"]),
                   f"no judge named for {str(ratings)!r}", *CHOICES)


def test_model_sim_or_jurybox_model_judges_the_users_file(mine, tmp_path, monkeypatch):
    result = runner.invoke(app, ["judge", str(mine), "--model", "sim", "--k", "2", "--out",
                                 str(tmp_path / "a"), "--no-cache"])
    assert result.exit_code == 0, result.output
    monkeypatch.setenv("JURYBOX_MODEL", "sim")
    result = runner.invoke(app, ["judge", str(mine), "--k", "2", "--out", str(tmp_path / "b"),
                                 "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "SIMULATED" in result.output


def test_bundled_data_keeps_the_simulated_default(tmp_path, monkeypatch):
    monkeypatch.delenv("JURYBOX_MODEL", raising=False)
    result = runner.invoke(app, ["bench", "truthfulqa", "--limit", "2", "--k", "2", "--out",
                                 str(tmp_path / "run"), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "SIMULATED" in result.output


def test_the_library_judge_needs_a_model_too(tmp_path):
    items = [{"id": "q", "prompt": "Q?", "candidates": ["a", "b"]}]
    with pytest.raises(ConfigError, match="no judge named for 'the items': choose one with "
                                          "model=...: 'sim' to try the tool"):
        jurybox.judge(items, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_library_never_judges_a_users_file_with_an_unnamed_judge(tmp_path):
    from jurybox.compare import BenchConfig
    from jurybox.errors import ConfigError
    from jurybox.personalize import PersonalizeConfig

    mine = tmp_path / "mine.jsonl"
    with pytest.raises(ConfigError, match="no judge named for .*mine.jsonl.*model="):
        BenchConfig(dataset=str(mine))
    with pytest.raises(ConfigError, match="no judge named for 'r.csv'"):
        PersonalizeConfig(ratings="r.csv", items="i.csv", rubric="pbig")
    # bundled data keeps its simulated judge; a named judge is taken as given
    assert BenchConfig(dataset="truthfulqa").model == "sim"
    assert PersonalizeConfig(ratings="squality", items="squality", rubric="squality").model \
        == "sim"
    assert BenchConfig(dataset=str(mine), model="openai/m").model == "openai/m"


@pytest.mark.parametrize("spec", ["local//dev/zero", "local/models/judge.bin"])
def test_a_local_judge_path_that_is_not_gguf_is_refused_not_read_as_an_alias(spec):
    # local//dev/zero judged with the default model, taking the path as a served name
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model", spec, "--limit", "1",
                                       "--dry-run"]),
                   f"--model {spec}: a file for the local judge must be a .gguf file")
