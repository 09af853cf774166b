"""Malformed inputs: every one is a DataError naming file, line and field at load time, never a
traceback, a mid-run failure, or bad data accepted silently."""

import json

import pytest

from jurybox.datasets import (load_dataset, load_judgebench, load_judgebench_outputs,
                              load_listwise_jsonl, load_rated_items, load_ratings,
                              load_rewardbench2, load_truthfulqa)
from jurybox.errors import ConfigError, DataError
from jurybox.protocols.prompts import LABELS

GOOD = {"id": "a", "prompt": "Q?", "candidates": ["x", "y"], "gold": 0}
TQA_HEADER = "Type,Category,Question,Best Answer,Best Incorrect Answer,Incorrect Answers\n"
RATINGS_HEADER = "item_id,rater_id,dimension,score\n"


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _jsonl(tmp_path, *lines, name="d.jsonl"):
    """Raw JSON lines (strings, so a test can spell escapes json.dumps would not write)."""
    return _write(tmp_path, name, "".join(line + "\n" for line in lines))


def _raises(fn, path, line, field, fragment):
    with pytest.raises(DataError) as err:
        fn(path)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)
    assert fragment in err.value.message, err.value.message


# ------------------------------------------------------------------------------- a. directory
def test_a_directory_as_the_dataset_is_a_data_error(tmp_path):
    (tmp_path / "somedir").mkdir()
    with pytest.raises(DataError, match=r"somedir: not a file"):
        load_dataset(str(tmp_path / "somedir"))


