"""Hostile judge answers: every text ends as a judgment or a ParseError naming why, never
another exception; the work stays linear; the text read is capped."""

import json
import threading

import pytest

from jurybox.errors import ParseError
from jurybox.parsing import parse_listwise, parse_rubric, parse_rubric_marker, parse_verdict
from jurybox.parsing import scan
from jurybox.parsing.extract import (MAX_DEPTH, MAX_REPLY_CHARS, TooDeep, answer_budget,
                                     json_spans, strip_thinking)
from jurybox.parsing.scan import _TOO_DEEP_MARK

LABELS = ("A", "B", "C")


def answer(scores=(90, 40, 65), ranking=("A", "C", "B")):
    return json.dumps({"candidates": {lab: {"score": s, "major_factual_error": False,
                                            "hallucinated_specificity": False,
                                            "calibrated_uncertainty": False}
                                      for lab, s in zip(LABELS, scores)},
                       "ranking": list(ranking), "rationale": "A is right."})


def with_score(literal: str) -> str:
    """A listwise answer whose score of A is written as ``literal`` (raw JSON text)."""
    return answer().replace('"score": 90', f'"score": {literal}', 1)


def listwise(text):
    return parse_listwise(text, LABELS)


def rubric(text):
    return parse_rubric(text, lambda s: 1 <= s <= 4, "an integer 1-4", scale_max=4)


def marker(text):
    return parse_rubric_marker(text, lambda s: 1 <= s <= 4, "an integer 1-4", scale_max=4)


PARSERS = {"listwise": listwise, "rubric": rubric, "marker": marker, "verdict": parse_verdict}
DEEP = '{"a":' * 10_000 + "1" + "}" * 10_000
HUGE = "9" * 5_000

HOSTILE = {
    "deep nesting alone": DEEP,
    "deep nesting after a valid answer": answer() + "\n" + DEEP,
    "deep nesting never closed after a valid answer": answer() + "\n" + '{"a":' * 10_000,
    "deep arrays in an answer": answer().replace('"ranking": ', '"ranking": ' + "[" * 10_000),
    "huge-digit score": with_score(HUGE),
    "huge-digit confidence": json.dumps({"score": 3, "reasoning": "x"})[:-1]
                             + f', "confidence": {HUGE}}}',
    "huge exponent": with_score("1e999999"),
    "NaN literal": with_score("NaN"),
    "Infinity literal": with_score("Infinity"),
    "-Infinity literal": with_score("-Infinity"),
    "null score": with_score("null"),
    "bool score": with_score("true"),
    "list score": with_score("[90]"),
    "object score": with_score('{"value": 90}'),
    "duplicated keys": answer().replace('"score": 90', '"score": 10, "score": 90', 1),
    "huge-digit verdict text": f'{{"verdict": "A", "n": {HUGE}}}',
    "huge-digit marker": f"Feedback: fine. [RESULT] {HUGE}",
    "lone surrogate and NUL": answer()[:-1] + ', "x": "\\ud800\\u0000"}',
    "200 kB of braces": "{" * 200_000,
    "200 kB of think tags": "<think>" * 30_000,
    "quotes after braces": '{x"' * 50_000,
}


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("case", HOSTILE)
def test_every_hostile_text_is_a_judgment_or_a_parse_error(case, parser):
    try:
        PARSERS[parser](HOSTILE[case])
    except ParseError as exc:
        assert str(exc) and len(str(exc)) < 500  # a message for the re-ask, never the text
        assert exc.raw == HOSTILE[case]


