import pytest

from jurybox.errors import ParseError
from jurybox.parsing import RubricJudgment, parse_rubric
from jurybox.protocols import vote

J = RubricJudgment


def test_majority_of_confident_predictions():
    v = vote([J(3, 90, ""), J(3, 80, ""), J(1, 79.9, "")])  # 79.9 < 80 is dropped
    assert (v.score, v.n_predictions, v.n_kept, v.tie) == (3, 3, 2, False)


def test_tie_goes_to_the_lower_median():
    assert vote([J(1, 95, ""), J(4, 95, ""), J(2, 95, ""), J(4, 95, ""), J(1, 95, "")]).score \
        == 2  # 1 and 4 tie with two votes each; median of [1, 1, 2, 4, 4] = 2
    v = vote([J(2, 90, ""), J(3, 90, "")])
    assert (v.score, v.tie) == (2, True)  # median_low([2, 3]) = 2


def test_all_dropped_abstains():
    v = vote([J(2, 10, ""), J(3, 50, "")])
    assert v.score is None and v.n_kept == 0
    assert vote([]).score is None


def test_threshold_is_configurable():
    assert vote([J(2, 10, "")], threshold=0).score == 2


def _valid(score):
    return 1 <= score <= 4 or score == 0


def test_parse_rubric_output():
    j = parse_rubric('```json\n{"score": "3", "confidence": 85, "reasoning": "ok"}\n```',
                     _valid, "an integer 1-4 or 0")
    assert (j.score, j.confidence, j.reasoning) == (3, 85.0, "ok")
    assert parse_rubric('{"score": 0, "confidence": 90}', _valid, "x").score == 0


@pytest.mark.parametrize("text, message", [
    ('{"score": 7, "confidence": 90}', "score must be an integer 1-4 or 0, got 7"),
    ('{"score": 2.5, "confidence": 90}', "score must be an integer 1-4 or 0"),
    ('{"score": 2, "confidence": 120}', "confidence must be 0-100"),
    ('{"score": 2}', "confidence must be a number"),
    ("It deserves a 3.", "no JSON object found"),
])
def test_parse_rubric_failures(text, message):
    with pytest.raises(ParseError, match=message):
        parse_rubric(text, _valid, "an integer 1-4 or 0")


def test_parse_rubric_reads_fractions_out_of_the_scale_maximum():
    # "3/4" on a 1-4 scale is 3; a confidence out of 100 is its numerator
    j = parse_rubric('{"score": "3/4", "confidence": "90 out of 100", "reasoning": "ok"}',
                     _valid, "an integer 1-4 or 0", scale_max=4)
    assert (j.score, j.confidence) == (3, 90.0)
    with pytest.raises(ParseError, match=r"score must be a number \(a fraction only out of 4\)"
                                         r", got '3/5'"):
        parse_rubric('{"score": "3/5", "confidence": 90}', _valid, "x", scale_max=4)


def test_parse_rubric_rejects_a_repeated_key():
    with pytest.raises(ParseError, match="repeats the key 'score'"):
        parse_rubric('{"score": 1, "confidence": 90, "score": 4}', _valid, "x")


def test_parse_rubric_keeps_a_quoted_closing_think_tag():
    j = parse_rubric('{"score": 2, "confidence": 90, "reasoning": "ends in </think>"}',
                     _valid, "x")
    assert (j.score, j.reasoning) == (2, "ends in </think>")


def _marker(text):
    from jurybox.parsing import parse_rubric_marker

    return parse_rubric_marker(text, _valid, "an integer 1-4 or 0", scale_max=4)


def test_result_marker_answer_reads_the_last_marker():
    j = _marker("Feedback: clear but thin. [RESULT] 2\nOn reflection, less clear.\n[RESULT] 1")
    # the last marker wins; the reasoning is everything before it, "Feedback:" dropped
    assert (j.score, j.confidence) == (1, 100.0)
    assert j.reasoning == "clear but thin. [RESULT] 2\nOn reflection, less clear."
    assert _marker("Feedback: ok\n[RESULT]: **3**.").score == 3  # decoration around the score
    assert _marker("Feedback: ok [RESULT] 4/4").score == 4  # a fraction out of the maximum


def test_result_marker_ignores_an_echoed_rubric_and_think_blocks():
    echoed = ("Score 1: unclear\nScore 4: very clear\nScore 3: mostly clear\n"
              "Feedback: the item is mostly clear. [RESULT] 2")
    assert _marker(echoed).score == 2  # never the "Score n:" lines
    assert _marker("<think>[RESULT] 4</think>Feedback: weak. [RESULT] 1").score == 1


@pytest.mark.parametrize("text, message", [
    ("Score 3: mostly clear. I would give it a 3.", r"no \[RESULT\] marker found"),
    ("Feedback: great. [RESULT] 7", r"the score after the last \[RESULT\] must be an integer "
                                    r"1-4 or 0, got '7'"),
    ("Feedback: fine. [RESULT] 2.5", r"must be an integer 1-4 or 0, got '2.5'"),
    ("Feedback: fine. [RESULT] 3/5", r"must be an integer 1-4 or 0, got '3/5'"),
    ("[RESULT] 3 and more [RESULT] four", r"got 'four'"),
])
def test_result_marker_failures_are_parse_errors(text, message):
    with pytest.raises(ParseError, match=message) as err:
        _marker(text)
    assert err.value.raw == text and err.value.kind == "parse"
