"""The pairwise (JudgeBench) file format: every missing field named at once; score says what
it accepts."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.datasets import judgebench, load_dataset
from jurybox.errors import DataError

from ..cli_checks import one_line_error

runner = CliRunner()
PAIR = {"pair_id": "p1", "question": "Q?", "response_A": "a", "response_B": "b",
        "label": "A>B", "source": "livecodebench"}


def _write(tmp_path, *rows):
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_every_missing_field_of_a_line_is_named_at_once(tmp_path):
    second = {"pair_id": "p2", "response_A": "a"}
    path = _write(tmp_path, PAIR, second)
    with pytest.raises(DataError) as err:
        load_dataset(str(path))
    message = str(err.value)
    assert message.startswith(f"{path}:2: missing fields 'question', 'response_B', 'label', "
                              f"'source' (a JudgeBench pair needs pair_id, question, "
                              f"response_A, response_B, label, source)")
    assert "found ['pair_id', 'response_A']" in message


def test_a_pair_without_its_label_is_read_as_pairwise(tmp_path):
    # it used to be sniffed as a generic listwise line ("field 'id': ...")
    path = _write(tmp_path, {k: v for k, v in PAIR.items() if k != "label"})
    one_line_error(runner.invoke(app, ["bench", str(path), "--dry-run"]),
                   "pairs.jsonl:1: missing field 'label' (a JudgeBench pair needs")


def test_the_format_is_documented_with_every_field():
    formats = (Path(__file__).parents[2] / "docs" / "formats.md").read_text()
    section = formats[formats.index("## Pairwise pairs (JudgeBench)"):]
    section = section[:section.index("\n#")]
    for field in judgebench.REQUIRED:
        assert f"`{field}`" in section, field
        assert f"``{field}``" in judgebench.__doc__, field


def test_score_on_a_listwise_file_says_what_it_accepts(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": "a", "prompt": "Q?", "candidates": ["x", "y"],
                                "gold": 0}) + "\n")
    one_line_error(runner.invoke(app, ["score", str(path)]),
                   "items.jsonl:1: not a JudgeBench outputs file",
                   "'pair_id', 'source', 'label', 'judgments'", "listwise dataset",
                   "jurybox run directory", "judgments: two objects")
    pairs = _write(tmp_path, PAIR)  # a pairs file has no judgments to score
    line = one_line_error(runner.invoke(app, ["score", str(pairs)]), "missing 'judgments'",
                          "jurybox score takes a jurybox run directory")
    assert "looks like a listwise dataset" not in line
