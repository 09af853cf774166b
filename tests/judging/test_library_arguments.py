"""jurybox.judge() and the settings objects refuse values of the wrong kind with jurybox's
own errors naming the field, before anything is written."""

import re

import pytest

import jurybox
from jurybox.compare import BenchConfig
from jurybox.errors import ConfigError, DataError
from jurybox.fields import text_problem
from jurybox.judging import JudgeConfig
from jurybox.personalize import PersonalizeConfig
from jurybox.providers.endpoints import Replica
from jurybox.providers.spec import MODEL_CHOICES
from jurybox.run import RunOptions

ITEMS = [{"id": "a", "prompt": "Q?", "candidates": ["x", "y", "z"]}]


@pytest.mark.parametrize("settings, message", [
    ({"k": 2.5}, "k must be an integer, got 2.5 (float)"),
    ({"k": True}, "k must be an integer, got True (bool)"),
    ({"criteria": 5}, "criteria must be text (a str) or None, got 5 (int)"),
    ({"model": None}, f"no judge named for 'the items': choose one with model=...: "
                      f"{MODEL_CHOICES}"),
    ({"protocol": None}, "protocol must be text (a str), got None"),
    ({"limit": "3"}, "limit must be an integer or None, got '3' (str)"),
    ({"seed": 1.5}, "seed must be an integer, got 1.5 (float)"),
    ({"temperature": None}, "temperature must be a number, got None"),
    ({"tolerance": "x"}, "tolerance must be a number, got 'x' (str)"),
    ({"weights": (1, 2, 3, 4)}, "weights must be a Weights, got (1, 2, 3, 4) (tuple)"),
    ({"sim": {}}, "sim must be a SimConfig, got {} (dict)"),
    ({"base_url": 5}, "base_url must be a URL (text), a list of URLs, or None, got 5 (int)"),
    ({"base_url": []}, "base_url must be a URL, or a list of URLs (the replicas of one "
                       "model), got []"),
    ({"base_url": ["http://127.0.0.1:9/v1", 5]},
     "base_url must be a URL, or a list of URLs (the replicas of one model), got "
     "['http://127.0.0.1:9/v1', 5]"),
    ({"endpoints": 5}, "endpoints must be the path of an endpoints file (str or Path), got int"),
    ({"min_k": 2.0}, "min_k must be an integer or None, got 2.0 (float)"),
    ({"criteria": "fair \ud800"}, "criteria holds a lone surrogate U+D800 (UTF-8 cannot "
                                  "encode it) at character 5 (line 1)"),
])
def test_settings_of_the_wrong_kind_are_config_errors_naming_the_field(tmp_path, settings,
                                                                       message):
    out = tmp_path / "run"
    with pytest.raises(ConfigError) as caught:
        jurybox.judge(ITEMS, out=out, **{"model": "sim", **settings})
    assert str(caught.value) == message
    assert not out.exists()


def test_out_that_is_a_file_is_refused_for_items_and_for_a_file(tmp_path):
    existing = tmp_path / "afile"
    existing.write_text("mine")
    for items in (ITEMS, str(tmp_path / "input.jsonl")):
        with pytest.raises(ConfigError, match=r"out='.*afile' is a file, not a folder"):
            jurybox.judge(items, model="sim", out=existing)
    assert existing.read_text() == "mine"


@pytest.mark.parametrize("kwargs, message", [
    ({"out": 5}, "out must be a path (str or Path) or None, got int"),
    ({"out": " "}, "out is empty"),
    ({"options": {"concurrency": 2}}, "options must be a RunOptions or None, got dict"),
    ({"hooks": print}, "hooks must be a RunHooks or None"),
])
def test_judge_checks_its_own_arguments(tmp_path, monkeypatch, kwargs, message):
    monkeypatch.chdir(tmp_path)  # the default out= is under the working directory
    with pytest.raises(ConfigError, match=re.escape(message)):
        jurybox.judge(ITEMS, model="sim", **kwargs)


@pytest.mark.parametrize("items, message", [
    (ITEMS[0], "items must be a list of items .* got one dict; give \\[item\\]"),
    (5, "items must be a list of items or a file path, got int"),
])
def test_items_that_are_not_a_list_are_refused(tmp_path, monkeypatch, items, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=message):
        jurybox.judge(items, model="sim")


