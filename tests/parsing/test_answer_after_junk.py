"""A valid answer after junk is found (issue 29): within the answer budget the judge's answer
is read after any prefix (5 MB of prose, open braces, think tags, small objects, stray
quotes), beside a 900-deep object in its rationale, and before a 10,000-deep object that is
no answer; past the budget the failure names the budget and the answer's length."""

import json

import pytest

from jurybox.errors import ParseError
from jurybox.parsing import parse_listwise, parse_rubric, parse_verdict
from jurybox.parsing.extract import MAX_DEPTH, MAX_REPLY_CHARS, TooDeep, answer_budget

LABELS = ("A", "B", "C")
MB5 = 5_000_000
FLAGS = {"major_factual_error": False, "hallucinated_specificity": False,
         "calibrated_uncertainty": False}


def answer(rationale: object = "A is right.") -> str:
    return json.dumps({"candidates": {lab: {"score": s, **FLAGS}
                                      for lab, s in zip(LABELS, (90, 40, 65))},
                       "ranking": ["A", "C", "B"], "rationale": rationale})


def deep(levels: int, *, closed: bool = True) -> str:
    return '{"a":' * levels + ("1" + "}" * levels if closed else "")


def prefixes(size: int) -> dict[str, str]:
    """Junk of about ``size`` characters a judge might write before its answer."""
    return {
        "prose": ("The first response is better because " * (size // 38 + 1))[:size],
        "open braces": "{" * size,
        "think tags never closed": "<think>" * (size // 7),
        "think blocks": "<think>draft {\"candidates\": 1}</think>" * (size // 38),
        "small objects": '{"a": "b"} ' * (size // 11),
        "stray quotes in braces": '{x"' * (size // 3),
    }


LISTWISE = {**{f"5 MB of {name}": junk + "\n" + answer()
               for name, junk in prefixes(MB5).items()},
            "a 900-deep object in the rationale": answer("@@").replace('"@@"', deep(900)),
            "a 10,000-deep object after the answer": answer() + "\n" + deep(10_000),
            "a 10,000-deep object never closed after it": answer() + "\n"
                                                           + deep(10_000, closed=False),
            "5 MB of think block holding a draft": "<think>" + "x" * MB5
                                                   + answer("draft").replace("90", "10")
                                                   + "</think>" + answer()}


def read(text: str):
    return parse_listwise(text, LABELS)


@pytest.mark.parametrize("case", LISTWISE)
def test_the_answer_after_junk_is_found_within_the_budget(case):
    text = LISTWISE[case]
    with answer_budget(len(text)):
        judgment = read(text)
    assert {lab: c.score for lab, c in judgment.candidates.items()} == {
        "A": 90.0, "B": 40.0, "C": 65.0}
    assert judgment.ranking == ("A", "C", "B")


def test_the_rationale_beside_a_deep_object_is_read_to_max_depth():
    # the answer is level 1, its rationale 2: levels 2-32 are read, deeper is TooDeep, and a
    # rationale that is not a string is kept as its text
    judgment = read(LISTWISE["a 900-deep object in the rationale"])
    levels = MAX_DEPTH - 1
    assert judgment.rationale == "{'a': " * levels + "TooDeep()" + "}" * levels


@pytest.mark.parametrize("case", [c for c in LISTWISE if c.startswith("5 MB")])
def test_past_the_budget_the_failure_names_it_and_the_length(case):
    text = LISTWISE[case]
    with pytest.raises(ParseError) as err:
        read(text)  # the default budget, 1,000,000 characters
    assert str(err.value) == (f"the answer is {len(text):,} characters long, over the answer "
                              f"budget of {MAX_REPLY_CHARS:,} characters (--max-answer-chars): "
                              f"answer briefly")
    with answer_budget(len(text) - 1), pytest.raises(ParseError, match="over the answer budget"):
        read(text)


def test_an_object_that_is_no_answer_never_stands_in_and_a_draft_never_does():
    # after the answer, an object without an answer key is data the judge quoted
    assert read(answer() + ' Sources: {"url": "x"}').ranking == ("A", "C", "B")
    # a last object with an answer key is the answer, valid or not: the draft before loses
    with pytest.raises(ParseError) as err:
        read(answer() + ' Final: {"ranking": ["A", "B", "C"], "rationale": "C is right."}')
    assert str(err.value) == 'missing "candidates" object mapping each label to its judgment'
    with pytest.raises(ParseError, match=r"^the JSON object is not valid JSON: Expecting ','"):
        read(answer() + ' Final: {"ranking": ["A", "B", "C"] "rationale": "C is right."}')
    # no object holds an answer key: the last one is read, and fails naming what is missing
    with pytest.raises(ParseError, match=r'^missing "candidates" object'):
        read('{"url": "x"} {"note": 1}')


@pytest.mark.parametrize("name, junk", prefixes(200_000).items())
def test_rubric_and_verdict_answers_after_junk_are_found(name, junk):
    rubric = json.dumps({"score": 3, "confidence": 80, "reasoning": "fine"})
    judged = parse_rubric(junk + "\n" + rubric + "\n" + deep(10_000), lambda s: 1 <= s <= 4,
                          "an integer 1-4", scale_max=4)
    assert (judged.score, judged.confidence, judged.reasoning) == (3, 80.0, "fine")
    verdict = parse_verdict(junk + '\n{"verdict": "B", "why": ' + deep(900) + "}")
    assert (verdict.verdict, verdict.token) == ("B", '"verdict": "B"')


def test_a_score_written_as_a_deep_value_fails_naming_it():
    text = answer().replace('"score": 90', '"score": ' + "[" * 100 + "]" * 100, 1)
    with pytest.raises(ParseError) as err:
        read(text)
    # the answer is level 1, its candidates 2, A's judgment 3: lists at 4-32, then TooDeep
    assert str(err.value) == ("score of A must be a number 0-100, got "
                              + "[" * 29 + "TooDeep()]]…")
    assert str(TooDeep()) == f"a value nested more than {MAX_DEPTH} levels deep"
