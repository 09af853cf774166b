"""The replicas of an endpoint pool as given: --base-url lists and the endpoints file.

Line numbers in the expected messages are counted by hand from the file texts below (line 1 is
the first line after the opening triple quote's backslash)."""

import json
import math

import pytest

from jurybox.errors import ConfigError, DataError
from jurybox.providers.endpoints import (MAX_ENDPOINTS_BYTES, Replica, load_endpoints,
                                         parse_base_urls)

SECRET = "hunter2"
KEYS = "keys: url, weight, max_concurrency, key_env"


@pytest.fixture
def load(tmp_path, monkeypatch):
    """``load(text, name)``: write the file in the current folder and load it (so messages
    start with the bare file name)."""
    monkeypatch.chdir(tmp_path)

    def write_and_load(text: str, name: str = "endpoints.yaml") -> list[Replica]:
        (tmp_path / name).write_text(text, encoding="utf-8")
        return load_endpoints(name)

    return write_and_load


def refused(load, text: str, name: str = "endpoints.yaml") -> DataError:
    with pytest.raises(DataError) as caught:
        load(text, name)
    return caught.value


# --- accepted files -------------------------------------------------------------------------

def test_a_list_of_mappings_and_bare_urls(load):
    replicas = load("""\
# two GPUs and a gateway

- url: http://gpu0:8000/v1
  weight: 2
  max_concurrency: 16
- http://gpu1:8000/v1
- url: https://gateway.invalid/v1
  key_env: GATEWAY_KEY
  weight: 0.5
""")
    assert replicas == [
        Replica("http://gpu0:8000/v1", weight=2.0, max_concurrency=16,
                source="endpoints.yaml:3"),
        Replica("http://gpu1:8000/v1", source="endpoints.yaml:6"),
        Replica("https://gateway.invalid/v1", weight=0.5, key_env="GATEWAY_KEY",
                source="endpoints.yaml:7"),
    ]
    assert type(replicas[0].weight) is float  # an int weight is kept as a float


def test_the_module_docstring_example_loads(load):
    import textwrap

    from jurybox.providers import endpoints

    example = textwrap.dedent(endpoints.__doc__.split("::\n\n", 1)[1].split("\n\n")[0])
    assert [r.public() for r in load(example)] == [
        {"url": "http://gpu0:8000/v1", "weight": 2.0, "max_concurrency": 16, "key_env": None},
        {"url": "https://gateway.example/v1", "weight": 1.0, "max_concurrency": None,
         "key_env": "GATEWAY_KEY"},
        {"url": "http://gpu1:8000/v1", "weight": 1.0, "max_concurrency": None, "key_env": None}]


def test_the_endpoints_mapping_shape(load):
    replicas = load("""\
endpoints:
  # first replica
  - weight: 3
    url: http://a:8000/v1
  - "  http://b:8000/v1  "
""")
    # an entry's source is its first line, even when url comes later; a URL is trimmed
    assert [(r.url, r.weight, r.source) for r in replicas] == [
        ("http://a:8000/v1", 3.0, "endpoints.yaml:3"),
        ("http://b:8000/v1", 1.0, "endpoints.yaml:5")]


def test_json_input(load):
    text = json.dumps({"endpoints": [{"url": "http://a/v1", "max_concurrency": 4},
                                     "http://b/v1"]}, indent=1)
    # json.dumps(indent=1): line 1 "{", 2 '"endpoints": [', 3 "{", 4 url, 5 max_concurrency,
    # 6 "}", 7 "http://b/v1"
    assert load(text, "pool.json") == [
        Replica("http://a/v1", max_concurrency=4, source="pool.json:3"),
        Replica("http://b/v1", source="pool.json:7")]
    assert load('[{"url": "http://a/v1", "key_env": "K"}]', "one.json") == [
        Replica("http://a/v1", key_env="K", source="one.json:1")]


def test_null_options_are_unset_and_yaml_merge_keys_work(load):
    replicas = load("""\
- &base {url: http://a/v1, max_concurrency: 8}
- {<<: *base, url: http://b/v1, key_env: null, max_concurrency: null}
- {<<: *base, url: http://c/v1}
""")
    assert [(r.url, r.max_concurrency, r.key_env) for r in replicas] == [
        ("http://a/v1", 8, None), ("http://b/v1", None, None), ("http://c/v1", 8, None)]


# --- entries refused --------------------------------------------------------------------------

