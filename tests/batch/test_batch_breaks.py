"""Batch mode under attack: a provider that fails while a restart looks a batch up, a batch
that vanishes while an enqueued-token limit holds the next round back, batch files carried
back in pieces or with repeated lines, ``jurybox batch cancel`` on batch files. Each test is
a defect found by trying to break batch mode (fails before its fix)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from jurybox.batch import BatchOptions, BatchProvider
from jurybox.batch.api import BatchLimits, BatchStatus
from jurybox.cache import ResponseCache
from jurybox.errors import ProviderError, RetryableProviderError
from jurybox.rundir.batches import BatchJournal, endpoint_digest, read_journal
from jurybox.runner import Runner
from jurybox.runner.retry import RetryPolicy

from .fakes import FakeAPI, FakeOnline, FakeServer
from .test_dispatcher import FAST, ask, key


class FlakyFindAPI(FakeAPI):
    """A provider whose batch list fails the first ``fails`` times it is asked (``error``)."""

    def __init__(self, server: FakeServer, error: ProviderError, fails: int = 1) -> None:
        super().__init__(server)
        self.error, self.fails, self.finds = error, fails, 0

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        self.finds += 1
        if self.finds <= self.fails:
            raise self.error
        return await super().find(tag, file_id, n_requests, created_after)


def restart(tmp_path: Path, api: FakeAPI, options: BatchOptions = FAST
            ) -> tuple[BatchProvider, Runner]:
    online = FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 1)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    provider = BatchProvider(online, api, journal, options,
                             answered=lambda k: cache.get(k) is not None)
    runner = Runner(provider, cache=cache, concurrency=10_000,
                    retry=RetryPolicy(attempts=3, base_s=0), abort_after=None)
    return provider, runner


def killed_before_the_id(tmp_path: Path, server: FakeServer, *texts: str) -> None:
    """Session 0 journalled a batch of ``texts`` and created it at the provider, then was
    killed before it wrote the batch id (then a second batch, journalled in full)."""
    journal = BatchJournal(tmp_path, endpoint_digest(FakeOnline().cache_identity()), 0)
    entry = journal.intent("fake", [key(t) for t in texts])
    journal.write("file", entry.batch, file_id=f"file-{entry.batch}")
    server.create(entry.batch, [{"custom_id": key(t), "text": t} for t in texts])
    second = journal.intent("fake", [key("z")])
    journal.write("created", second.batch,
                  batch_id=server.create(second.batch, [{"custom_id": key("z"), "text": "z"}]))


def run_restart(tmp_path: Path, api: FakeAPI, *texts: str) -> list[str | None]:
    async def main() -> list[str | None]:
        provider, runner = restart(tmp_path, api)
        try:
            return await asyncio.wait_for(ask(runner, *texts), 10)
        finally:
            await provider.stop()

    return asyncio.run(main())


def test_a_failed_lookup_at_restart_is_tried_again_and_nothing_is_sent_twice(
        tmp_path: Path) -> None:
    """The provider's batch list answers HTTP 503 once when the restart looks up the batch
    whose id was never journalled. Before the fix the dispatcher polled a batch without an id
    (an AssertionError that stopped the run: "batch mode failed"); now it asks again."""
    server = FakeServer()
    killed_before_the_id(tmp_path, server, "x", "y")
    api = FlakyFindAPI(server, RetryableProviderError("HTTP 503: busy", status=503))
    assert run_restart(tmp_path, api, "x", "y", "z") == ["X", "Y", "Z"]
    # each request was created once, in session 0: none sent twice
    assert sorted(server.submitted.values()) == [1, 1, 1] and len(server.batches) == 2
    assert api.finds == 2  # the 503, then the lookup that found b1
    assert read_journal(tmp_path / "batches.jsonl")["0-1"].batch_id == "b1"


def test_a_lookup_answered_with_junk_does_not_resend_the_other_batches(tmp_path: Path) -> None:
    """The batch list answers a body that is not JSON (a ProviderError, not retryable).
    Before the fix start() stopped at that entry: the batch after it (z, in flight) was never
    re-attached and z was sent a second time. Now x (whose batch may exist) fails this session
    without being sent, and z is collected from its batch, sent once."""
    server = FakeServer()
    killed_before_the_id(tmp_path, server, "x")
    api = FlakyFindAPI(server, ProviderError("GET /batches answered with a body that is not "
                                             "JSON (b'<html>')"))
    x, z = run_restart(tmp_path, api, "x", "z")
    assert x is not None and "could not be asked whether it was created" in x
    assert z == "Z"
    assert sorted(server.submitted.values()) == [1, 1] and len(server.batches) == 2


class GoneOnceAPI(FakeAPI):
    """The provider forgets the first batch created (HTTP 404 when it is polled)."""

    async def status(self, batch_id: str) -> BatchStatus:
        if batch_id == "b1":
            raise ProviderError(f"GET /batches/{batch_id}: HTTP 404: not found", status=404)
        return await super().status(batch_id)


def test_a_vanished_batch_gives_back_its_enqueued_tokens(tmp_path: Path) -> None:
    """--batch-max-tokens holds the second batch until the first ends; the first vanishes
    (404). Before the fix its tokens were never given back: the second batch, and the
    resend of the first one's requests, waited forever (the run hung)."""
    server = FakeServer()
    # each request "aaaa..." of 40 characters is 40 // 4 + 1 = 11 estimated tokens; a limit of
    # 15 holds one request a batch and one batch in flight
    options = BatchOptions(poll_s=0.01, poll_max_s=0.02, quiet_s=0.05, max_enqueued_tokens=15)
    online = FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 0)
    provider = BatchProvider(online, GoneOnceAPI(server, BatchLimits(1000, 10**9)), journal,
                             options)
    runner = Runner(provider, cache=None, concurrency=10_000,
                    retry=RetryPolicy(attempts=3, base_s=0), abort_after=None)
    texts = ["a" * 40, "b" * 40]

    async def main() -> list[str | None]:
        try:
            return await asyncio.wait_for(ask(runner, *texts), 10)
        finally:
            await provider.stop()

    assert asyncio.run(main()) == ["A" * 40, "B" * 40]
    # b1 (a) vanished, b2 (b) answered, b3 (a again: its batch could not answer) answered
    assert [[ln["text"][0] for ln in b.lines] for b in server.batches.values()] == [
        ["a"], ["b"], ["a"]]


