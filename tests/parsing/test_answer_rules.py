"""What counts as the judge's answer: every problem named at once, the last object only,
ASCII decimal numbers only, the 0-100 scale, verdict tokens outside code only."""

import json
import re

import pytest

from jurybox.errors import ParseError
from jurybox.parsing import parse_listwise, parse_rubric, parse_rubric_marker, parse_verdict

LABELS = ("A", "B", "C")


def answer(scores=(90, 40, 65), ranking=("A", "C", "B"), **flags):
    return {"candidates": {lab: {"score": s, "major_factual_error": False,
                                 "hallucinated_specificity": False,
                                 "calibrated_uncertainty": False, **flags.get(lab, {})}
                           for lab, s in zip(LABELS, scores)},
            "ranking": list(ranking), "rationale": "A is right."}


def listwise(obj_or_text):
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
    return parse_listwise(text, LABELS)


def rubric(text):
    return parse_rubric(text, lambda s: 1 <= s <= 4, "an integer 1-4", scale_max=4)


def marker(text):
    return parse_rubric_marker(text, lambda s: 1 <= s <= 4, "an integer 1-4", scale_max=4)


def failure(fn, text):
    with pytest.raises(ParseError) as err:
        fn(text)
    return str(err.value)


# ------------------------------------------------------------- A: every problem at once
def test_a_listwise_answer_names_every_bad_score_ranking_problem_and_flag():
    obj = answer(scores=(150, -1, "high"), ranking=("A", "A", "E"),
                 C={"calibrated_uncertainty": "maybe"})
    assert failure(listwise, obj) == (
        "score of A must be a number 0-100, got 150; "
        "score of B must be a number 0-100, got -1; "
        "score of C must be a number 0-100, got 'high'; "
        "calibrated_uncertainty of C must be true or false, got 'maybe'; "
        "ranking must list every label exactly once: duplicate ['A'], missing ['B', 'C'], "
        "unknown ['E']")


def test_a_listwise_answer_names_missing_labels_and_fields_with_the_rest():
    obj = answer()
    del obj["candidates"]["B"]
    del obj["candidates"]["C"]["hallucinated_specificity"]
    obj["candidates"]["A"]["score"] = 101
    obj["ranking"] = "A > C > B"
    assert failure(listwise, obj) == (
        "candidates must be exactly ['A', 'B', 'C']; missing ['B'], unknown []; "
        "score of A must be a number 0-100, got 101; "
        "candidate C lacks ['hallucinated_specificity']; "
        "ranking must list every label exactly once, as a JSON list of ['A', 'B', 'C']; "
        "got 'A > C > B'")


def test_a_rubric_answer_names_a_bad_score_and_a_bad_confidence_at_once():
    assert failure(rubric, '{"score": 7, "confidence": 140}') == (
        "score must be an integer 1-4, got 7; confidence must be 0-100, got 140")
    assert failure(rubric, '{"confidence": "sure"}') == (
        'missing "score"; confidence must be a number, got \'sure\'')


# ------------------------------------------------------------- D: ASCII decimal numbers only
@pytest.mark.parametrize("written", ["1_0", "１０", "٩٠", "9_0", "1e1", "nan", "inf", "0x5A",
                                     "²"])
def test_only_ascii_decimal_strings_are_scores(written):
    obj = answer()
    obj["candidates"]["A"]["score"] = written
    message = failure(listwise, obj)
    assert message.startswith(f"score of A must be a number 0-100, got {written!r}")


def test_the_message_says_why_a_score_with_other_digits_fails():
    obj = answer()
    obj["candidates"]["A"]["score"] = "１０"
    assert failure(listwise, obj) == ("score of A must be a number 0-100, got '１０' "
                                      "(only ASCII decimal digits 0-9 are read)")
    assert failure(rubric, '{"score": "3_0", "confidence": 90}') == (
        "score must be a number, got '3_0' (only ASCII decimal digits 0-9 are read)")
    assert failure(marker, "Fine. [RESULT] ３") == (
        "the score after the last [RESULT] must be an integer 1-4, got '３' "
        "(only ASCII decimal digits 0-9 are read)")
    assert marker("Fine. [RESULT] 3").score == 3  # ASCII digits still read


@pytest.mark.parametrize("written, expected", [("88", 88.0), (" 42.5 ", 42.5), ("90%", 90.0),
                                               (".5", 0.5), ("85/100", 85.0), ("+7", 7.0)])
def test_ascii_decimal_strings_still_read(written, expected):
    obj = answer()
    obj["candidates"]["B"]["score"] = written
    assert listwise(obj).candidates["B"].score == expected


# ------------------------------------------------------------- D: the 0-100 scale
def test_scores_all_within_0_1_with_a_fraction_are_another_scale():
    assert failure(listwise, answer(scores=(0.9, 0.4, 0.65))) == (
        "scores are on a 0-100 scale, but every score is between 0 and 1 (0.9, 0.4, 0.65): "
        "write 90 for 0.9")
    assert failure(listwise, answer(scores=("0.9", 1, 0))).startswith(
        "scores are on a 0-100 scale")


@pytest.mark.parametrize("scores", [(0, 1, 1), (0, 0, 0), (0.5, 40, 65), (1, 0.5, 2)])
def test_scores_that_show_no_other_scale_are_read_as_written(scores):
    # integers only (0s and 1s are low scores on 0-100 too), or a score above 1
    judged = listwise(answer(scores=scores))
    assert tuple(judged.candidates[lab].score for lab in LABELS) == scores