def test_an_unknown_key_names_file_line_entry_and_field_with_the_closest_key(load):
    error = refused(load, """\
endpoints:
  - url: http://gpu0:8000/v1
    weight: 2

  # the second GPU is slower
  - url: http://gpu1:8000/v1
    wieght: 1
""")
    assert str(error) == ("endpoints.yaml:7: endpoint 2: unknown key 'wieght' (did you mean "
                          f"'weight'?); {KEYS}")
    assert (error.path, error.line, error.field) == ("endpoints.yaml", 7, "wieght")


def test_an_unknown_key_with_no_close_match(load):
    error = refused(load, "- url: http://a/v1\n  model: llama\n")
    assert str(error) == f"endpoints.yaml:2: endpoint 1: unknown key 'model'; {KEYS}"


@pytest.mark.parametrize("entry, line, field, message", [
    ("{weight: 2}", 2, "url",
     "no 'url': give the replica's base URL (url: http://localhost:8000/v1)"),
    ("{url: 8000}", 2, "url", "url must be text (a base URL), got int"),
    ("{url: ''}", 2, "url",
     "url is empty: give the replica's base URL (http://localhost:8000/v1)"),
    ("'   '", 2, "url",
     "url is empty: give the replica's base URL (http://localhost:8000/v1)"),
    ("gpu1:8000", 2, "url", "url has no scheme: did you mean http://gpu1:8000/v1?"),
    ("{url: ftp://gpu1/v1}", 2, "url",
     "url has the scheme 'ftp'; jurybox speaks http:// and https://"),
    ("{url: 'http://gpu1:99999/v1'}", 2, "url",
     "url is not a valid URL (http://gpu1:99999/v1): check the host and port"),
    ("", 2, None, "must be a base URL or a mapping with a 'url', got nothing"),
    ("42", 2, None, "must be a base URL or a mapping with a 'url', got int"),
    ("[http://a/v1]", 2, None, "must be a base URL or a mapping with a 'url', got list"),
])
def test_a_bad_url_or_entry(load, entry, line, field, message):
    error = refused(load, f"- http://gpu0:8000/v1\n- {entry}\n")
    assert str(error) == f"endpoints.yaml:{line}: endpoint 2: {message}"
    assert (error.line, error.field) == (line, field)


@pytest.mark.parametrize("field, value, shown", [
    ("weight", "0", "0"),
    ("weight", "-1.5", "-1.5"),
    ("weight", "true", "True"),
    ("weight", ".nan", "nan"),
    ("weight", ".inf", "inf"),
    ("weight", "'2'", "'2'"),
    ("weight", "null", "None"),
    ("weight", "[1]", "[1]"),
    ("weight", "1" + "0" * 400, "1" + "0" * 39),  # finite as text, too large for a float
])
def test_a_bad_weight(load, field, value, shown):
    error = refused(load, f"- url: http://a/v1\n\n- url: http://b/v1\n  {field}: {value}\n")
    assert str(error) == (f"endpoints.yaml:4: endpoint 2: weight must be a finite number > 0, "
                          f"got {shown}")
    assert (error.line, error.field) == (4, "weight")


@pytest.mark.parametrize("value, shown", [
    ("0", "0"), ("1025", "1025"), ("1.5", "1.5"), ("4.0", "4.0"), ("true", "True"),
    ("'4'", "'4'"), ("-3", "-3")])
def test_a_bad_max_concurrency(load, value, shown):
    error = refused(load, f"- url: http://a/v1\n  max_concurrency: {value}\n")
    assert str(error) == ("endpoints.yaml:2: endpoint 1: max_concurrency must be a whole number "
                          f"from 1 to 1024, got {shown}")
    assert error.field == "max_concurrency"


@pytest.mark.parametrize("value, got", [
    ("MY-KEY", "text of 6 characters (not shown)"),
    ("1KEY", "text of 4 characters (not shown)"),
    ("''", "text of 0 characters (not shown)"),
    ("5", "int"),
    # the key itself pasted in: never shown
    ("sk-proj-hunter2hunter2", "text of 22 characters (not shown)"),
])
def test_a_bad_key_env_is_never_shown(load, value, got):
    error = refused(load, f"- url: http://a/v1\n  key_env: {value}\n")
    assert str(error) == (
        "endpoints.yaml:2: endpoint 1: key_env must be the name of an environment variable "
        f"(letters, digits and _, not starting with a digit), got {got}; the key itself never "
        "goes in the file")
    assert error.field == "key_env"


