import json
import re

import pytest

from jurybox.errors import ParseError
from jurybox.parsing import parse_listwise

LABELS = ("A", "B", "C")


def answer(**over):
    obj = {"candidates": {lab: {"score": s, "major_factual_error": False,
                                "hallucinated_specificity": False,
                                "calibrated_uncertainty": lab == "C"}
                          for lab, s in zip(LABELS, (90, 40, 65))},
           "ranking": ["A", "C", "B"], "rationale": "A is right."}
    obj.update(over)
    return obj


def test_bare_json():
    j = parse_listwise(json.dumps(answer()), LABELS)
    assert j.ranking == ("A", "C", "B")
    assert j.candidates["B"].score == 40.0
    assert j.candidates["C"].calibrated_uncertainty is True


def test_fenced_json():
    text = "Sure.\n```json\n" + json.dumps(answer(), indent=2) + "\n```\nDone."
    assert parse_listwise(text, LABELS).candidates["A"].score == 90.0


def test_after_think_block_ignores_drafts_inside_it():
    draft = json.dumps(answer(ranking=["B", "A", "C"]))
    text = f"<think>first guess {draft} no wait</think>\n{json.dumps(answer())}"
    assert parse_listwise(text, LABELS).ranking == ("A", "C", "B")


def test_unopened_think_block():
    text = "reasoning without an opening tag </think> " + json.dumps(answer())
    assert parse_listwise(text, LABELS).ranking == ("A", "C", "B")


def test_json_in_prose():
    text = "Here is my verdict: " + json.dumps(answer()) + " Let me know."
    assert parse_listwise(text, LABELS).rationale == "A is right."


def test_scores_as_strings_and_flags_as_strings():
    obj = answer()
    obj["candidates"]["A"]["score"] = "88"
    obj["candidates"]["B"]["score"] = " 42.5 "
    obj["candidates"]["C"]["calibrated_uncertainty"] = "false"
    j = parse_listwise(json.dumps(obj), LABELS)
    assert (j.candidates["A"].score, j.candidates["B"].score) == (88.0, 42.5)
    assert j.candidates["C"].calibrated_uncertainty is False


def test_last_valid_object_wins():
    text = json.dumps(answer(ranking=["B", "A", "C"])) + "\nCorrected:\n" + json.dumps(answer())
    assert parse_listwise(text, LABELS).ranking == ("A", "C", "B")


@pytest.mark.parametrize("ranking", [["A", "A", "B"], ["A", "B"], ["A", "B", "C", "D"],
                                     "A > C > B"])
def test_ranking_that_is_not_a_permutation_fails(ranking):
    with pytest.raises(ParseError, match="ranking must list every label exactly once") as err:
        parse_listwise(json.dumps(answer(ranking=ranking)), LABELS)
    assert err.value.raw  # the raw text is kept


def test_missing_label_fails():
    obj = answer()
    del obj["candidates"]["B"]
    with pytest.raises(ParseError, match=r"missing \['B'\]"):
        parse_listwise(json.dumps(obj), LABELS)


@pytest.mark.parametrize("score", [150, -1, "high", True, None])
def test_bad_score_fails(score):
    obj = answer()
    obj["candidates"]["A"]["score"] = score
    with pytest.raises(ParseError, match="score of A must be a number 0-100"):
        parse_listwise(json.dumps(obj), LABELS)


def test_no_json_and_refusal_are_failures_of_their_kind():
    with pytest.raises(ParseError) as err:
        parse_listwise("A is best, then C.", LABELS)
    assert err.value.kind == "parse" and err.value.raw == "A is best, then C."
    with pytest.raises(ParseError) as err:
        parse_listwise("I'm sorry, but I can't help with that.", LABELS)
    assert err.value.kind == "refusal"


def test_truncated_json_fails():
    text = json.dumps(answer())
    with pytest.raises(ParseError):
        parse_listwise(text[: len(text) // 2], LABELS)


def test_a_think_tag_quoted_in_the_rationale_survives():
    quoted = "A quotes a literal <think>plan</think> tag; that is not a fact."
    text = "<think>compare A and C</think>\n" + json.dumps(answer(rationale=quoted))
    assert parse_listwise(text, LABELS).rationale == quoted


def test_a_draft_quoting_a_closing_tag_inside_a_think_block_is_still_ignored():
    draft = json.dumps(answer(ranking=["B", "A", "C"], rationale="ends with </think> here"))
    text = f"<think>draft {draft} no wait</think>\n{json.dumps(answer())}"
    assert parse_listwise(text, LABELS).ranking == ("A", "C", "B")


@pytest.mark.parametrize("score, expected", [("85/100", 85.0), ("85 out of 100", 85.0),
                                             (" 72.5 / 100 ", 72.5)])
def test_a_score_out_of_100_reads_as_its_numerator(score, expected):
    obj = answer()
    obj["candidates"]["A"]["score"] = score
    assert parse_listwise(json.dumps(obj), LABELS).candidates["A"].score == expected


@pytest.mark.parametrize("score", ["8/10", "85 out of 1000", "4/5"])
def test_a_fraction_out_of_another_maximum_fails(score):
    obj = answer()
    obj["candidates"]["A"]["score"] = score
    with pytest.raises(ParseError, match=f"score of A must be a number 0-100, got '{score}'"):
        parse_listwise(json.dumps(obj), LABELS)


def test_a_repeated_key_fails_naming_it():
    body = json.dumps(answer())[1:-1]  # the members, to repeat one by hand
    text = '{"ranking": ["B", "A", "C"], ' + body + "}"  # ranking twice, last ["A", "C", "B"]
    with pytest.raises(ParseError, match="repeats the key 'ranking'") as err:
        parse_listwise(text, LABELS)
    assert err.value.raw == text


def test_a_key_repeated_in_a_nested_object_fails_naming_it():
    text = json.dumps(answer()).replace('"score": 90,', '"score": 10, "score": 90,')
    assert text.count('"score": ') == 4  # A's score twice, B and C once
    with pytest.raises(ParseError, match="repeats the key 'score'"):
        parse_listwise(text, LABELS)


def test_a_ranking_that_is_not_a_permutation_names_the_labels_that_break_it():
    with pytest.raises(ParseError, match=re.escape(
            "ranking must list every label exactly once: duplicate ['A'], missing ['C'], "
            "unknown ['E']")):
        parse_listwise(json.dumps(answer(ranking=["A", "A", "B", "E"])), LABELS)
    with pytest.raises(ParseError, match=re.escape(
            "ranking must list every label exactly once: missing ['B']")):
        parse_listwise(json.dumps(answer(ranking=["A", "C"])), LABELS)