def test_a_fractional_confidence_within_0_1_is_another_scale():
    assert failure(rubric, '{"score": 3, "confidence": 0.85}') == (
        "confidence is on a 0-100 scale, got 0.85: write 85 for 0.85")
    assert rubric('{"score": 3, "confidence": 1}').confidence == 1.0
    assert rubric('{"score": 3, "confidence": 0}').confidence == 0.0


# ------------------------------------------------------------- D: the last answer is the answer
def test_an_invalid_final_object_fails_whatever_valid_draft_came_before():
    text = (f"Draft: {json.dumps(answer())}\nOn reflection, final answer:\n"
            f"{json.dumps(answer(scores=(90, 140, 65)))}")
    assert failure(listwise, text) == "score of B must be a number 0-100, got 140"
    rubric_text = '{"score": 3, "confidence": 90}\nFinal: {"score": 9, "confidence": 90}'
    assert failure(rubric, rubric_text) == "score must be an integer 1-4, got 9"


def test_a_fenced_draft_never_beats_a_later_bare_final_answer():
    text = (f"```json\n{json.dumps(answer())}\n```\nWait, C is better than A. Final:\n"
            f"{json.dumps(answer(scores=(60, 40, 85), ranking=('C', 'A', 'B')))}")
    assert listwise(text).ranking == ("C", "A", "B")
    fenced_last = (f"{json.dumps(answer())}\nFinal:\n```json\n"
                   f"{json.dumps(answer(ranking=('C', 'A', 'B'), scores=(60, 40, 85)))}\n```")
    assert listwise(fenced_last).ranking == ("C", "A", "B")


@pytest.mark.parametrize("final, message", [
    ("{'candidates': {}}", "the JSON object is not valid JSON: Expecting property name "
                           "enclosed in double quotes (at character 2 of it)"),
    ('{"candidates": {"A": 1,}}', "the JSON object is not valid JSON: Expecting property "
                                  "name enclosed in double quotes (at character 24 of it)"),
    ('{"candidates": {"A": ', "the JSON object is never closed (the reply ends inside it)"),
    ('{"ranking": ["A"], "ranking": ["B"]}', "the JSON object repeats the key 'ranking'; "
                                             "write each key once"),
    ('{"rationale": "line one\nline two"}', "the JSON object is not valid JSON: Invalid "
                                            "control character (at character 24 of it)"),
])
def test_a_broken_final_object_fails_whatever_valid_draft_came_before(final, message):
    assert failure(listwise, f"{json.dumps(answer())}\nFinal:\n{final}") == message


def test_prose_braces_after_the_answer_are_not_an_answer():
    text = (f"{json.dumps(answer())}\nScores follow the rubric {{accuracy, clarity}}; "
            f"see {{1}} and {{note {{x}}}}.")
    assert listwise(text).ranking == ("A", "C", "B")


def test_an_object_inside_prose_braces_is_found():
    text = "{Here is my answer: " + json.dumps(answer()) + " as asked}"
    assert listwise(text).ranking == ("A", "C", "B")


def test_an_unclosed_prose_brace_with_a_stray_quote_does_not_hide_the_answer():
    # read from the prose "{", the inch mark opens a string that swallows the answer's
    # structure: the scan reads again from after the unclosed brace
    text = 'The code `if (x) {` prints a 5" box.\n' + json.dumps(answer())
    assert listwise(text).ranking == ("A", "C", "B")


def test_an_unclosed_json_example_before_the_answer_does_not_hide_it():
    text = 'The format is {"candidates": ... and so on.\n' + json.dumps(answer())
    assert listwise(text).ranking == ("A", "C", "B")


# ------------------------------------------------------------- D: verdict tokens in code
@pytest.mark.parametrize("text", [
    "The format is `[[A>B]]` or `[[B>A]]`. I have no verdict.",
    "Answer with ``[[A>>B]]``. I cannot decide.",
    "Use this format:\n```\n[[A>B]]\n```\nI have no verdict.",
    "~~~\nMy final verdict is [[B>A]]\n~~~\nI have no verdict.",
    "Reply like this:\n```\nOutput (a)\n```\nI have no verdict.",
    'The JSON format is `{"verdict": "A"}`. I have no verdict.',
])
def test_verdict_tokens_quoted_in_code_are_not_verdicts(text):
    assert failure(parse_verdict, text).startswith("no verdict found")


def test_a_verdict_outside_code_is_read_and_fenced_json_still_counts():
    assert parse_verdict("The format is `[[A>B]]`. My final verdict is [[B>A]]").verdict == "B"
    assert parse_verdict("My verdict: [[A>B]]\nFormat reminder: `[[B>A]]`").verdict == "A"
    fenced_json = '```json\n{"verdict": "B", "rationale": "x"}\n```'
    assert parse_verdict(fenced_json).verdict == "B"
    # Arena-Hard's rule is kept as it is: its recorded decisions read tokens in code too
    assert parse_verdict("`[[A>B]]`", rule="unanimous").verdict == "A"


def test_an_unclosed_fence_quotes_nothing():
    assert parse_verdict("```\nMy final verdict is [[A>B]]").verdict == "A"


def test_a_long_reply_with_many_backticks_is_read():
    text = ("`x` " * 50_000) + "My final verdict is [[A>B]]"
    assert parse_verdict(text).verdict == "A"
    assert re.search("A>B", parse_verdict(text).token)
