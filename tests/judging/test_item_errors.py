"""An item given in memory to jurybox.judge() that the loader refuses is named by its index,
its id when it has one, and the field: not as a line of the run's input.jsonl, a file its
caller never wrote (a break-test got "runs/.../input.jsonl:4: field 'candidates': ...")."""

from __future__ import annotations

import pytest

import jurybox
from jurybox.errors import DataError

OK = [{"id": f"q{i}", "prompt": "Which?", "candidates": ["a", "b"]} for i in range(3)]
JURY = [{"name": "first", "model": "sim", "sim": {"bias": "primacy", "seed": 1}},
        {"name": "last", "model": "sim", "sim": {"bias": "recency", "seed": 2}}]


@pytest.mark.parametrize("bad, message", [
    ({"id": "q3", "prompt": "Which?", "candidates": ["x"]},
     "items[3] (id 'q3'): field 'candidates': needs at least 2 candidates, got 1"),
    ({"id": "q3", "prompt": "", "candidates": ["x", "y"]},
     "items[3] (id 'q3'): field 'prompt': empty prompt (got '')"),
    # a prompt that is not text is not called "empty" (break-it D4)
    ({"id": "q3", "prompt": 5, "candidates": ["x", "y"]},
     "items[3] (id 'q3'): field 'prompt': a prompt is text, got int 5"),
    ({"id": 7, "prompt": "Which?", "candidates": ["x", "y"], "gold": 5},
     "items[3] (id '7'): field 'gold': gold indices 5 must be a non-empty subset of 0..1"),
    # no id of its own (its position is its id): the index alone
    ({"prompt": "Which?", "candidates": ["x", 3]},
     "items[3]: field 'candidates': candidate 1 is empty or not text: 3"),
    # an id the loader refuses is not shown as the item's id
    ({"id": ["l"], "prompt": "Which?", "candidates": ["x", "y"]},
     "items[3]: field 'id': must be a string or an integer, got ['l']"),
    # the first use is named as an item too, not as line 1
    ({"id": "q0", "prompt": "Which?", "candidates": ["x", "y"]},
     "items[3] (id 'q0'): field 'id': duplicate id 'q0' (first seen at items[0])"),
])
def test_a_bad_item_is_named_by_index_id_and_field(tmp_path, bad, message):
    out = tmp_path / "run"
    with pytest.raises(DataError) as caught:
        jurybox.judge([*OK, bad], model="sim", out=out)
    assert str(caught.value) == message and caught.value.index == 3  # type: ignore[attr-defined]
    assert "input.jsonl" not in str(caught.value)
    assert not out.exists()  # refused before any run: nothing left behind


def test_a_jury_names_the_item_the_same_way(tmp_path):
    with pytest.raises(DataError) as caught:
        jurybox.judge([*OK, {"id": "q3", "prompt": "Which?", "candidates": ["x"]}], jury=JURY,
                      out=tmp_path / "jury")
    assert str(caught.value) == ("items[3] (id 'q3'): field 'candidates': needs at least 2 "
                                 "candidates, got 1")


def test_a_file_is_still_named_by_its_line(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"id": "q0", "prompt": "Which?", "candidates": ["x"]}\n')
    with pytest.raises(DataError) as caught:
        jurybox.judge(path, model="sim", out=tmp_path / "run")
    assert str(caught.value) == (f"{path}:1: field 'candidates': needs at least 2 candidates, "
                                 f"got 1")


@pytest.mark.parametrize("extra, problem", [
    ({1, 2}, "is of type set, which JSON cannot hold"),
    (b"x", "is of type bytes, which JSON cannot hold"),
    (float("nan"), "is nan, which standard JSON cannot hold (give null or a number)"),
    (float("inf"), "is inf, which standard JSON cannot hold (give null or a number)"),
])
def test_a_value_json_cannot_hold_is_named_by_its_field(tmp_path, extra, problem):
    # break-it D5 and U1: a set was "Object of type set is not JSON serializable" with no
    # field, and NaN was written to input.jsonl as a bare NaN, which is not JSON
    with pytest.raises(DataError) as caught:
        jurybox.judge([{"id": "x", "prompt": "Q?", "candidates": ["a", "b"],
                        "meta": {"extra": extra}}], model="sim", out=tmp_path / "run")
    assert str(caught.value).startswith(f"items[0] (id 'x'): field 'meta.extra': {problem}")
