import hashlib

from jurybox.cache import ResponseCache, cache_key, canonical_json
from jurybox.providers import ChatRequest, ChatResponse, Message, Usage

IDENTITY = {"provider": "vllm", "base_url": "http://localhost:8000/v1", "model": "m"}
REQUEST = ChatRequest(messages=(Message(role="system", content="Judge."),
                                Message(role="user", content="Which is right? é")),
                      temperature=0.0, max_tokens=256, seed=7)

# The canonical JSON this key hashes; if this test fails, every cached answer is orphaned:
# bump KEY_VERSION on purpose, never by accident.
CANONICAL = ('{"endpoint":{"base_url":"http://localhost:8000/v1","model":"m","provider":"vllm"},'
             '"key_version":1,"messages":[["system","Judge."],["user","Which is right? é"]],'
             '"sample_index":0,"sampling":{"max_tokens":256,"temperature":0.0},"seed":7}')


def test_golden_key_values():
    assert hashlib.sha256(CANONICAL.encode()).hexdigest() == \
        "207002599ed84fa89e6eb014d3602b986e4903f66ca4cbb587044da6956c1d60"
    assert cache_key(IDENTITY, REQUEST) == \
        "207002599ed84fa89e6eb014d3602b986e4903f66ca4cbb587044da6956c1d60"
    assert cache_key(IDENTITY, REQUEST.model_copy(update={"sample_index": 1})) == \
        "5881948b92958b76758d1b43ccef0aa111b920ced4832e6292c8b2ed4011c5c5"


def test_everything_that_changes_an_answer_changes_the_key():
    base = cache_key(IDENTITY, REQUEST)
    variants = [
        cache_key({**IDENTITY, "model": "m2"}, REQUEST),
        cache_key({**IDENTITY, "base_url": "http://other/v1"}, REQUEST),
        cache_key(IDENTITY, REQUEST.model_copy(update={"seed": 8})),
        cache_key(IDENTITY, REQUEST.model_copy(update={"temperature": 0.7})),
        cache_key(IDENTITY, REQUEST.model_copy(update={"max_tokens": 512})),
        cache_key(IDENTITY, REQUEST.model_copy(update={"messages": REQUEST.messages[1:]})),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_canonical_json_sorts_keys_and_keeps_unicode():
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_store_round_trip_and_persistence(tmp_path):
    path = tmp_path / "sub" / "c.sqlite"
    store = ResponseCache(path)
    resp = ChatResponse(text="hi", usage=Usage(prompt_tokens=3, completion_tokens=1),
                        latency_s=0.25, finish_reason="stop")
    assert store.get("k") is None
    store.put("k", resp)
    store.put("k", ChatResponse(text="other"))  # first write wins
    store.close()
    again = ResponseCache(path)
    assert again.get("k") == resp and len(again) == 1
    assert again.clear() == 1 and len(again) == 0


def test_cache_info_and_clear_leave_a_foreign_sqlite_file_alone(tmp_path):
    import sqlite3

    from typer.testing import CliRunner

    from jurybox.cli import app

    foreign = tmp_path / "other.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE notes (x TEXT)")
    db.commit()
    db.close()
    before = foreign.read_bytes()
    for action in ("info", "clear"):
        result = CliRunner().invoke(app, ["cache", action, "--path", str(foreign)])
        assert result.exit_code == 2
        assert "not a jurybox response cache" in result.output
    assert foreign.read_bytes() == before  # no tables added, nothing deleted
    # a real cache: info reads it without writing
    from jurybox.cache import ResponseCache
    from jurybox.providers import ChatResponse

    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", ChatResponse(text="x"))
    cache.close()
    result = CliRunner().invoke(app, ["cache", "info", "--path", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 0 and ": 1 responses" in result.output
