"""The generic recorded format: read, written back, and every bad line a one-line error."""

import gzip
import json

import pytest

from jurybox.errors import DataError
from jurybox.recorded.jsonl import looks_recorded, read_recorded_jsonl, write_recorded_jsonl


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


ROWS = [
    {"id": "q1", "label": "A", "subset": "s", "strategy": "v",
     "judges": {"j1": ["A", "B"], "j2": {"verdicts": ["A", None], "texts": ["t1", None]}}},
    {"id": "q2", "label": "tie", "subset": "s", "strategy": "v", "judges": {"j1": ["tie", "A"]}},
]


def test_read_groups_by_subset_judge_strategy(tmp_path):
    recs = read_recorded_jsonl(_write(tmp_path / "r.jsonl", ROWS))
    assert [r.key for r in recs] == [("s", "j1", "v"), ("s", "j2", "v")]
    j1, j2 = recs
    assert [(i.item_id, i.label, i.verdicts) for i in j1.items] == [
        ("q1", "A", ("A", "B")), ("q2", "tie", ("tie", "A"))]
    assert j2.items[0].texts == ("t1", None) and j1.orders == ("AB", "BA")


def test_defaults_three_orders_and_gzip_round_trip(tmp_path):
    rows = [{"id": 7, "label": "B", "orders": ["AB", "BA", "AB"], "judges": {"j": ["B"] * 3}}]
    recs = read_recorded_jsonl(_write(tmp_path / "mine.jsonl", rows))
    assert recs[0].key == ("mine", "j", "") and recs[0].orders == ("AB", "BA", "AB")
    assert recs[0].items[0].item_id == "7"
    out = tmp_path / "back.jsonl.gz"
    assert write_recorded_jsonl(recs, out) == 1
    again = read_recorded_jsonl(out)
    assert again[0].items == recs[0].items and again[0].orders == recs[0].orders
    assert looks_recorded(out) and not looks_recorded(_write(tmp_path / "jb.jsonl", [
        {"pair_id": "p", "judgments": []}]))


@pytest.mark.parametrize("row, fragments", [
    ({"id": "q", "label": "C", "judges": {"j": ["A", "A"]}}, [":1:", "'label'", "got 'C'"]),
    ({"id": "q", "label": "A", "judges": {"j": ["A", "X"]}}, ["'judges.j[1]'", "got 'X'"]),
    ({"id": "q", "label": "A", "judges": {"j": ["A"]}}, ["'judges.j'", "1 verdicts for 2"]),
    ({"id": "q", "label": "A", "judges": {"j": "A"}}, ["'judges.j'", "list of verdicts"]),
    ({"id": "q", "label": "A", "judges": {"j": {"verdict": ["A", "A"]}}},
     ["'judges.j.verdict'", "did you mean 'verdicts'"]),
    ({"id": "q", "label": "A", "judges": {"j": {"verdicts": ["A", "A"], "texts": ["x"]}}},
     ["'judges.j.texts'"]),
    ({"id": "q", "label": "A", "judges": {}}, ["'judges'", "at least one judge"]),
    # label is optional (unlabelled), so a misspelt one is an unknown key, not a missing one
    ({"id": "q", "lable": "A", "judges": {"j": ["A", "A"]}}, ["'lable'", "did you mean 'label'"]),
    ({"id": "q", "judges": {"j": ["A", "A"]}, "label": "C"}, ["'label'", "or null"]),
    ({"id": "q", "label": "A", "judges": {"j": ["A", "A"]}, "lable": 1},
     ["'lable'", "did you mean 'label'"]),
    ({"id": "", "label": "A", "judges": {"j": ["A", "A"]}}, ["'id'"]),
    ({"id": "q", "label": "A", "orders": ["AB", "CA"], "judges": {"j": ["A", "A"]}},
     ["'orders'", "'AB' or 'BA'"]),
    ({"id": "q", "label": "A", "orders": "AB", "judges": {"j": ["A", "A"]}}, ["'orders'"]),
])
def test_bad_lines(tmp_path, row, fragments):
    path = _write(tmp_path / "bad.jsonl", [row])
    with pytest.raises(DataError) as err:
        read_recorded_jsonl(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}:1:")
    for fragment in fragments:
        assert fragment in message, message


def test_cross_line_errors(tmp_path):
    dup = _write(tmp_path / "dup.jsonl", [ROWS[0], ROWS[0]])
    with pytest.raises(DataError, match=r"dup.jsonl:2: field 'id': duplicate id 'q1'.*line 1"):
        read_recorded_jsonl(dup)
    mixed = _write(tmp_path / "mixed.jsonl", [
        ROWS[0], {**ROWS[1], "orders": ["BA", "AB"]}])
    with pytest.raises(DataError, match=r"mixed.jsonl:2: field 'orders'.*line 1"):
        read_recorded_jsonl(mixed)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(DataError, match="no items"):
        read_recorded_jsonl(empty)
    broken = tmp_path / "broken.jsonl.gz"
    body = "".join(json.dumps({**ROWS[0], "id": f"q{k}"}) + "\n" for k in range(2000))
    broken.write_bytes(gzip.compress(body.encode())[:2000])
    with pytest.raises(DataError, match="gzip"):
        read_recorded_jsonl(broken)
