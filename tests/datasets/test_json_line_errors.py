"""A bad JSON line is reported at its true column and the field it is in or after; a line cut
short says so (json counts columns from the line's newline: a truncated last line was
"column 1", and a cut string "Invalid control character" at the newline)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.datasets import load_listwise_jsonl
from jurybox.errors import DataError
from jurybox.recorded.jsonl import read_recorded_jsonl

from ..cli_checks import one_line_error

GOOD = '{"id": "q1", "prompt": "x", "candidates": ["a", "b"], "gold": 0}\n'
CUT = "the line ends before the JSON object closes"


@pytest.mark.parametrize("second, message", [
    # the break-test's file: the last line cut mid-key, with or without its newline
    ('{"id": "q2", "prompt": "x", "cand',
     f":2: {CUT}: the string at column 29 is not closed (after field 'prompt'); was the line "
     f"cut short?"),
    ('{"id": "q2", "prompt": "x", "cand\n',
     f":2: {CUT}: the string at column 29 is not closed (after field 'prompt'); was the line "
     f"cut short?"),
    # cut inside a value: the field is named
    ('{"id": "q2", "prompt": "x", "candidates": ["a", "b\n',
     f":2: field 'candidates': {CUT}: the string at column 49 is not closed; was the line cut "
     f"short?"),
    # every value complete, the closing brace missing (json said "column 1")
    ('{"id": "q2", "prompt": "x", "candidates": ["a", "b"]\n',
     f":2: {CUT} (after field 'candidates'); was the line cut short?"),
    ('{"id": "q2", "n": 5', f":2: field 'n': {CUT}; was the line cut short?"),
    ("[1, 2\n", ":2: the line ends before the JSON list closes; was the line cut short?"),
    # mid-line: the column counts characters from 1; the field the error is in or after
    ('{"id": "q2", "prompt": "x" "candidates": []}\n',
     ":2: invalid JSON at column 28 (after field 'prompt'): Expecting ',' delimiter"),
    ('{"id": "q2", "candidates": ["a", "b"], }\n',
     ":2: invalid JSON at column 40 (after field 'candidates'): Expecting property name "
     "enclosed in double quotes"),
    ('{"id": "q2", "meta": {"a": 1, "b": }, "candidates": []}\n',
     ":2: field 'meta': invalid JSON at column 36: Expecting value"),
    ('{"id": "q2", "caf\\u00e9": tru}\n',
     ":2: field 'café': invalid JSON at column 27: Expecting value"),
    ("{oops\n", ":2: invalid JSON at column 2: Expecting property name enclosed in double "
                "quotes"),
])
def test_a_bad_line_names_its_column_and_field(tmp_path, second, message):
    path = tmp_path / "items.jsonl"
    path.write_text(GOOD + second)
    with pytest.raises(DataError) as err:
        load_listwise_jsonl(path)
    assert str(err.value) == f"{path}{message}"


def test_the_judge_command_says_it_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "items.jsonl").write_text(GOOD + '{"id": "q2", "prompt": "x", "cand')
    line = one_line_error(CliRunner().invoke(app, ["judge", "items.jsonl", "--model", "sim"]))
    assert line == (f"error: items.jsonl:2: {CUT}: the string at column 29 is not closed "
                    f"(after field 'prompt'); was the line cut short?")


def test_recorded_judgments_are_read_the_same_way(tmp_path):
    path = tmp_path / "recorded.jsonl"
    path.write_text('{"id": "p1", "label": "A", "judges": {"j": ["A", "B"]}}\n'
                    '{"id": "p2", "label": "A", "judges": {"j": ["A", "B"]\n')
    with pytest.raises(DataError) as err:
        read_recorded_jsonl(path)
    assert str(err.value) == f"{path}:2: field 'judges': {CUT}; was the line cut short?"
