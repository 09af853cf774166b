import json

import pytest

from jurybox.errors import ParseError
from jurybox.parsing import parse_verdict


@pytest.mark.parametrize("text, verdict, token", [
    ("My final verdict is [[A>B]]", "A", "[[A>B]]"),
    ("Assistant B is much better: [[B>>A]]", "B", "[[B>>A]]"),
    ("[[A>>B]]", "A", "[[A>>B]]"),
    ("They are equally good. [[A=B]]", "tie", "[[A=B]]"),
    ("[[A]]", "A", "[[A]]"),
    ("Verdict: [[B]]", "B", "[[B]]"),
    ("[[C]]", "tie", "[[C]]"),  # MT-Bench's tie token
    ("Output (a)", "A", "Output (a)"),
    ("Therefore: Output (b)", "B", "Output (b)"),
])
def test_verdict_tokens(text, verdict, token):
    parsed = parse_verdict(text)
    assert (parsed.verdict, parsed.token) == (verdict, token)


def test_last_verdict_wins_whatever_its_style():
    text = ("At first [[B>A]]. After checking the arithmetic again I changed my mind: [[A=B]]. "
            "Then I found the error in B's last step, so finally [[A>>B]].")
    parsed = parse_verdict(text)
    assert (parsed.verdict, parsed.n_tokens) == ("A", 3)
    fenced_then_revised = '```json\n{"verdict": "A"}\n```\nOn reflection B is right: [[B>A]]'
    assert parse_verdict(fenced_then_revised).verdict == "B"
    assert parse_verdict('[[B>A]] ... rechecked. {"verdict": "A"}').verdict == "A"


def test_a_restated_answer_format_is_not_a_verdict():
    restated = "Options: [[A>>B]], [[A>B]], [[A=B]], [[B>A]], [[B>>A]]. My verdict: B is better."
    with pytest.raises(ParseError, match="no verdict found"):
        parse_verdict(restated)
    assert parse_verdict(restated + "\nFinal: [[B>A]]").verdict == "B"


@pytest.mark.parametrize("text", ["Output (b) is better than Output (a)",
                                  "The program's output (b) is 5, not 6."])
def test_output_mentions_in_prose_are_not_verdicts(text):
    with pytest.raises(ParseError):
        parse_verdict(text)


def test_unanimous_rule_needs_identical_tokens_and_reads_nothing_else():
    assert parse_verdict("[[A>B]] ... [[A>B]]", rule="unanimous").verdict == "A"
    with pytest.raises(ParseError, match="no verdict found"):
        parse_verdict('{"verdict": "A"}', rule="unanimous")
    with pytest.raises(ParseError, match=r"verdict tokens disagree: \['A>>B', 'A>B'\]"):
        parse_verdict("[[A>>B]] and later [[A>B]]", rule="unanimous")


def test_think_blocks_are_ignored():
    assert parse_verdict("<think>maybe [[B>A]]</think>Final: [[A>B]]").verdict == "A"


@pytest.mark.parametrize("obj, verdict", [({"verdict": "A"}, "A"), ({"verdict": "tie"}, "tie"),
                                          ({"winner": "Response B"}, "B"),
                                          ({"decision": "B>A"}, "B")])
def test_json_verdicts(obj, verdict):
    text = "```json\n" + json.dumps({**obj, "rationale": "x"}) + "\n```"
    assert parse_verdict(text).verdict == verdict


def test_no_verdict_is_a_parse_failure_with_raw_text():
    with pytest.raises(ParseError, match="no verdict found") as err:
        parse_verdict("Both answers have merit.")
    assert err.value.raw == "Both answers have merit." and err.value.kind == "parse"


def test_refusal():
    with pytest.raises(ParseError) as err:
        parse_verdict("I'm sorry, I can't compare these.")
    assert err.value.kind == "refusal"


def test_a_repeated_verdict_key_fails_naming_it():
    with pytest.raises(ParseError, match="repeats the key 'verdict'") as err:
        parse_verdict('{"verdict": "A", "rationale": "x", "verdict": "B"}')
    assert err.value.raw.startswith('{"verdict"')
    # a later verdict outside that object is read as usual (the last verdict wins)
    text = '{"verdict": "A", "verdict": "B"}\nOn reflection, having compared both: [[A>B]]'
    assert parse_verdict(text).verdict == "A"