# ------------------------------------------------------------------------- b. deeply nested
def test_json_nested_100000_deep_names_the_line(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    path = _jsonl(tmp_path, json.dumps(GOOD), '{"id": "b", "prompt": ' + deep + "}")
    _raises(load_listwise_jsonl, path, 2, None, "nested too deeply")


def test_deeply_nested_json_ratings_line(tmp_path):
    path = _jsonl(tmp_path, "[" * 100_000 + "]" * 100_000, name="r.jsonl")
    _raises(load_ratings, path, 1, None, "nested too deeply")


# ----------------------------------------------------------------------- c. CSV field limit
def test_truthfulqa_csv_field_over_the_csv_limit_names_the_line(tmp_path):
    # csv.field_size_limit() is 131072 by default; the field is on line 3 (header is line 1)
    path = _write(tmp_path, "t.csv", TQA_HEADER + "A,C,Q1?,good,bad,worse\n"
                  + "A,C,Q2?," + "x" * 200_000 + ",bad,worse\n")
    _raises(load_truthfulqa, path, 3, None, "field larger than field limit (131072)")


def test_ratings_csv_field_over_the_csv_limit_names_the_line(tmp_path):
    path = _write(tmp_path, "r.csv", RATINGS_HEADER + "i1,r1,d,1\ni2,r1,d," + "9" * 200_000
                  + "\n")
    _raises(load_ratings, path, 3, None, "field larger than field limit")


# ---------------------------------------------------------------------------- d. not UTF-8
def test_non_utf8_items_csv_names_file_and_line(tmp_path):
    path = tmp_path / "items.csv"
    path.write_bytes("item_id,text\na,fine\nb,caf\xe9\n".encode("latin-1"))
    _raises(load_rated_items, path, 3, None, "not UTF-8 text")


def test_non_utf8_truthfulqa_csv_names_the_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes((TQA_HEADER + "A,C,Q?,caf\xe9,bad,worse\n").encode("latin-1"))
    _raises(load_truthfulqa, path, 2, None, "not UTF-8 text")


# --------------------------------------------------------------------- e. over 26 candidates
def test_more_than_26_candidates_is_refused_at_load(tmp_path):
    from jurybox.datasets.validate import MAX_CANDIDATES

    assert MAX_CANDIDATES == len(LABELS) == 26  # judges see candidates labelled A-Z
    row = {**GOOD, "candidates": [f"c{i}" for i in range(27)]}
    _raises(load_listwise_jsonl, _jsonl(tmp_path, json.dumps(row)), 1, "candidates",
            "at most 26 candidates")
    ok = _jsonl(tmp_path, json.dumps({**row, "candidates": row["candidates"][:26]}),
                name="ok.jsonl")
    assert load_listwise_jsonl(ok)[0].n == 26


def test_rewardbench2_row_with_27_candidates(tmp_path):
    row = {"id": 1, "prompt": "Q?", "chosen": ["good"], "rejected": [f"bad{i}" for i in range(26)],
           "subset": "Factuality"}
    _raises(load_rewardbench2, _jsonl(tmp_path, json.dumps(row)), 1, "chosen/rejected",
            "at most 26")


def test_truthfulqa_n_above_26_is_a_config_error():
    with pytest.raises(ConfigError, match="must be 2 to 26, got 27"):
        load_dataset("truthfulqa", n=27)


# ------------------------------------------------------------- f, h. lone surrogates and NUL
@pytest.mark.parametrize("field, value, fragment", [
    ("prompt", '"Q\\ud800?"', "lone surrogate '\\ud800' (at position 1)"),
    ("prompt", '"Q\\u0000?"', "NUL character (at position 1)"),
])
def test_bad_text_in_the_prompt(tmp_path, field, value, fragment):
    path = _jsonl(tmp_path, '{"id": "a", "prompt": %s, "candidates": ["x", "y"], "gold": 0}'
                  % value)
    _raises(load_listwise_jsonl, path, 1, field, fragment)


def test_bad_text_in_a_candidate_names_its_index(tmp_path):
    path = _jsonl(tmp_path, '{"id": "a", "prompt": "Q", "candidates": ["x", "y\\udfff"], '
                            '"gold": 0}')
    _raises(load_listwise_jsonl, path, 1, "candidates[1]", "lone surrogate")


def test_bad_text_in_rewardbench2_names_chosen_or_rejected(tmp_path):
    path = _jsonl(tmp_path, '{"id": 1, "prompt": "Q", "chosen": ["ok"], '
                            '"rejected": ["fine", "nul\\u0000"], "subset": "Factuality"}')
    _raises(load_rewardbench2, path, 1, "rejected[1]", "NUL")


def test_bad_text_in_judgebench(tmp_path):
    row = ('{"pair_id": "p", "source": "mmlu-pro-law", "question": "Q", '
           '"response_A": "a\\ud800", "response_B": "b", "label": "A>B"}')
    _raises(load_judgebench, _jsonl(tmp_path, row), 1, "response_A", "lone surrogate")


def test_bad_text_in_judgebench_outputs(tmp_path):
    judgment = '{"judgment": {"response": "[[A>B]]\\u0000"}, "decision": "A>B"}'
    row = ('{"pair_id": "p", "source": "livecodebench", "label": "A>B", "judgments": [%s, %s]}'
           % (judgment, judgment))
    _raises(load_judgebench_outputs, _jsonl(tmp_path, row), 1, "judgments[0].judgment.response",
            "NUL")


def test_nul_in_a_truthfulqa_csv_names_the_column(tmp_path):
    path = _write(tmp_path, "t.csv", TQA_HEADER + 'A,C,Q?,"go\0od",bad,worse\n')
    _raises(load_truthfulqa, path, 2, "Best Answer", "NUL")


def test_bad_text_in_rated_items_and_ratings(tmp_path):
    items = _jsonl(tmp_path, '{"item_id": "a", "text": "x\\ud800"}', name="i.jsonl")
    _raises(load_rated_items, items, 1, "text", "lone surrogate")
    ratings = _jsonl(tmp_path, '{"item_id": "a", "rater_id": "r\\u0000", "dimension": "d", '
                               '"score": 1}', name="r.jsonl")
    _raises(load_ratings, ratings, 1, "rater_id", "NUL")


# ------------------------------------------------------------------------------- g. long ids
def test_an_id_of_5000_digits_names_line_and_field(tmp_path):
    # 5,000 digits is past Python's int-str conversion limit (4300): json raises ValueError
    path = _jsonl(tmp_path, json.dumps(GOOD),
                  '{"id": ' + "1" * 5000 + ', "prompt": "Q", "candidates": ["x", "y"], '
                  '"gold": 0}')
    _raises(load_listwise_jsonl, path, 2, "id", "<a number of 5000 digits>")


def test_ids_are_capped_at_256_characters(tmp_path):
    from jurybox.datasets.validate import MAX_NAME_CHARS

    assert MAX_NAME_CHARS == 256
    long_id = {**GOOD, "id": "x" * 257}
    _raises(load_listwise_jsonl, _jsonl(tmp_path, json.dumps(long_id)), 1, "id",
            "257 characters long")
    ok = _jsonl(tmp_path, json.dumps({**GOOD, "id": "x" * 256}), name="ok.jsonl")
    assert load_listwise_jsonl(ok)[0].item_id == "x" * 256
    # an integer id becomes its decimal text
    number = _jsonl(tmp_path, json.dumps({**GOOD, "id": 1234}), name="n.jsonl")
    assert load_listwise_jsonl(number)[0].item_id == "1234"


# ------------------------------------------------------------------- j. empty or boolean ids
@pytest.mark.parametrize("item_id, fragment", [
    ("", "missing or empty (got '')"), ("  ", "missing or empty"),
    (True, "must be a string or an integer, got True"), (1.5, "got 1.5"),
    (None, "missing or empty (got None)"), (["a"], "got ['a']"),
])
def test_bad_ids_are_refused(tmp_path, item_id, fragment):
    path = _jsonl(tmp_path, json.dumps({**GOOD, "id": item_id}))
    _raises(load_listwise_jsonl, path, 1, "id", fragment)


def test_boolean_or_empty_pair_ids_and_item_ids(tmp_path):
    row = {"pair_id": False, "source": "livecodebench", "question": "Q", "response_A": "a",
           "response_B": "b", "label": "A>B"}
    _raises(load_judgebench, _jsonl(tmp_path, json.dumps(row)), 1, "pair_id", "got False")
    items = _jsonl(tmp_path, json.dumps({"item_id": True, "text": "t"}), name="i.jsonl")
    _raises(load_rated_items, items, 1, "item_id", "got True")
    ratings = _jsonl(tmp_path, json.dumps({"item_id": "a", "rater_id": True, "dimension": "d",
                                           "score": 1}), name="r.jsonl")
    _raises(load_ratings, ratings, 1, "rater_id", "got True")


@pytest.mark.parametrize("group", [5, True, ["g"], {"g": 1}])
def test_a_non_string_group_is_refused(tmp_path, group):
    path = _jsonl(tmp_path, json.dumps({**GOOD, "group": group}))
    _raises(load_listwise_jsonl, path, 1, "group", "must be a string")


def test_a_string_group_is_kept_and_a_blank_one_is_none(tmp_path):
    path = _jsonl(tmp_path, json.dumps({**GOOD, "group": "g1"}),
                  json.dumps({**GOOD, "id": "b", "group": ""}))
    assert [it.group for it in load_listwise_jsonl(path)] == ["g1", None]


def test_rated_items_text_must_be_a_string(tmp_path):
    # it was str()-ed before: a list became the text "['a', 'b']"
    items = _jsonl(tmp_path, json.dumps({"item_id": "a", "text": ["a", "b"]}), name="i.jsonl")
    _raises(load_rated_items, items, 1, "text", "not text")


# ---------------------------------------------------------------------------------- k. BOM
def test_a_byte_order_mark_is_accepted_in_every_text_format(tmp_path):
    ratings = tmp_path / "r.csv"
    ratings.write_text(RATINGS_HEADER + "i1,r1,d,3\n", encoding="utf-8-sig")
    assert ratings.read_bytes()[:3] == b"\xef\xbb\xbf"
    assert [r.score for r in load_ratings(ratings).ratings] == [3.0]
    tqa = tmp_path / "t.csv"
    tqa.write_text("Question,Best Answer,Best Incorrect Answer,Incorrect Answers\n"
                   "Q?,good,bad,worse\n", encoding="utf-8-sig")
    assert load_truthfulqa(tqa)[0].prompt == "Q?"  # "Question" is the first column here
    items = tmp_path / "i.csv"
    items.write_text("item_id,text\na,t\n", encoding="utf-8-sig")
    assert list(load_rated_items(items)) == ["a"]
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text(json.dumps(GOOD) + "\n", encoding="utf-8-sig")
    assert load_listwise_jsonl(jsonl)[0].item_id == "a"


@pytest.mark.parametrize("key, field", [("gld", "gold"), ("candidate", "candidates"),
                                        ("prompts", "prompt"), ("Gold", "gold")])
def test_a_near_miss_of_a_field_is_refused_not_ignored(tmp_path, key, field):
    row = {k: v for k, v in GOOD.items() if k != field} | {key: GOOD[field]}
    path = _jsonl(tmp_path, json.dumps(GOOD | {"id": "b"}), json.dumps(row))
    _raises(lambda p: load_listwise_jsonl(p, labelled=False), path, 2, key,
            f"unknown field {key!r}; did you mean {field!r}?")


def test_other_extra_fields_stay_the_users_own(tmp_path):
    path = _jsonl(tmp_path, json.dumps(GOOD | {"golden": 1, "ids": [1], "source": "web"}))
    assert [item.gold for item in load_listwise_jsonl(path)] == [frozenset({0})]
