"""The batch journal (batches.jsonl) after a kill in the middle of writing a line."""

from __future__ import annotations

import json
from pathlib import Path

from jurybox.rundir.batches import BATCHES_FILE, BatchJournal, read_journal

ENDPOINT = "0123456789abcdef"


def test_a_line_cut_short_by_a_kill_does_not_break_the_next_sessions(tmp_path: Path) -> None:
    """Session 0 was killed while writing its second intent (a large line: 50,000 custom ids
    are 3.3 MB, more than one write). Before the fix session 1 appended its first event to
    the cut line, which was then a damaged line in the middle of the journal: every later
    run stopped on it ("not a JSON line")."""
    BatchJournal(tmp_path, ENDPOINT, 0).intent("openai", ["a" * 64])
    path = tmp_path / BATCHES_FILE
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"schema":1,"event":"intent","batch":"0-2","custom_ids":["bbbb')  # killed
    session1 = BatchJournal(tmp_path, ENDPOINT, 1)
    assert list(session1.batches) == ["0-1"]  # the cut intent: never sent
    session1.intent("openai", ["c" * 64])
    assert list(read_journal(path)) == ["0-1", "1-1"]
    BatchJournal(tmp_path, ENDPOINT, 2)  # and the session after it opens it too
    assert [json.loads(ln)["batch"] for ln in path.read_text().splitlines()] == ["0-1", "1-1"]


def test_a_last_line_complete_but_for_its_newline_is_kept(tmp_path: Path) -> None:
    """Killed between writing a line and its newline: the event is whole and is kept."""
    journal = BatchJournal(tmp_path, ENDPOINT, 0)
    entry = journal.intent("openai", ["a" * 64])
    path = tmp_path / BATCHES_FILE
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"schema": 1, "event": "created", "batch": entry.batch,
                             "batch_id": "batch_1"}))
    session1 = BatchJournal(tmp_path, ENDPOINT, 1)
    session1.write("ended", "0-1", state="completed", counts={"done": 1})
    batch = read_journal(path)["0-1"]
    assert (batch.batch_id, batch.state, batch.ended) == ("batch_1", "completed", True)