def test_a_lone_surrogate_in_a_candidate_is_a_data_error_naming_item_and_field(tmp_path):
    items = [ITEMS[0], {"id": "b", "prompt": "Q?", "candidates": ["ok", "bad \udc80"]}]
    out = tmp_path / "run"
    with pytest.raises(DataError) as caught:
        jurybox.judge(items, model="sim", out=out)
    # the item by its index and its id (as every error about an in-memory item names it)
    assert str(caught.value) == ("items[1] (id 'b'): field 'candidates[1]': is not UTF-8 "
                                 "text: byte 0x80 at byte offset 4 (line 1)")
    assert (caught.value.path, caught.value.field) == ("items[1] (id 'b')", "candidates[1]")
    assert not out.exists()
    with pytest.raises(DataError,
                       match=r"items\[0\] \(id 'a'\): field 'prompt': holds a lone surrogate"):
        jurybox.judge([{"id": "a", "prompt": "\ud800?", "candidates": ["x", "y"]}],
                      model="sim", out=out)


def test_every_settings_object_checks_its_fields():
    with pytest.raises(ConfigError, match=r"^k must be an integer, got '7' \(str\)$"):
        BenchConfig(dataset="truthfulqa", k="7")
    with pytest.raises(ConfigError, match=r"^protocols\[1\] must be text \(a str\), got 3"):
        BenchConfig(dataset="truthfulqa", protocols=("pcf", 3))
    assert BenchConfig(dataset="truthfulqa", protocols=["direct", "pcf"]).protocols == (
        "direct", "pcf")  # a list is kept as the tuple the field holds
    with pytest.raises(ConfigError, match=r"^input must be text \(a str\), got None$"):
        JudgeConfig(input=None, model="sim")
    base = {"ratings": "squality", "items": "squality", "rubric": "squality"}
    with pytest.raises(ConfigError, match=r"^seeds must be an integer, got 2.5 \(float\)$"):
        PersonalizeConfig(**base, seeds=2.5)
    with pytest.raises(ConfigError, match=r"^shots\[1\] must be an integer, got 'x' \(str\)$"):
        PersonalizeConfig(**base, shots=(1, "x"))
    with pytest.raises(ConfigError, match=r"^raters must be a tuple of texts or an integer or "
                                          r"None, got 2.5 \(float\)$"):
        PersonalizeConfig(**base, raters=2.5)
    with pytest.raises(ConfigError, match=r"^answer_format must be text \(a str\), got 1 "
                                          r"\(int\)$"):
        PersonalizeConfig(**base, answer_format=1)  # which texts: checked where it is used
    assert PersonalizeConfig(**base, raters=3).raters == 3
    with pytest.raises(ConfigError, match=r"^concurrency must be an integer, got '8' \(str\)$"):
        RunOptions(concurrency="8")
    with pytest.raises(ConfigError, match=r"^timeout_s must be a number, got True \(bool\)$"):
        RunOptions(timeout_s=True)
    assert RunOptions(cache_path="c.sqlite").cache_path == "c.sqlite"  # str paths stay usable


def test_text_problems_name_the_byte_or_the_surrogate_and_its_place():
    assert text_problem("ab\ncd\udcfe") == ("is not UTF-8 text: byte 0xfe at byte offset 5 "
                                            "(line 2)")
    assert text_problem("é\udcff") == "is not UTF-8 text: byte 0xff at byte offset 2 (line 1)"
    assert text_problem("\udfff") == ("holds a lone surrogate U+DFFF (UTF-8 cannot encode it) "
                                      "at character 0 (line 1)")
    assert text_problem("naïve 日本語 \U0001F600") is None