@pytest.mark.parametrize("first, again", [
    ("http://gpu0:8000/v1", "http://gpu0:8000/v1"),
    ("http://gpu0:8000/v1", "http://gpu0:8000/v1/"),  # a trailing slash
    ("http://gpu0:8000/v1", "HTTP://GPU0:8000/v1"),  # scheme and host case
    ("http://gpu0/v1", "http://gpu0:80/v1"),  # the scheme's default port
    ("https://gpu0/v1", "https://gpu0:443/v1"),
])
def test_a_url_given_twice_names_both_lines(load, first, again):
    error = refused(load, f"endpoints:\n  - url: {first}\n  - http://other/v1\n\n"
                          f"  - weight: 2\n    url: {again}\n")
    assert str(error) == (f"endpoints.yaml:6: endpoint 3: url {again} repeats endpoint 1 "
                          f"(line 2): give each replica once (a larger weight gives it a "
                          f"larger share)")
    assert (error.line, error.field) == (6, "url")


@pytest.mark.parametrize("first, other", [
    ("http://gpu0:8000/v1", "http://gpu0:8001/v1"),  # another port: another server
    ("http://gpu0:8000/v1", "http://gpu0:8000/V1"),  # a path's case is the server's
    ("http://gpu0:8000/v1", "https://gpu0:8000/v1"),
])
def test_urls_that_differ_are_two_replicas(load, first, other):
    assert [r.url for r in load(f"- {first}\n- {other}\n")] == [first, other]


# --- secrets in messages ----------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    # no scheme: shown with its credentials hidden
    (f"- bob:{SECRET}@gpu0:8000/v1\n",
     "endpoints.yaml:1: endpoint 1: url has no scheme: did you mean http://***@gpu0:8000/v1?"),
    # a bad port
    (f"- url: http://bob:{SECRET}@gpu0:x/v1?api_key={SECRET}\n",
     "endpoints.yaml:1: endpoint 1: url is not a valid URL (http://***@gpu0:x/v1?api_key=***): "
     "check the host and port"),
    # a repeat
    (f"- http://bob:{SECRET}@gpu0/v1\n- http://bob:{SECRET}@GPU0/v1/\n",
     "endpoints.yaml:2: endpoint 2: url http://***@GPU0/v1/ repeats endpoint 1 (line 1): give "
     "each replica once (a larger weight gives it a larger share)"),
    # a URL written as a key
    (f"- http://bob:{SECRET}@gpu0/v1:\n    weight: 2\n",
     f"endpoints.yaml:1: endpoint 1: unknown key 'http://***@gpu0/v1'; {KEYS}; a URL is given "
     "as url: <URL>, its options beside it"),
    (f"http://gpu0/v1?key={SECRET}: {{weight: 2}}\n",
     "endpoints.yaml:1: unknown key 'http://gpu0/v1?key=***' at the top: an endpoints file is "
     "a list of endpoints, or a mapping with an 'endpoints' list (- url: "
     "http://localhost:8000/v1)"),
])
def test_messages_never_show_secrets(load, text, message):
    error = refused(load, text)
    assert str(error) == message
    assert SECRET not in str(error) and SECRET not in str(error.field)


def test_a_replica_shows_and_records_its_url_with_secrets_hidden(load):
    [replica] = load(f"- url: http://bob:{SECRET}@gpu0:8000/v1?api_key={SECRET}\n"
                     "  key_env: GPU0_KEY\n")
    assert replica.url == f"http://bob:{SECRET}@gpu0:8000/v1?api_key={SECRET}"  # for requests
    assert replica.shown == "http://***@gpu0:8000/v1?api_key=***"
    assert replica.public() == {"url": "http://***@gpu0:8000/v1?api_key=***", "weight": 1.0,
                                "max_concurrency": None, "key_env": "GPU0_KEY"}
    assert SECRET not in repr(replica)
    assert Replica("http://a/v1", 2, 3).public() == {
        "url": "http://a/v1", "weight": 2.0, "max_concurrency": 3, "key_env": None}


# --- the file as a whole ----------------------------------------------------------------------

def test_a_missing_file_suggests_the_closest_name(load, tmp_path):
    (tmp_path / "endpoints.yaml").write_text("- http://a/v1\n")
    with pytest.raises(DataError) as caught:
        load_endpoints("endpoint.yaml")
    assert str(caught.value) == ("endpoint.yaml: replica list file not found; did you mean "
                                 "'endpoints.yaml'?")


def test_a_folder_is_refused(load, tmp_path):
    (tmp_path / "pool").mkdir()
    with pytest.raises(DataError) as caught:
        load_endpoints("pool")
    assert str(caught.value) == "pool: not a file (a directory); give a replica list file"


