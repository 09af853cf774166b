"""Run files and the cache changed outside jurybox (second break-test): each is one line
naming the file and what to do, never a traceback, and a server's huge log is never read
whole."""

from __future__ import annotations

import json
import sqlite3

from typer.testing import CliRunner

from jurybox.cli import app

from ..cli_checks import one_line_error

runner = CliRunner()


def _judge(tmp_path, *extra):
    src = tmp_path / "two.jsonl"
    if not src.exists():
        src.write_text(json.dumps({"id": "a", "prompt": "Q?", "candidates": ["x", "y"]}) + "\n")
    return runner.invoke(app, ["judge", str(src), "--model", "sim", "--k", "2", "--out",
                               str(tmp_path / "r"), "--cache", str(tmp_path / "c.sqlite"),
                               *extra])


def test_a_lock_file_holding_json_nested_too_deeply_names_another_process():
    from jurybox.rundir.lock import _describe

    assert _describe("[" * 100_000) == "another process"  # was a RecursionError


def test_sessions_of_the_wrong_kind_in_run_json_are_one_line(tmp_path):
    assert _judge(tmp_path).exit_code == 0
    manifest = json.loads((tmp_path / "r" / "run.json").read_text())
    (tmp_path / "r" / "run.json").write_text(json.dumps({**manifest, "sessions": 5}))
    one_line_error(_judge(tmp_path), "run.json", "field 'sessions' must be a list of objects")


def test_a_damaged_items_record_is_one_line_naming_items_jsonl(tmp_path):
    assert _judge(tmp_path).exit_code == 0
    items = tmp_path / "r" / "items.jsonl"
    record = json.loads(items.read_text().splitlines()[0])
    del record["credit"]
    items.write_text(json.dumps(record) + "\n")
    line = one_line_error(_judge(tmp_path), "items.jsonl", "a record is damaged (no field "
                                                           "'credit')")
    assert "KeyError" not in line


def test_a_damaged_calls_line_is_shown_as_it_is(tmp_path):
    from jurybox.reports.views import _attempt

    attempt = _attempt({"messages": 5, "meta": [1], "text": "t"})
    assert (attempt.messages, attempt.reask, attempt.text) == ((), 0, "t")


def test_a_stored_response_jurybox_did_not_write_is_a_damaged_cache(tmp_path):
    assert _judge(tmp_path).exit_code == 0
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        db.execute("UPDATE responses SET value = ?", ("[" * 100_000,))
    (tmp_path / "r" / "items.jsonl").write_text("")  # judge again: read from the cache
    (tmp_path / "r" / "calls.jsonl").write_text("")
    result = _judge(tmp_path)
    assert result.exit_code in (1, 2), result.output
    assert "is damaged (a stored response is not one jurybox wrote); move it aside" in \
        result.output and "Traceback" not in result.output


def test_a_cache_path_that_cannot_be_a_file_says_why_in_words(tmp_path):
    (tmp_path / "f").write_text("x")
    line = one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model", "sim",
                                              "--limit", "1", "--cache",
                                              str(tmp_path / "f" / "c.sqlite")]),
                          "as the response cache (Not a directory)")
    assert "Errno" not in line


def test_the_local_servers_log_is_read_from_its_end_only():
    import tempfile

    from jurybox.providers.local import TAIL_BYTES, LocalServer

    server = LocalServer.__new__(LocalServer)
    server._log = tempfile.TemporaryFile()
    server._log.write(b"x" * (50 * TAIL_BYTES) + b"\nfirst\nsecond\n" + b"y" * 1_000)
    reads = []
    real = server._log.read
    server._log.read = lambda n=-1: reads.append(n) or real(n)
    tail = server._tail()
    assert reads == [TAIL_BYTES]  # never read() of the whole file
    assert tail == "first | second | " + "y" * 500
