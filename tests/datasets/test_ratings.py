import json
import math

import pytest

from jurybox.datasets import BUNDLED_RATINGS, bundled_path, load_ratings
from jurybox.errors import DataError

HEADER = "item_id,rater_id,dimension,score,domain\n"


def _csv(tmp_path, body, header=HEADER):
    path = tmp_path / "r.csv"
    path.write_text(header + body)
    return path


def test_bundled_squality():
    table = load_ratings(bundled_path(BUNDLED_RATINGS["squality"]))
    assert len(table) == 2700 and table.dimensions == ["correctness", "selection", "overall"]
    assert table.raters == ["sq_w2", "sq_w3", "sq_w6", "sq_w8"]
    assert table.ratings[0].domain == "long_document_qfs" and table.ratings[0].group == "bart"


def test_duplicate_rating_names_both_lines(tmp_path):
    path = _csv(tmp_path, "i1,r1,clarity,3,d\ni2,r1,clarity,4,d\ni1,r1,clarity,5,d\n")
    with pytest.raises(DataError, match=r"r\.csv:4: field 'item_id': duplicate rating of item "
                                        r"'i1' by rater 'r1' on 'clarity' \(first on line 2\)"):
        load_ratings(path)


def test_non_numeric_score_where_numbers_are_needed(tmp_path):
    path = _csv(tmp_path, "i1,r1,clarity,high,d\n")
    with pytest.raises(DataError, match=r":2: field 'score': score must be a number"):
        load_ratings(path)
    assert load_ratings(path, numeric=False).ratings[0].score == "high"


def test_unknown_dimension_and_missing_column(tmp_path):
    path = _csv(tmp_path, "i1,r1,clarity,3,d\ni1,r1,colour,3,d\n")
    with pytest.raises(DataError, match=r":3: field 'dimension': unknown dimension 'colour'"):
        load_ratings(path, dimensions={"clarity"})
    bad = _csv(tmp_path, "i1,r1,3\n", header="item_id,rater_id,score\n")
    with pytest.raises(DataError, match=r":1: field 'dimension': missing column"):
        load_ratings(bad)


def test_exclusion_codes_become_missing(tmp_path):
    path = _csv(tmp_path, "i1,r1,market,0,d\ni1,r2,market,2,d\ni1,r1,need,0,d\n")
    table = load_ratings(path, exclusion_codes={"market": [0]})
    scores = [r.score for r in table.ratings]
    assert math.isnan(scores[0]) and scores[1:] == [2.0, 0.0] and table.excluded == 1
    assert load_ratings(path, exclusion_codes=[0]).excluded == 2


def test_jsonl_ratings(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"item_id": "i", "rater_id": "r", "dimension": "d",
                                "score": 4}) + "\n" + json.dumps({"item_id": "i"}) + "\n")
    with pytest.raises(DataError, match=r":2: field 'rater_id': missing or empty"):
        load_ratings(path)


def test_numeric_text_is_a_number_even_for_nominal_so_codes_apply(tmp_path):
    path = _csv(tmp_path, "i1,r1,d,1,x\ni1,r2,d,1.0,x\ni1,r3,d,0,x\ni2,r1,d,low,x\n")
    table = load_ratings(path, numeric=False, exclusion_codes=[0])
    scores = [r.score for r in table.ratings]
    assert scores[:2] == [1.0, 1.0] and math.isnan(scores[2]) and scores[3] == "low"
    assert table.excluded == 1


@pytest.mark.parametrize("body, message", [
    ("i1,r1,d,1_000,x\n", "score must be a number"),
    ("i1,r1,d,\uff11,x\n", "score must be a number"),
    ("i1,r1,d,3,x,extra\n", "more fields than the header"),
])
def test_strict_parsing(tmp_path, body, message):
    with pytest.raises(DataError, match=message):
        load_ratings(_csv(tmp_path, body))
