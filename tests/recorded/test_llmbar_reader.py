"""LLMBar result.json files read into recordings, hand-checked; bad files are one-line errors."""

import json

import pytest

from jurybox.errors import DataError
from jurybox.recorded.llmbar import read_llmbar_result, read_llmbar_tree, subset_of
from jurybox.recorded.llmbar_stats import llmbar_statistics

from .helpers import record, round_, write_result


def test_final_round_null_winner_metrics_prefix_and_repr_string(tmp_path):
    records = [
        record(1, round_("1", "1")),                       # consistent, right
        record(2, round_("1", "2"), round_("2", "2")),     # Swap: the second round is final
        record(2, ["metric 1", "metric 2"], round_(None, None)),  # Metrics first; unparsed
        record("1", repr([round_("2", "1")])),             # results as a Python repr string
    ]
    path = write_result(tmp_path, records, strategy="Swap")
    rec = read_llmbar_result(path)
    assert (rec.subset, rec.judge, rec.strategy, rec.orders) == (
        "LLMBar/Natural", "GPT-4", "Swap", ("AB", "BA"))
    assert [i.item_id for i in rec.items] == ["0", "1", "2", "3"]
    assert [i.label for i in rec.items] == ["A", "B", "B", "A"]
    assert [i.verdicts for i in rec.items] == [("A", "A"), ("B", "B"), (None, None),
                                               ("B", "A")]
    assert rec.items[0].texts == ("Output (a)", "Output (a)")
    stats = llmbar_statistics(rec)
    # LLMBar: an unparsed winner is never correct; two unparsed winners are "equal"
    assert (stats.n, stats.correct_False, stats.correct_True, stats.correct_both,
            stats.equal) == (4, 2, 3, 2, 3)
    assert stats.as_written()["equal"] == "3 / 4 = 75.0%"
    assert stats.as_written()["correct_average"] == "62.5%"


def test_the_repr_string_is_never_evaluated(tmp_path):
    path = write_result(tmp_path, [record(1, "__import__('os').system('false')")])
    with pytest.raises(DataError, match=r"\[0\]\.results.*Python repr"):
        read_llmbar_result(path)


def test_statistics_json_beside_the_file_is_the_reference(tmp_path):
    ok = {"correct_False": "1 / 1 = 100.0%", "correct_True": "0 / 1 = 0.0%",
          "correct_average": "50.0%", "correct_both": "0 / 1 = 0.0%",
          "equal": "0 / 1 = 0.0%"}
    path = write_result(tmp_path, [record(1, round_("1", "2"))], statistics=ok)
    rec = read_llmbar_result(path)
    assert llmbar_statistics(rec).mismatches(rec.reference) == []
    assert llmbar_statistics(rec).mismatches({**ok, "equal": "1 / 1 = 100.0%"}) == ["equal"]


def test_subset_names_and_tree(tmp_path):
    write_result(tmp_path, [record(1, round_("1", "1"))], subset="LLMBar/Adversarial/GPTInst")
    write_result(tmp_path, [record(1, round_("1", "1"))], subset="Processed/MT-Bench",
                 judge="PaLM2", strategy="CoT")
    recs = list(read_llmbar_tree(tmp_path / "Dataset"))
    assert sorted(r.key for r in recs) == [("LLMBar/Adversarial/GPTInst", "GPT-4", "Vanilla"),
                                           ("Processed/MT-Bench", "PaLM2", "CoT")]
    judge_folder = tmp_path / "Dataset/Processed/MT-Bench/evaluators/PaLM2"
    assert [r.key for r in read_llmbar_tree(judge_folder)] == [
        ("Processed/MT-Bench", "PaLM2", "CoT")]
    elsewhere = tmp_path / "mine" / "evaluators" / "j" / "s" / "result.json"
    assert subset_of(elsewhere) == ("mine", "j", "s")


@pytest.mark.parametrize("records, fragments", [
    ([record(3, round_("1", "1"))], ["[0].label", "record 0", "1 or 2, got 3"]),
    ([record(True, round_("1", "1"))], ["[0].label"]),
    ([record(1, round_("1", "1")), record(2, round_("1", "3"))],
     ["[1].results[0].swap = True.winner", "record 1", "or null (unparsed), got '3'"]),
    ([record(1, round_(1, "1"))], ["[0].results[0].swap = False.winner", "got 1"]),
    ([record(1, {"swap = False": {"winner": "1"}})], ["[0].results[0].swap = True",
                                                      "record 0"]),
    ([record(1, round_("1", "1"), ["text"])], ["[0].results[1]", "last element"]),
    ([record(1, "not a list [")], ["[0].results", "Python repr"]),
    ([record(1)], ["[0].results", "non-empty list"]),
    ([record(1, 7)], ["[0].results[0]", "got int"]),
    ([{"label": 1}], ["[0].results", "has no 'results'"]),
    (["nope"], ["[0]", "must be an object"]),
    ({"a": 1}, ["non-empty JSON list"]),
    ("[1, 2", ["not a JSON file"]),
])
def test_bad_files_name_file_record_and_field(tmp_path, records, fragments):
    path = write_result(tmp_path, records if not isinstance(records, str) else records)
    with pytest.raises(DataError) as err:
        read_llmbar_result(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(path))
    for fragment in fragments:
        assert fragment in message, message


def test_a_result_json_outside_the_layout(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps([record(1, round_("1", "1"))]))
    with pytest.raises(DataError, match="LLMBar's layout"):
        read_llmbar_result(path)
    with pytest.raises(DataError, match="no LLMBar result.json"):
        list(read_llmbar_tree(tmp_path))