@pytest.mark.parametrize("text, message", [
    # an object that is no answer (no key of one), deeper than MAX_DEPTH: read to that depth
    (DEEP, 'missing "candidates" object mapping each label to its judgment; ranking must list '
           "every label exactly once, as a JSON list of ['A', 'B', 'C']; got None"),
    # an answer whose ranking opens 10,000 lists: cut at MAX_DEPTH, still not valid JSON
    (HOSTILE["deep arrays in an answer"], "the JSON object is not valid JSON: Expecting value"),
    (with_score(HUGE), "score of A must be a number 0-100, got 99999999999999999999… "
                       "(a number of 5,000 characters)"),
    (with_score("1e999999"), "score of A must be a number 0-100, got 1e999999"),
    (with_score("NaN"), "score of A must be a number 0-100, got NaN"),
    (with_score("Infinity"), "score of A must be a number 0-100, got Infinity"),
    (with_score("-Infinity"), "score of A must be a number 0-100, got -Infinity"),
    (with_score("null"), "score of A must be a number 0-100, got None"),
    (with_score("true"), "score of A must be a number 0-100, got True"),
    (with_score("[90]"), "score of A must be a number 0-100, got [90]"),
    (answer().replace('"score": 90', '"score": 10, "score": 90', 1),
     "the JSON object repeats the key 'score'; write each key once"),
])
def test_hostile_listwise_answers_fail_naming_why(text, message):
    with pytest.raises(ParseError) as err:
        listwise(text)
    assert str(err.value) == message


def test_hostile_rubric_numbers_fail_naming_why():
    with pytest.raises(ParseError, match=r"^confidence must be a finite number, got 9{20}… "
                                         r"\(a number of 5,000 characters\)$"):
        rubric(HOSTILE["huge-digit confidence"])
    with pytest.raises(ParseError, match=r"^score must be a finite number, got NaN; "
                                         r"confidence must be a number, got None$"):
        rubric('{"score": NaN}')
    with pytest.raises(ParseError, match=r"the score after the last \[RESULT\] must be an "
                                         r"integer 1-4, got '9{40}'… \(5,000 characters\)"):
        marker(HOSTILE["huge-digit marker"])


def _decoded_lengths(monkeypatch) -> list[int]:
    """The lengths of the texts json decodes from here on (a list filled as it decodes)."""
    decoded: list[int] = []
    real_decode = scan.json.JSONDecoder.decode

    def decode(self, s, *args, **kwargs):
        decoded.append(len(s))
        return real_decode(self, s, *args, **kwargs)

    monkeypatch.setattr(scan.json.JSONDecoder, "decode", decode)
    return decoded


def _depth(obj):
    """How many objects deep ``obj`` is along its ``"a"`` keys, and what it holds at the end."""
    depth = 0
    while isinstance(obj, dict):
        obj, depth = obj["a"], depth + 1
    return depth, obj


def test_a_deep_object_is_decoded_only_to_max_depth(monkeypatch):
    # json recurses once per level (RecursionError at about 1,000): the scan measures the
    # nesting first, and a value deeper than MAX_DEPTH is cut out of the text decoded and
    # read as TooDeep
    decoded = _decoded_lengths(monkeypatch)
    spans = list(json_spans(DEEP))
    assert [(s.start, s.end, s.problem) for s in spans] == [(0, len(DEEP), None)]
    assert _depth(spans[0].obj) == (MAX_DEPTH, TooDeep())
    assert decoded == [len('{"a":' * MAX_DEPTH + _TOO_DEEP_MARK + "}" * MAX_DEPTH)]
    ok = '{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH
    assert [_depth(s.obj) for s in json_spans(ok)] == [(MAX_DEPTH, 1)]
    too_deep = '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1)
    assert [_depth(s.obj) for s in json_spans(too_deep)] == [(MAX_DEPTH, TooDeep())]
    # lists and strings with brackets in them count as JSON counts them
    mixed = '{"a": [' * 20 + '"}]{["' + "]}" * 20
    assert [s.problem for s in json_spans(mixed)] == [None]
    assert str(TooDeep()) == f"a value nested more than {MAX_DEPTH} levels deep"


