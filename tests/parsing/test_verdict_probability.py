"""A pairwise verdict's token probability from the answer's log-probabilities
(jurybox.parsing.verdict_probability), and reading them from a chat completion
(jurybox.providers.logprobs). Values hand-computed from the log-probabilities given."""

import math

import pytest

from jurybox.providers import TokenLogprob
from jurybox.providers.logprobs import chat_logprobs
from jurybox.parsing import parse_verdict
from jurybox.parsing.verdict_probability import verdict_probability


def _t(token, logprob=0.0, top=()):
    return TokenLogprob(token=token, logprob=logprob, top=tuple(top))


def _p(text, tokens):
    v = parse_verdict(text)
    return verdict_probability(text, v.token, v.verdict, tokens)


def test_the_letter_token_of_an_arena_hard_verdict_gives_the_share_of_a_over_a_and_b():
    # P(A) = exp(-0.5) / (exp(-0.5) + exp(-1.2)) = 0.6682 (the "=" alternative, a tie, is left
    # out: the probability is conditional on the judge naming A or B)
    text = "My final verdict is [[A>B]]"
    tokens = [_t("My final verdict is "), _t("[["),
              _t("A", -0.5, [("A", -0.5), ("B", -1.2), ("=", -2.0)]), _t(">B]]")]
    expected = math.exp(-0.5) / (math.exp(-0.5) + math.exp(-1.2))
    assert _p(text, tokens) == pytest.approx(expected) and round(expected, 4) == 0.6682


def test_the_letter_inside_a_longer_token_and_the_last_verdict_are_the_ones_read():
    # the first verdict (a revised impression) is not the one read; the letter is the 3rd
    # character of the token "[[B": alternatives "[[A" (A) and "[[B" (B) and "[[" (neither)
    text = "I leaned [[A>B]] at first. Final: [[B>A]]"
    tokens = [_t("I leaned "), _t("[[A", -0.1, [("[[A", -0.1)]), _t(">B]] at first. Final: "),
              _t("[[B", -0.3, [("[[B", -0.3), ("[[A", -1.6), ("[[", -3.0)]), _t(">A]]")]
    a, b = math.exp(-1.6), math.exp(-0.3)
    assert _p(text, tokens) == pytest.approx(a / (a + b))  # 0.2142: B is the likelier


def test_a_json_verdict_and_a_listed_token_missing_from_its_alternatives():
    # the chosen token "B" is not among the alternatives listed: it counts itself
    text = '{"verdict": "B", "rationale": "ok"}'
    tokens = [_t('{"verdict": "'), _t("B", -0.05), _t('", "rationale": "ok"}')]
    assert _p(text, tokens) == 0.0  # only B's mass: P(first shown better) = 0
    tokens[1] = _t("B", -0.05, [("A", -3.0)])
    a, b = math.exp(-3.0), math.exp(-0.05)
    assert _p(text, tokens) == pytest.approx(a / (a + b))


def test_no_probability_for_a_tie_missing_logprobs_or_tokens_that_are_not_the_text():
    assert verdict_probability("[[A=B]]", "[[A=B]]", "tie", [_t("[[A=B]]")]) is None
    assert verdict_probability("[[A]]", "[[A]]", "A", None) is None
    assert verdict_probability("[[A]]", "[[A]]", "A", [_t("[[B]]")]) is None  # not the text
    # alternatives naming neither letter
    assert verdict_probability("[[A]]", "[[A]]", "A", [_t("[["), _t("A", -0.2, [("x", -0.1)]),
                                                        _t("]]")]) == 1.0


def test_chat_logprobs_reads_the_completions_shape_and_refuses_malformed_ones():
    old = {"logprobs": {"tokens": ["[[", "A", "]]"], "token_logprobs": [0.0, -0.25, 0.0],
                        "top_logprobs": [{"[[": 0.0}, {"B": -1.5, "A": -0.25}, None]}}
    tokens = chat_logprobs(old)
    assert [(t.token, t.logprob, t.top) for t in tokens] == [
        ("[[", 0.0, (("[[", 0.0),)), ("A", -0.25, (("A", -0.25), ("B", -1.5))), ("]]", 0.0, ())]
    bad = [{"logprobs": {"content": [{"token": "A", "logprob": "x"}]}},
           {"logprobs": {"content": [{"token": "A", "logprob": 0.5}]}},  # positive
           {"logprobs": {"content": [{"token": "A", "logprob": -1, "top_logprobs": 3}]}},
           {"logprobs": {"tokens": ["A"], "token_logprobs": []}},
           {"logprobs": {"content": [{"token": 1, "logprob": -1}]}},
           {"logprobs": {"content": [{"token": "A", "logprob": float("nan")}]}}]
    assert [chat_logprobs(c) for c in bad] == [None] * len(bad)


def test_the_letter_is_read_from_the_verdicts_value_not_its_field_name():
    # "better" holds a b: the letter read is the value's A (the 12th character of the token
    # '"better": "A"'); [[B<A]] means A but its letter is B: no probability
    text = '{"better": "A"}'
    tokens = [_t('{"better": "'), _t("A", -0.4, [("A", -0.4), ("B", -1.1)]), _t('"}')]
    a, b = math.exp(-0.4), math.exp(-1.1)
    assert _p(text, tokens) == pytest.approx(a / (a + b))
    assert verdict_probability("[[B<A]]", "[[B<A]]", "A", [_t("[["), _t("B", -0.1), _t("<A]]")]
                               ) is None


def test_hostile_logprobs_are_repaired_or_dropped_never_an_error():
    # a lone surrogate (JSON "\ud800") becomes U+FFFD, so the answer can still be stored
    top = [{"token": "\ud800x", "logprob": 0}]
    (tok,) = chat_logprobs({"logprobs": {"content": [
        {"token": "\ud800", "logprob": 0.0, "top_logprobs": top}]}})
    assert tok.token == "\ufffd" and tok.top == (("\ufffdx", 0.0),)
    assert TokenLogprob.model_validate_json(tok.model_dump_json()) == tok
    # an integer too large for a float is malformed, not an OverflowError
    huge = {"logprobs": {"content": [{"token": "A", "logprob": -10 ** 400}]}}
    assert chat_logprobs(huge) is None
    # tokens that do not make up the answer's text are not kept
    ok = {"logprobs": {"content": [{"token": "[[A]]", "logprob": -0.1}]}}
    assert chat_logprobs(ok, "[[A]]") is not None and chat_logprobs(ok, "[[B]]") is None