def _files_run(tmp_path: Path, texts: list[str]) -> tuple[Path, dict[str, str]]:
    """A run directory holding one --batch-files batch (1-1) of ``texts``: run.json, the
    journal, the input file; the custom ids by text."""
    from jurybox.batch.files import input_path

    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"schema": 1, "model": {"spec": "vllm/m"}}))
    journal = BatchJournal(run, "e" * 16, 1)
    ids = {t: key(t) for t in texts}
    entry = journal.intent("vllm", list(ids.values()))
    path = input_path(run, entry.batch)
    path.parent.mkdir()
    path.write_text("".join(json.dumps({"custom_id": c, "body": {}}) + "\n"
                            for c in ids.values()))
    journal.write("created", entry.batch, batch_id="file:" + entry.batch)
    return run, ids


def _output_line(custom_id: str, text: str) -> str:
    body = {"choices": [{"message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
    return json.dumps({"custom_id": custom_id, "response": {"status_code": 200, "body": body}})


def test_importing_a_batch_in_two_parts_keeps_both(tmp_path: Path) -> None:
    """`vllm run-batch` run twice (two halves of the export), each output imported. Before
    the fix the second import replaced the first's answers in the batch's output file."""
    from jurybox.batch.files import output_path
    from jurybox.batch.manage import import_results

    run, ids = _files_run(tmp_path, ["x", "y"])
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(_output_line(ids["x"], "X") + "\n")
    second.write_text(_output_line(ids["y"], "Y") + "\n")
    assert import_results(run, first).incomplete == {"1-1": 1}  # y still missing
    outcome = import_results(run, second)
    assert outcome.incomplete == {}
    kept = [json.loads(ln)["custom_id"] for ln in
            output_path(run, "1-1").read_text().splitlines()]
    assert sorted(kept) == sorted([ids["x"], ids["y"]])


def test_an_import_with_a_repeated_line_still_says_what_is_missing(tmp_path: Path) -> None:
    """x answered twice, y not at all: 2 lines for a batch of 2, but y is missing. Before the
    fix lines were counted, not requests: no warning, and y waited for an answer."""
    from jurybox.batch.manage import import_results

    run, ids = _files_run(tmp_path, ["x", "y"])
    out = tmp_path / "out.jsonl"
    out.write_text(_output_line(ids["x"], "X") + "\n" + _output_line(ids["x"], "X") + "\n")
    outcome = import_results(run, out)
    assert outcome.by_batch == {"1-1": 1}
    assert outcome.incomplete == {"1-1": 1}


def test_cancel_leaves_batch_files_alone(tmp_path: Path, monkeypatch: Any) -> None:
    """`jurybox batch cancel` on a --batch-files run: no provider holds those batches. Before
    the fix it rebuilt the vllm endpoint and asked it to cancel batch `file:1-1`."""
    from jurybox.batch.manage import cancel_batches

    run, _ = _files_run(tmp_path, ["x"])
    assert asyncio.run(cancel_batches(run)) == []


def test_the_enqueued_token_limit_lets_the_next_round_go(tmp_path: Path) -> None:
    """Two rounds (the second asks after the first's answer) under --batch-max-tokens. Before
    the fix the tokens of an ended batch were read after its "ended" line had replaced the
    entry's counts: 0 were given back, and the second round waited forever."""
    server = FakeServer()
    # "a" * 40 is 40 // 4 + 1 = 11 estimated tokens, "then " + "A" * 40 is 45 // 4 + 1 = 12:
    # with a limit of 15 the second round can go only once the first gave its 11 back
    options = BatchOptions(poll_s=0.01, poll_max_s=0.02, quiet_s=0.05, max_enqueued_tokens=15)
    online = FakeOnline()
    journal = BatchJournal(tmp_path, endpoint_digest(online.cache_identity()), 0)
    provider = BatchProvider(online, FakeAPI(server), journal, options)
    runner = Runner(provider, cache=None, concurrency=10_000,
                    retry=RetryPolicy(attempts=3, base_s=0), abort_after=None)

    async def item() -> list[str | None]:
        (first,) = await ask(runner, "a" * 40)
        return await ask(runner, f"then {first}")

    async def main() -> list[str | None]:
        try:
            return await asyncio.wait_for(item(), 10)
        finally:
            await provider.stop()

    assert asyncio.run(main()) == ["THEN " + "A" * 40]
    assert [len(b.lines) for b in server.batches.values()] == [1, 1]


class ByCountAPI(FakeAPI):
    """Anthropic's lookup: batches keep no metadata, so a batch is found by its request count
    among the batches created since (newest first)."""

    async def find(self, tag: str, file_id: str | None, n_requests: int,
                   created_after: float) -> str | None:
        for batch in reversed(list(self.server.batches.values())):
            if len(batch.lines) == n_requests:
                return batch.id
        return None


def test_an_intent_never_created_is_not_matched_to_its_sibling_batch(tmp_path: Path) -> None:
    """A round split in two batches of one request each; killed after the first was created
    and journalled, before the second was created. Looked up by request count (Anthropic),
    the second intent matched the first batch: the journal gave both one batch id, the first
    batch's answer was read twice (once as a "result this run never sent"). Now a batch id
    the journal already holds is no match: the second intent is lost, its request sent."""
    server = FakeServer()
    journal = BatchJournal(tmp_path, endpoint_digest(FakeOnline().cache_identity()), 0)
    first = journal.intent("fake", [key("x")])
    journal.write("created", first.batch,
                  batch_id=server.create(first.batch, [{"custom_id": key("x"), "text": "x"}]))
    journal.intent("fake", [key("y")])  # killed here: never created
    provider, runner = restart(tmp_path, ByCountAPI(server))

    async def main() -> list[str | None]:
        try:
            return await asyncio.wait_for(ask(runner, "x", "y"), 10)
        finally:
            await provider.stop()

    assert asyncio.run(main()) == ["X", "Y"]
    entries = read_journal(tmp_path / "batches.jsonl")
    assert [(b.batch, b.batch_id, b.state) for b in entries.values()] == [
        ("0-1", "b1", "completed"), ("0-2", None, "lost"), ("1-1", "b2", "completed")]
    assert provider.stats.unknown_results == 0
    assert dict(server.submitted) == {key("x"): 1, key("y"): 1}


def test_export_and_import_on_a_provider_batch_run_say_there_are_no_files(tmp_path: Path) -> None:
    from jurybox.batch.manage import export_requests, import_results
    from jurybox.errors import DataError

    (tmp_path / "run.json").write_text('{"status": "complete"}')
    journal = BatchJournal(tmp_path, "0123456789abcdef", 0)
    entry = journal.intent("openai", ["k" * 64])
    journal.write("created", entry.batch, batch_id="batch_abc")
    results = tmp_path / "results.jsonl"
    results.write_text('{"custom_id": "' + "k" * 64 + '"}\n')
    for act in (lambda: export_requests(tmp_path, tmp_path / "out.jsonl"),
                lambda: import_results(tmp_path, results)):
        with pytest.raises(DataError, match=r"sent its batches to the provider \(--batch\), not "
                                            r"to files \(--batch-files\)"):
            act()


def test_an_import_cut_short_says_so_with_its_line_and_field(tmp_path: Path) -> None:
    """break-it D3: a results file whose last line was cut short was 'not a JSON line', with
    no column, where an items file says the line was cut short."""
    from jurybox.batch.manage import import_results
    from jurybox.errors import DataError

    run, ids = _files_run(tmp_path, ["x", "y"])
    out = tmp_path / "out.jsonl"
    whole = _output_line(ids["y"], "Y")
    out.write_text(_output_line(ids["x"], "X") + "\n" + whole[:len(whole) - 60] + "\n")
    with pytest.raises(DataError) as caught:
        import_results(run, out)
    message = str(caught.value)
    assert f"{out}:2:" in message and "field 'response'" in message
    assert "the line ends before the JSON object closes" in message
    assert "was the line cut short?" in message