def test_a_file_over_the_limit_is_refused_before_it_is_parsed(load):
    assert MAX_ENDPOINTS_BYTES == 1_000_000
    # not YAML either ("[" never closed): the size is what is reported
    error = refused(load, "[" + " " * MAX_ENDPOINTS_BYTES)
    assert str(error) == ("endpoints.yaml: the replica list is 1,000,001 bytes; at most "
                          "1,000,000 bytes")
    assert len(load("- http://a/v1\n" + "#" * (MAX_ENDPOINTS_BYTES - 15) + "\n")) == 1


@pytest.mark.parametrize("text, message", [
    ("- url: http://a/v1\n- url: [http://b/v1\n",
     "endpoints.yaml:3: invalid YAML: expected ',' or ']', but got '<stream end>'"),
    ("- url: http://a/v1\n  url: http://b/v1\n",
     "endpoints.yaml:2: field 'url': invalid YAML: key 'url' appears twice in one mapping; "
     "give each key once"),
    ("", "endpoints.yaml: the file is empty: an endpoints file is a list of endpoints, or a "
         "mapping with an 'endpoints' list (- url: http://localhost:8000/v1)"),
    ("# nothing yet\n\n", "endpoints.yaml: the file is empty: an endpoints file is a list of "
     "endpoints, or a mapping with an 'endpoints' list (- url: http://localhost:8000/v1)"),
    ("\n[]\n", "endpoints.yaml:2: no endpoints: list at least one replica (- url: "
     "http://localhost:8000/v1)"),
    ("# pool\nendpoints: []\n", "endpoints.yaml:2: no endpoints: list at least one replica "
     "(- url: http://localhost:8000/v1)"),
    ("\nendpoints:\n", "endpoints.yaml:2: no endpoints: list at least one replica (- url: "
     "http://localhost:8000/v1)"),
    ("\n\nhttp://a/v1\n", "endpoints.yaml:3: an endpoints file is a list of endpoints, or a "
     "mapping with an 'endpoints' list (- url: http://localhost:8000/v1); got str"),
    ("endpoints:\n  - http://a/v1\nendpoint:\n  - http://b/v1\n",
     "endpoints.yaml:3: unknown key 'endpoint' at the top (did you mean 'endpoints'?): an "
     "endpoints file is a list of endpoints, or a mapping with an 'endpoints' list (- url: "
     "http://localhost:8000/v1)"),
    ("\nendpoints:\n  url: http://a/v1\n",
     "endpoints.yaml:2: 'endpoints' must be a list of endpoints, got dict"),
])
def test_a_bad_file(load, text, message):
    assert str(refused(load, text)) == message


def test_bytes_that_are_not_utf8_name_their_line(load, tmp_path):
    (tmp_path / "endpoints.yaml").write_bytes(b"- http://a/v1\n- http://b\xff/v1\n")
    with pytest.raises(DataError) as caught:
        load_endpoints("endpoints.yaml")
    assert str(caught.value) == ("endpoints.yaml:2: not UTF-8 text (invalid start byte at "
                                 "byte 24)")


# --- API keys -----------------------------------------------------------------------------------

def test_key_env_is_read_when_the_key_is_needed(load, monkeypatch):
    replicas = load("- url: http://a/v1\n  key_env: POOL_KEY_A\n- http://b/v1\n")
    monkeypatch.setenv("POOL_KEY_A", "sk-a")
    assert [r.api_key() for r in replicas] == ["sk-a", None]
    monkeypatch.setenv("POOL_KEY_A", "sk-a2")  # read at each call, not at load
    assert replicas[0].api_key() == "sk-a2"


@pytest.mark.parametrize("value, state", [(None, "not set"), ("", "empty")])
def test_a_key_env_that_is_unset_or_empty_names_the_replica_and_the_variable(
        load, monkeypatch, value, state):
    [replica] = load(f"\n- url: http://bob:{SECRET}@a/v1\n  key_env: POOL_KEY_A\n")
    if value is None:
        monkeypatch.delenv("POOL_KEY_A", raising=False)
    else:
        monkeypatch.setenv("POOL_KEY_A", value)
    with pytest.raises(ConfigError) as caught:
        replica.api_key()
    assert str(caught.value) == (
        f"endpoints.yaml:2: the replica http://***@a/v1 takes its API key from $POOL_KEY_A "
        f"(key_env), which is {state}: export POOL_KEY_A=<its API key>")


