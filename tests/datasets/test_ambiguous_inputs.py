"""Ambiguous input files (a key or column given twice, a gold index given twice, a generic file
that looks like another format) are refused or read as what they are, never read one way
silently."""

import json

import pytest

from jurybox.datasets import (load_dataset, load_listwise_jsonl, load_rated_items,
                              load_ratings, load_truthfulqa)
from jurybox.errors import DataError

GOOD = '{"id": "a", "prompt": "Q?", "candidates": ["x", "y"], "gold": 0}'
TQA_HEADER = "Type,Category,Question,Best Answer,Best Incorrect Answer,Incorrect Answers\n"


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _raises(fn, path, line, field, fragment):
    with pytest.raises(DataError) as err:
        fn(path)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)
    assert fragment in err.value.message, err.value.message


# ------------------------------------------------------------------- repeated JSON keys
@pytest.mark.parametrize("line2, key", [
    ('{"id": "b", "prompt": "Q?", "candidates": ["x", "y"], "gold": 0, "gold": 1}', "gold"),
    ('{"id": "b", "id": "c", "prompt": "Q?", "candidates": ["x", "y"], "gold": 0}', "id"),
    # nested: json applies the hook to every object, at any depth
    ('{"id": "b", "prompt": "Q?", "candidates": ["x", "y"], "gold": 0, '
     '"meta": {"k": [{"deep": 1, "deep": 2}]}}', "deep"),
])
def test_a_repeated_json_key_names_file_line_and_key(tmp_path, line2, key):
    path = _write(tmp_path, "d.jsonl", GOOD + "\n" + line2 + "\n")
    _raises(load_listwise_jsonl, path, 2, key, f"key {key!r} appears twice in one JSON object")
    _raises(lambda p: load_dataset(str(p)), path, 2, key, "appears twice")


def test_a_repeated_score_key_in_ratings_jsonl(tmp_path):
    row = {"item_id": "i", "rater_id": "r", "dimension": "d"}
    path = _write(tmp_path, "r.jsonl", json.dumps({**row, "score": 1}) + "\n"
                  + json.dumps(row)[:-1] + ', "score": 1, "score": 5}\n')
    _raises(load_ratings, path, 2, "score", "key 'score' appears twice")


def test_a_repeated_key_in_rated_items_jsonl(tmp_path):
    path = _write(tmp_path, "items.jsonl", '{"item_id": "i", "text": "a", "text": "b"}\n')
    _raises(load_rated_items, path, 1, "text", "key 'text' appears twice")


# ------------------------------------------------------------------ repeated CSV columns
def test_a_truthfulqa_csv_with_question_twice(tmp_path):
    path = _write(tmp_path, "t.csv", TQA_HEADER.rstrip("\n") + ",Question\n"
                  "A,C,Q1?,good,bad,worse,Q2?\n")
    _raises(load_truthfulqa, path, 1, "Question", "column 'Question' appears twice in the header")


def test_a_ratings_csv_with_score_twice(tmp_path):
    path = _write(tmp_path, "r.csv", "item_id,rater_id,dimension,score,score\ni,r,d,1,5\n")
    _raises(load_ratings, path, 1, "score", "column 'score' appears twice in the header")


# -------------------------------------------------------------------- gold given twice
@pytest.mark.parametrize("gold", ["[0, 0]", "[1, 0, 1]"])
def test_a_gold_index_given_twice(tmp_path, gold):
    path = _write(tmp_path, "d.jsonl", GOOD + "\n" + GOOD.replace('"a"', '"b"').replace(
        '"gold": 0', f'"gold": {gold}') + "\n")
    index = json.loads(gold)[-1]  # the first index seen again: 0 in [0, 0], 1 in [1, 0, 1]
    _raises(load_listwise_jsonl, path, 2, "gold", f"gold index {index} appears twice")


def test_distinct_gold_indices_still_load(tmp_path):
    path = _write(tmp_path, "d.jsonl", GOOD.replace('"gold": 0', '"gold": [1, 0]') + "\n")
    assert load_listwise_jsonl(path)[0].gold == frozenset({0, 1})


# ------------------------------------------------------------------ format sniffing by keys
@pytest.mark.parametrize("candidates", [["chosen", "rejected"], ["response_A", "label"]])
def test_a_generic_line_whose_candidates_name_another_format_stays_generic(tmp_path,
                                                                           candidates):
    # the sniffer used to match '"chosen"' and '"rejected"' (or '"response_A"' and '"label"')
    # anywhere in the first line, values included, and read this file as RewardBench 2
    # ("field 'subset': missing field") or JudgeBench
    row = {"id": "a", "prompt": "Q?", "candidates": candidates, "gold": 0}
    path = _write(tmp_path, "d.jsonl", json.dumps(row) + "\n")
    loaded = load_dataset(str(path))
    assert (loaded.format, loaded.task, loaded.n_items) == ("jsonl", "listwise", 1)
    assert loaded.items[0].candidates == tuple(candidates)


def test_rewardbench2_and_judgebench_lines_are_still_sniffed(tmp_path):
    rb2 = {"id": "r", "prompt": "Q?", "chosen": ["yes"], "rejected": ["no"],
           "subset": "Factuality"}
    jb = {"pair_id": "p", "original_id": "o", "source": "livebench-math", "question": "Q?",
          "response_model": "m", "response_A": "a", "response_B": "b", "label": "A>B"}
    assert load_dataset(str(_write(tmp_path, "rb2.jsonl", json.dumps(rb2) + "\n"))).format \
        == "rewardbench2"
    assert load_dataset(str(_write(tmp_path, "jb.jsonl", json.dumps(jb) + "\n"))).format \
        == "judgebench"
