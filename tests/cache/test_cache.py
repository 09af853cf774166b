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


# --- files that are not, or no longer, a cache (issue 17) ---------------------------------

import json  # noqa: E402
import os  # noqa: E402
import sqlite3  # noqa: E402

import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from jurybox.cache import CacheDamagedError  # noqa: E402
from jurybox.cli import app  # noqa: E402
from jurybox.compare import BenchConfig, run_bench  # noqa: E402
from jurybox.errors import ConfigError  # noqa: E402
from jurybox.rundir import read_jsonl  # noqa: E402
from jurybox.run import RunOptions  # noqa: E402
from jurybox.runner import Totals  # noqa: E402
from tests.cli_checks import one_line_error  # noqa: E402

BENCH = BenchConfig(dataset="truthfulqa", limit=40, k=3)


def _filled(path):
    """A cache holding every answer of BENCH (run into a folder beside it)."""
    run_bench(BENCH, path.parent / "filled", options=RunOptions(cache_path=path))
    assert os.path.getsize(path) > 100_000 and not os.path.exists(f"{path}-wal")
    return path


@pytest.mark.parametrize("content", [b"x", b"hello, not a database\n", b"\x00" * 4096])
def test_a_non_empty_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path, content):
    # SQLite takes a file of under 512 bytes for an empty database: it used to be overwritten
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    size = "1 byte" if len(content) == 1 else f"{len(content):,} bytes"
    with pytest.raises(ConfigError, match=rf"'{path}' is not an SQLite file \({size} "
                                          r"starting .*left alone"):
        ResponseCache(path)
    assert path.read_bytes() == content
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "2", "--cache",
                                      str(path), "--out", str(tmp_path / "run")])
    one_line_error(result, str(path), "is not an SQLite file", "--no-cache")
    assert path.read_bytes() == content and not (tmp_path / "run").exists()


def test_an_empty_file_becomes_a_cache(tmp_path):
    path = tmp_path / "c.sqlite"
    path.touch()
    cache = ResponseCache(path)
    cache.put("k", ChatResponse(text="x"))
    cache.close()
    assert path.read_bytes().startswith(b"SQLite format 3\x00")
    assert ResponseCache(path, read_only=True).get("k") == ChatResponse(text="x")
    (tmp_path / "e.sqlite").touch()  # read-only (cache info): empty is no cache yet
    with pytest.raises(ConfigError, match="is empty: not a response cache yet"):
        ResponseCache(tmp_path / "e.sqlite", read_only=True)
    assert (tmp_path / "e.sqlite").stat().st_size == 0


def test_another_programs_database_and_non_files_are_refused(tmp_path):
    foreign = tmp_path / "app.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE notes (x TEXT)")
    db.commit()
    db.close()
    before = foreign.read_bytes()
    with pytest.raises(ConfigError, match="an SQLite file but not a jurybox response cache"):
        ResponseCache(foreign)  # used to get jurybox's tables added
    assert foreign.read_bytes() == before
    with pytest.raises(ConfigError, match="it is a folder"):
        ResponseCache(tmp_path)
    with pytest.raises(ConfigError, match="it is not a regular file"):
        ResponseCache("/dev/null")


@pytest.mark.parametrize("fraction", [0.9, 0.5, 0.05])
def test_a_cache_cut_short_is_refused_at_start_naming_it(tmp_path, fraction):
    path = _filled(tmp_path / "c.sqlite")
    size = os.path.getsize(path)
    os.truncate(path, int(size * fraction))
    with pytest.raises(CacheDamagedError, match=rf"cut short: {int(size * fraction):,} bytes "
                                                rf"where its header says {size:,}"):
        ResponseCache(path)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "40", "--k", "3",
                                      "--cache", str(path), "--out", str(out)])
    one_line_error(result, f"the response cache {str(path)!r} is damaged", "move it aside",
                   "--no-cache")
    assert not out.exists()  # refused before the run directory was made


def test_a_cache_damaged_mid_run_stops_cleanly_and_the_run_resumes(tmp_path, monkeypatch):
    path = _filled(tmp_path / "c.sqlite")
    real_get, seen = ResponseCache.get, []

    def get_then_cut(self, key):  # the file is cut to half while the run reads it
        seen.append(key)
        if len(seen) == 25:
            os.truncate(path, os.path.getsize(path) // 2)
        return real_get(self, key)

    monkeypatch.setattr(ResponseCache, "get", get_then_cut)
    out = tmp_path / "run"
    args = ["bench", "truthfulqa", "--limit", "40", "--k", "3", "--concurrency", "2",
            "--cache", str(path), "--out", str(out)]
    result = CliRunner().invoke(app, args)
    # the run started (--k 3 above 2!, said once) and stopped part-way on the damage
    one_line_error(result, f"the response cache {str(path)!r} is damaged", "move it aside",
                   "--no-cache", besides="asks for more orders")
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "failed"  # as for other fatal errors, not "interrupted"
    assert manifest["totals"] == Totals.of_records(read_jsonl(out / "calls.jsonl")).as_dict()
    done = {(r["item_id"], r["protocol"]) for r in read_jsonl(out / "items.jsonl")}
    assert 0 < len(done) < 80
    # a rerun on the damaged file is refused at start, not part-way
    one_line_error(CliRunner().invoke(app, args), "is damaged", "cut short")
    monkeypatch.undo()
    path.rename(tmp_path / "c.sqlite.damaged")
    assert CliRunner().invoke(app, args).exit_code == 0
    manifest = json.loads((out / "run.json").read_text())
    assert [s["status"] for s in manifest["sessions"]] == ["failed", "complete"]

    def final(folder):
        return {(r["item_id"], r["protocol"]): r["credit"] for r in read_jsonl(folder)}

    assert final(out / "items.jsonl") == final(tmp_path / "filled" / "items.jsonl")


def test_a_short_file_that_sqlite_reads_whole_is_not_refused(tmp_path, monkeypatch):
    # a checkpoint by another process writes the new header before the pages after it: a
    # file short of its header is refused only when SQLite's own quick_check fails too
    path = _filled(tmp_path / "c.sqlite")
    size = os.path.getsize(path)
    stated = []
    monkeypatch.setattr(ResponseCache, "_stated_size",
                        staticmethod(lambda header: stated.append(1) or size + 4096))
    ResponseCache(path).close()  # quick_check: ok
    assert stated == [1]
    os.truncate(path, size // 2)
    with pytest.raises(CacheDamagedError, match=f"where its header says {size + 4096:,}"):
        ResponseCache(path)