# ------------------------------------------------------------------------- the cap
@pytest.mark.parametrize("parser", PARSERS)
def test_a_reply_over_the_cap_is_refused_unread(parser, monkeypatch):
    def never(*_args, **_kwargs):
        raise AssertionError("scanned a reply over the cap")

    for name in ("json_spans", "strip_thinking"):
        monkeypatch.setattr(f"jurybox.parsing.extract.{name}", never)
        monkeypatch.setattr(f"jurybox.parsing.verdict.{name}", never, raising=False)
        monkeypatch.setattr(f"jurybox.parsing.rubric.{name}", never, raising=False)
    text = "x" * MAX_REPLY_CHARS + answer()
    with pytest.raises(ParseError) as err:
        PARSERS[parser](text)
    assert str(err.value) == (f"the answer is {len(text):,} characters long, over the answer "
                              f"budget of 1,000,000 characters (--max-answer-chars): answer "
                              f"briefly")
    assert err.value.raw == text and err.value.kind == "parse"
    with answer_budget(1_000), pytest.raises(ParseError, match=r"^the answer is 1,001 "
                                             r"characters long, over the answer budget of "
                                             r"1,000 characters"):
        PARSERS[parser]("x" * 1_001)


# ------------------------------------------------------------------------- linear work
class _Counting:
    """Wraps a compiled pattern; counts the tokens its finditer yields."""

    def __init__(self, pattern):
        self.pattern, self.tokens, self.scans = pattern, 0, 0

    def finditer(self, text, *args):
        self.scans += 1
        for m in self.pattern.finditer(text, *args):
            self.tokens += 1
            yield m


@pytest.mark.parametrize("text", [
    "{" * 100_000,
    '{x"' * 30_000,                          # quotes read from prose braces: restarts
    '{"a": ' * 30_000,                       # JSON-like, never closed
    "{x " * 30_000 + "}" * 30_000,           # prose braces nested: searched inside
    '{"a": [' * 1_000 + "]}" * 1_000,        # deep: measured, not decoded
    ('{"a": "b"} ' * 20_000),               # many small objects
])
def test_the_scan_reads_each_character_a_bounded_number_of_times(text, monkeypatch):
    counting = _Counting(scan._IN_OBJECT)
    monkeypatch.setattr(scan, "_IN_OBJECT", counting)
    decoded = _decoded_lengths(monkeypatch)
    list(json_spans(text))
    # every token is a character of the text, read at most once per pass (1 + the restarts)
    assert counting.tokens <= (scan._RESTARTS + 1) * len(text)
    assert sum(decoded) <= len(text)  # each character decoded at most once


def _finishes(fn, text, seconds=20.0):
    """Run ``fn(text)`` in a thread; True when it ends (value or ParseError) in time: a hang
    guard, not a timing assert (the quadratic parser took hours on these)."""
    outcome = []

    def run():
        try:
            fn(text)
        except ParseError:
            pass
        outcome.append(True)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    return bool(outcome)


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("text", ["{" * MAX_REPLY_CHARS, "<think>" * (MAX_REPLY_CHARS // 7),
                                  '{x"' * (MAX_REPLY_CHARS // 3),
                                  "<think>{" * (MAX_REPLY_CHARS // 8)],
                         ids=["braces", "think", "quotes", "think-braces"])
def test_replies_at_the_cap_finish(parser, text):
    assert _finishes(PARSERS[parser], text)


def test_unclosed_think_tags_are_matched_in_one_pass():
    # each opening tag looked for its closing tag to the end of the text: 200 kB took 295 s
    text = "<think>" * 30_000 + "</think>" + answer()
    seen = []
    assert _finishes(lambda t: seen.append(strip_thinking(t)), text)
    assert seen == [answer()]  # the first tag's block ends at the only closing tag
    assert _finishes(lambda t: seen.append(strip_thinking(t)), "<think>" * 30_000)
    assert seen[1] == "<think>" * 30_000  # never closed: left visible
