import pytest

from jurybox.errors import ParseError
from jurybox.parsing import json_objects, strip_thinking
from jurybox.parsing.extract import number_field


def test_think_blocks_are_removed_only_outside_json_strings():
    text = '<think>hidden</think>{"a": "<think>kept</think>"} <Thinking>x</Thinking> shown'
    assert strip_thinking(text) == '{"a": "<think>kept</think>"}  shown'


def test_a_quoted_closing_tag_is_not_an_unopened_block():
    text = '{"reasoning": "it ends with </think>"}'
    assert strip_thinking(text) == text
    assert list(json_objects(text)) == [{"reasoning": "it ends with </think>"}]


def test_leading_unopened_block_and_unclosed_block():
    assert strip_thinking('plan {"draft": 1} </think> {"final": 2}') == ' {"final": 2}'
    assert strip_thinking("<think>never closed {}") == "<think>never closed {}"


def test_draft_json_inside_a_think_block_is_ignored():
    text = '<think>draft {"score": 1, "note": "</think>"} hmm</think>{"score": 3}'
    assert list(json_objects(text)) == [{"score": 3}]


def test_json_spans_report_repeated_keys_at_any_level():
    from jurybox.parsing.extract import json_spans

    text = 'x {"a": {"b": 1, "b": 2}, "c": 3, "c": 4} y {"d": 5}'
    spans = list(json_spans(text))
    assert [(s.start, s.end, s.repeated) for s in spans] == [(2, 41, ("b", "c")), (44, 52, ())]
    assert spans[0].obj == {"a": {"b": 2}, "c": 4}  # json's last-wins, kept for reference
    assert list(json_objects(text)) == [{"d": 5}]  # an object repeating a key is not yielded


@pytest.mark.parametrize("value, expected", [("85/100", 85.0), ("85 out of 100", 85.0),
                                             ("85 Out Of 100.0", 85.0), (" 90% ", 90.0), (7, 7.0)])
def test_number_field_reads_a_fraction_out_of_the_scale_maximum(value, expected):
    assert number_field("score", value, scale_max=100) == expected


@pytest.mark.parametrize("value, scale_max, message", [
    ("8/10", 100, r"score must be a number \(a fraction only out of 100\), got '8/10'"),
    ("3/5", 4, r"score must be a number \(a fraction only out of 4\), got '3/5'"),
    ("85/100", None, r"score must be a number, got '85/100'"),
])
def test_number_field_rejects_other_fractions_naming_the_field(value, scale_max, message):
    with pytest.raises(ParseError, match=message):
        number_field("score", value, scale_max=scale_max)
