"""The batch store on a hand-driven clock: linear progress, exact error and expiry shares,
cancel, and the count of paid-twice resubmissions; and serve-sim's batch options."""

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.sim.batch_state import SCRIPTED_ERROR, BatchScript, BatchStore

from ..cli_checks import one_line_error


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _ok(request):
    return 200, {"text": request.custom_id}


def _run(request):
    return (500, {"error": SCRIPTED_ERROR}) if request.fate == "error" else _ok(request)


def _store(**script):
    clock = Clock()
    return BatchStore(BatchScript(**script), clock=clock), clock


def _requests(*ids):
    return [(cid, {"model": "judge", "n": cid}, f"key-{cid}") for cid in ids]


def test_requests_end_evenly_over_the_delay_and_the_batch_ends_after_it():
    store, clock = _store(delay_s=10.0)
    batch = store.create("openai", "batch_", _requests("a", "b", "c", "d"), _ok)
    # 4 runnable requests end at 10 * (k + 1) / 4 = 2.5, 5, 7.5, 10 s after creation
    for elapsed, done in ((0.0, 0), (2.4, 0), (2.5, 1), (6.0, 2), (9.9, 3), (10.0, 4)):
        clock.now = 1_000.0 + elapsed
        batch.advance(clock.now)
        assert batch.counts()["succeeded"] == done, elapsed
    assert batch.ended(clock.now) and batch.counts() == {"succeeded": 4}
    assert sorted(r.reply["text"] for r in batch.requests) == ["a", "b", "c", "d"]


def test_error_and_expiry_shares_are_exact_and_seeded():
    ids = [f"r{i}" for i in range(10)]
    store, clock = _store(delay_s=0.0, error_rate=0.25, expire_share=0.2, seed=3)
    batch = store.create("openai", "batch_", _requests(*ids), _run)
    batch.advance(clock.now)
    # expired: round(0.2 * 10) = 2; errored: 0.25 * 10 = 2.5, rounded half up to 3
    assert batch.counts() == {"succeeded": 5, "errored": 3, "expired": 2}
    again, _ = _store(delay_s=0.0, error_rate=0.25, expire_share=0.2, seed=3)
    other, _ = _store(delay_s=0.0, error_rate=0.25, expire_share=0.2, seed=4)
    fates = []
    for each in (again, other):
        b = each.create("openai", "batch_", _requests(*ids), _run)
        b.advance(clock.now)
        fates.append({r.custom_id: r.outcome for r in b.requests})
    assert fates[0] == {r.custom_id: r.outcome for r in batch.requests}  # same seed
    assert fates[1] != fates[0]  # another seed picks others
    # output order: a seeded shuffle, not the input order
    order = [r.custom_id for r in batch.requests]
    assert sorted(order) == sorted(ids) and order != ids


def test_cancel_keeps_what_ended_and_cancels_the_rest():
    store, clock = _store(delay_s=10.0, cancel_s=1.0)
    batch = store.create("anthropic", "msgbatch_", _requests("a", "b", "c", "d"), _ok)
    clock.now += 6.0  # two ended (2.5 s, 5 s)
    batch.cancel(clock.now)
    assert batch.counts() == {"succeeded": 2, "canceled": 2}
    assert not batch.ended(clock.now) and batch.ends_at == clock.now + 1.0
    clock.now += 1.0
    assert batch.ended(clock.now)
    batch.advance(clock.now + 100)  # nothing more runs after a cancel
    assert batch.counts() == {"succeeded": 2, "canceled": 2}


def test_resubmitting_counts_only_what_was_in_progress_or_succeeded():
    store, clock = _store(delay_s=10.0)
    store.create("openai", "batch_", _requests("a", "b"), _ok)
    clock.now += 1.0
    store.create("openai", "batch_", _requests("b", "c"), _ok)  # b still in progress: 1
    clock.now += 20.0
    store.create("anthropic", "msgbatch_", _requests("a"), _ok)  # a succeeded: 2
    assert store.stats(detail=True) == {
        "batches_created": 3, "requests_submitted": 5, "distinct_custom_ids": 3,
        "resubmitted": 2, "submissions": {"a": 2, "b": 2, "c": 1}}
    expiring, clock = _store(delay_s=1.0, expire_share=1.0)
    expiring.create("openai", "batch_", _requests("a"), _ok)
    clock.now += 5.0
    expiring.create("openai", "batch_", _requests("a"), _ok)  # the first expired: fine
    errored, clock = _store(delay_s=1.0, error_rate=1.0)
    errored.create("openai", "batch_", _requests("a"), _run)
    clock.now += 5.0
    errored.create("openai", "batch_", _requests("a"), _run)  # the first errored: fine
    canceled, clock = _store(delay_s=10.0)
    canceled.create("openai", "batch_", _requests("a"), _ok).cancel(clock.now + 1)
    clock.now += 2.0
    canceled.create("openai", "batch_", _requests("a"), _ok)  # the first was canceled: fine
    assert [s.stats()["resubmitted"] for s in (expiring, errored, canceled)] == [0, 0, 0]
    assert errored.stats()["requests_submitted"] == 2


def test_a_script_with_shares_over_one_is_refused():
    with pytest.raises(ValidationError, match="error_rate \\+ expire_share must be at most 1"):
        BatchScript(error_rate=0.7, expire_share=0.4)


def test_serve_sim_passes_its_batch_options(monkeypatch):
    seen = {}
    monkeypatch.setattr("jurybox.sim.serve_forever",
                        lambda judge, *, port, batch, max_concurrency: seen.update(
                            port=port, batch=batch))
    result = CliRunner().invoke(app, [
        "serve-sim", "--dataset", "none", "--port", "9001", "--batch-delay", "2.5",
        "--batch-error-rate", "0.1", "--batch-expire-share", "0.2", "--batch-reject",
        "--batch-seed", "7"])
    assert result.exit_code == 0, result.output
    assert seen == {"port": 9001, "batch": BatchScript(delay_s=2.5, error_rate=0.1,
                                                       expire_share=0.2, reject=True, seed=7)}
    CliRunner().invoke(app, ["serve-sim", "--dataset", "none"])
    assert seen["batch"] == BatchScript()  # defaults: 0.5 s, no errors, no expiry
    one_line_error(CliRunner().invoke(app, ["serve-sim", "--batch-error-rate", "0.7",
                                            "--batch-expire-share", "0.4"]),
                   "--batch-error-rate + --batch-expire-share must be at most 1")