# --- --base-url -------------------------------------------------------------------------------

def test_base_urls_given_several_times_and_comma_separated():
    assert parse_base_urls(None) == []
    assert parse_base_urls("http://a/v1") == [Replica("http://a/v1", source="--base-url")]
    replicas = parse_base_urls(["http://a/v1, http://b/v1", " https://c:8443/v1 "])
    assert [(r.url, r.weight, r.max_concurrency, r.key_env, r.source) for r in replicas] == [
        ("http://a/v1", 1.0, None, None, "--base-url"),
        ("http://b/v1", 1.0, None, None, "--base-url"),
        ("https://c:8443/v1", 1.0, None, None, "--base-url")]
    assert [r.url for r in parse_base_urls(("http://a/v1", "http://b/v1"))] == [
        "http://a/v1", "http://b/v1"]


@pytest.mark.parametrize("values, message", [
    ("http://a/v1,,http://b/v1",
     "--base-url entry 2 of 3 is empty (in 'http://a/v1,,http://b/v1'): separate base URLs "
     "with single commas, or give --base-url once per URL"),
    ("http://a/v1,",
     "--base-url entry 2 of 2 is empty (in 'http://a/v1,'): separate base URLs with single "
     "commas, or give --base-url once per URL"),
    # entries are numbered across the values
    (["http://a/v1", " , http://b/v1"],
     "--base-url entry 2 of 3 is empty (in ' , http://b/v1'): separate base URLs with single "
     "commas, or give --base-url once per URL"),
    ("",
     "--base-url is empty (is JURYBOX_BASE_URL set to ''?): give the endpoint's URL, e.g. "
     "http://localhost:8000/v1"),
    ("localhost:8000", "--base-url has no scheme: did you mean http://localhost:8000/v1?"),
    ("http://a/v1,ftp://b/v1",
     "--base-url entry 2 of 2 has the scheme 'ftp'; jurybox speaks http:// and https://"),
    (["http://a/v1", "http://b/v1", "HTTP://A/v1/"],
     "--base-url entries 1 and 3 are the same endpoint (HTTP://A/v1/): give each replica once"),
    ("http://a:80/v1,http://a/v1",
     "--base-url entries 1 and 2 are the same endpoint (http://a/v1): give each replica once"),
])
def test_bad_base_urls(values, message):
    with pytest.raises(ConfigError) as caught:
        parse_base_urls(values)
    assert str(caught.value) == message


def test_base_url_messages_hide_every_secret():
    values = f"http://bob:{SECRET}@a/v1,,http://eve:{SECRET}@b/v1?key={SECRET}"
    with pytest.raises(ConfigError) as caught:
        parse_base_urls(values)
    assert str(caught.value) == (
        "--base-url entry 2 of 3 is empty (in 'http://***@a/v1,,http://***@b/v1?key=***'): "
        "separate base URLs with single commas, or give --base-url once per URL")
    with pytest.raises(ConfigError) as caught:
        parse_base_urls([f"http://bob:{SECRET}@a/v1", f"http://bob:{SECRET}@a/v1/"])
    assert str(caught.value) == ("--base-url entries 1 and 2 are the same endpoint "
                                 "(http://***@a/v1/): give each replica once")
    [replica] = parse_base_urls(f"http://bob:{SECRET}@a/v1")
    assert replica.public()["url"] == "http://***@a/v1"


# --- Replica built directly -------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"weight": 0}, "replica: weight must be a finite number > 0, got 0"),
    ({"weight": math.inf}, "replica: weight must be a finite number > 0, got inf"),
    ({"max_concurrency": 0},
     "replica: max_concurrency must be a whole number from 1 to 1024, got 0"),
    ({"key_env": "A-B", "source": "pool.yaml:3"},
     "pool.yaml:3: key_env must be the name of an environment variable (letters, digits and _, "
     "not starting with a digit), got text of 3 characters (not shown); the key itself never "
     "goes in the file"),
])
def test_a_replica_built_directly_is_checked(kwargs, message):
    with pytest.raises(ConfigError) as caught:
        Replica("http://a/v1", **kwargs)
    assert str(caught.value) == message


def test_a_replica_built_directly_with_a_bad_url():
    with pytest.raises(ConfigError) as caught:
        Replica(f"bob:{SECRET}@a:8000")
    assert str(caught.value) == "replica: url has no scheme: did you mean http://***@a:8000/v1?"
    assert Replica("  http://a/v1 ").url == "http://a/v1"