def test_values_a_run_would_only_meet_later_are_refused_up_front():
    from jurybox.compare import prepare_bench
    from jurybox.personalize import prepare_personalize

    with pytest.raises(ConfigError, match=r"^--max-tokens must be 1 to 1,000,000, got 0$"):
        prepare_bench(BenchConfig(dataset="truthfulqa", limit=2, max_tokens=0))
    base = {"ratings": "squality", "items": "squality", "rubric": "squality", "raters": 1}
    for settings, message in (({"max_tokens": 0}, "--max-tokens must be 1 to 1,000,000, got 0"),
                              ({"limit": 0}, "--limit must be >= 1, got 0"),
                              ({"level": "x"}, "level must be one of nominal, ordinal, "
                                               "interval, ratio, got 'x'")):
        with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
            prepare_personalize(PersonalizeConfig(**base, **settings))


def test_entry_points_name_an_argument_of_the_wrong_kind(tmp_path):
    # were raw TypeError / AttributeError from deep inside (second break-test)
    from jurybox.agreement import run_agreement
    from jurybox.compare import run_bench
    from jurybox.personalize import run_personalize

    config = BenchConfig(dataset="truthfulqa", limit=1)
    for call, message in (
            (lambda: run_bench(config, 5), "run_bench: out must be str or Path, got 5 (int)"),
            (lambda: run_bench(config, None), "run_bench: out must be str or Path, got None"),
            (lambda: run_bench("truthfulqa", "r"), "run_bench: config must be BenchConfig, "
                                                   "got 'truthfulqa' (str)"),
            (lambda: run_bench(config, tmp_path / "r", options={}),
             "run_bench: options must be RunOptions or NoneType, got "),
            (lambda: run_personalize(config, "r"), "run_personalize: config must be "
                                                   "PersonalizeConfig, got "),
            (lambda: run_agreement(5), "run_agreement: ratings must be str or Path, got 5"),
            (lambda: run_agreement("squality", exclusion_codes="99"),
             "run_agreement: exclusion_codes must be list or tuple, got '99'"),
            (lambda: __import__("jurybox.rubrics.model").rubrics.model.load_rubric(5),
             "load_rubric: path must be str or Path, got 5"),
            (lambda: run_agreement("squality", exclusion_codes=["9"]),
             "--exclude-codes takes numbers")):
        with pytest.raises(ConfigError, match=re.escape(message)):
            call()
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("kwargs, message", [
    ({"base_url": ["http://127.0.0.1:9/v1", "http://127.0.0.1:8/v1"],
      "options": RunOptions(endpoints=(Replica("http://127.0.0.1:7/v1"),))},
     "the endpoint pool is given twice, in base_url= or endpoints= and in "
     "options=RunOptions(endpoints=...): give it once"),
    ({"base_url": "http://127.0.0.1:9/v1",
      "options": RunOptions(endpoints=(Replica("http://127.0.0.1:7/v1"),
                                       Replica("http://127.0.0.1:8/v1")))},
     "give one base URL or an endpoint pool (RunOptions.endpoints), not both: the pool "
     "lists every replica"),
    ({"base_url": "http://127.0.0.1:9/v1,http://127.0.0.1:9/v1/"},
     "--base-url entries 1 and 2 are the same endpoint (http://127.0.0.1:9/v1/): give each "
     "replica once"),
])
def test_a_pool_given_twice_or_badly_is_refused_before_any_call(tmp_path, kwargs, message):
    out = tmp_path / "run"
    with pytest.raises(ConfigError) as caught:
        jurybox.judge(ITEMS, model="vllm/judge", out=out, **kwargs)
    assert str(caught.value) == message
    assert not (out / "run.json").exists()


@pytest.mark.parametrize("endpoints", ["pool.yaml", ("http://a/v1", "http://b/v1")])
def test_run_options_endpoints_given_as_a_path_or_urls_say_how_to_give_them(endpoints):
    with pytest.raises(ConfigError) as caught:
        RunOptions(endpoints=endpoints)
    assert str(caught.value) == (
        f"endpoints takes Replica values, got {endpoints!r}: for an endpoints file, "
        f"tuple(load_endpoints(path)); for URLs, tuple(parse_base_urls(urls)) (both in "
        f"jurybox.providers.endpoints); or jurybox.judge(..., endpoints=path) or "
        f"base_url=[url, ...]")


def test_a_tuple_of_a_class_reads_as_one():
    with pytest.raises(ConfigError) as caught:
        RunOptions(endpoints=5)
    assert str(caught.value) == "endpoints must be a tuple of Replica values, got 5 (int)"
