import json
import re
from collections import Counter

import pytest

from jurybox.datasets import (BUNDLED_OUTPUTS, bundled_path, load_dataset, load_judgebench,
                              load_judgebench_outputs)
from jurybox.errors import DataError


def test_bundled_splits_and_buckets():
    ds = load_dataset("judgebench")
    assert ds.task == "pairwise" and len(ds.items) == 620  # 350 gpt + 270 claude pairs
    by = Counter((it.split, it.bucket) for it in ds.items)
    assert by[("gpt", "mmlu-pro")] == 154 and by[("claude", "livecodebench")] == 31
    assert {it.label for it in ds.items} == {"A>B", "B>A"}
    assert load_dataset("judgebench-claude").sha256.startswith("3b70504588e4")


def test_bad_label_and_empty_response(tmp_path):
    row = {"pair_id": "p", "question": "Q", "response_A": "a", "response_B": "b",
           "source": "livecodebench", "label": "A>B"}
    path = tmp_path / "jb.jsonl"
    path.write_text(json.dumps({**row, "label": "A=B"}) + "\n")
    with pytest.raises(DataError, match=r":1: field 'label': label must be one of"):
        load_judgebench(path)
    path.write_text(json.dumps({**row, "response_B": " "}) + "\n")
    with pytest.raises(DataError, match=r":1: field 'response_B': empty text"):
        load_judgebench(path)


def test_outputs_file_accepts_dicts_and_python_repr_strings(tmp_path):
    pairs = load_judgebench_outputs(bundled_path(BUNDLED_OUTPUTS["arena-hard-haiku"]))
    assert len(pairs) == 270 and pairs[0].decisions == ("B>A", "A=B")
    row = {"pair_id": "p", "source": "mmlu-pro-law", "label": "A>B", "judge_name": "j",
           "judgments": [{"judgment": repr({"response": "x [[A>B]]"}), "decision": "A>B"},
                         {"judgment": {"response": "y [[B>A]]"}, "decision": None}]}
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (pair,) = load_judgebench_outputs(path)
    assert pair.texts == ("x [[A>B]]", "y [[B>A]]") and pair.bucket == "mmlu-pro"


@pytest.mark.parametrize("judgments, field", [
    ([{"judgment": {"response": "x"}, "decision": None}], "'judgments'"),
    (["text", "text"], "'judgments[0]'"),
    ([{"judgment": {"response": 5}, "decision": None}] * 2, "'judgments[0].judgment.response'"),
    ([{"judgment": "{'response': None}", "decision": None}] * 2,
     "'judgments[0].judgment.response'"),
    ([{"judgment": {"response": "x"}, "decision": "A>>B"}] * 2, "'judgments.decision'"),
])
def test_outputs_file_errors_name_the_field(tmp_path, judgments, field):
    row = {"pair_id": "p", "source": "livecodebench", "label": "A>B", "judgments": judgments}
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(DataError, match=re.escape(f":1: field {field}")):
        load_judgebench_outputs(path)
    path.write_text("")
    with pytest.raises(DataError, match="no pairs"):
        load_judgebench_outputs(path)
