"""Two calls in one process into one run directory (threads, or tasks on one loop) are as safe
as two processes: the second is refused with the one-line RunDirBusyError while the first
runs, a result only ever holds the items its call gave, and a call after the first has
finished is refused (other items) or served from its records (the same items)."""

import asyncio
import threading
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import pytest

import jurybox
from jurybox.errors import ConfigError
from jurybox.judging.results import judgment_of
from jurybox.judging.run import _JudgeRun
from jurybox.rundir import RunDirBusyError
from jurybox.run import RunHooks, RunOptions
from jurybox.sim import SimConfig

from ._items import ids as _ids
from ._items import items as _items

#: (items of the second call, whether both calls name out=)
CASES = {"same out, other items": (100, True), "same out, same items": (0, True),
         "no out, same items": (0, False)}




def one_line_error(message):
    assert "\n" not in message and "Traceback" not in message and message.strip(), message


def _outcome(call):
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - the outcome is what is checked
        return exc


def _while_first_runs(first_hooks_of):
    """Hooks for the first call that, at its first model call (it holds the folder then),
    make the second call once via ``first_hooks_of(...)``'s callback."""
    done = []

    def on_call(_call):
        if not done:
            done.append(first_hooks_of())
    return RunHooks(on_call=on_call), done


def _check_refused(exc, folder):
    assert isinstance(exc, RunDirBusyError), repr(exc)
    one_line_error(str(exc))
    assert str(exc).startswith(f"{folder} is in use by process ")
    assert "(this process: another call judging into it, since " in str(exc)


def _check_after(second, first_items, first, folder):
    """The second call again, once the first has finished."""
    if first_items == 100:  # other items: a changed configuration, the folder untouched
        assert isinstance(second, ConfigError) and not isinstance(second, RunDirBusyError)
        assert "holds a run with a different configuration" in str(second)
        assert '"id": "q0"' in (folder / "input.jsonl").read_text()
    else:  # the same items: served from the first call's records, no model call
        assert [j.item_id for j in second.items] == _ids(0)
        assert second.run.judged_now == 0 and second.run.totals.model_calls == 0
        assert [j.winners for j in second.items] == [j.winners for j in first.items]


@pytest.mark.parametrize("case", CASES)
def test_threads_a_second_call_while_the_first_runs_is_refused(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)  # the default out is runs/judge-items-... under the cwd
    first_items, named = CASES[case]
    out = tmp_path / "run" if named else None
    slow = {"k": 3, "sim": SimConfig(latency_ms=10), "options": RunOptions(concurrency=1)}

    def second():
        result = []
        thread = threading.Thread(target=lambda: result.append(_outcome(
            lambda: jurybox.judge(_items(first_items), model="sim", k=3, out=out))))
        thread.start()
        thread.join(20)
        return result[0]

    hooks, refused = _while_first_runs(second)
    results = []
    first_thread = threading.Thread(target=lambda: results.append(_outcome(
        lambda: jurybox.judge(_items(0), model="sim", out=out, hooks=hooks, **slow))))
    first_thread.start()
    first_thread.join(60)
    first = results[0]
    assert [j.item_id for j in first.items] == _ids(0) and first.run.status == "complete"
    _check_refused(refused[0], first.out)
    _check_after(_outcome(lambda: jurybox.judge(_items(first_items), model="sim", k=3, out=out)),
                 first_items, first, first.out)


@pytest.mark.parametrize("case", CASES)
def test_tasks_a_second_ajudge_while_the_first_runs_is_refused(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    first_items, named = CASES[case]
    out = tmp_path / "run" if named else None
    slow = {"k": 3, "sim": SimConfig(latency_ms=10), "options": RunOptions(concurrency=1)}

    async def outcome(coro):
        try:
            return await coro
        except Exception as exc:  # noqa: BLE001
            return exc

    async def main():
        hooks, started = _while_first_runs(lambda: asyncio.ensure_future(
            outcome(jurybox.ajudge(_items(first_items), model="sim", k=3, out=out))))
        first = await jurybox.ajudge(_items(0), model="sim", out=out, hooks=hooks, **slow)
        refused = await started[0]
        again = await outcome(jurybox.ajudge(_items(first_items), model="sim", k=3, out=out))
        return first, refused, again

    first, refused, again = asyncio.run(main())
    assert [j.item_id for j in first.items] == _ids(0) and first.run.status == "complete"
    _check_refused(refused, first.out)
    _check_after(again, first_items, first, first.out)


def _race(calls):
    """Start ``calls`` on real threads at one instant; their outcomes."""
    barrier = threading.Barrier(len(calls))
    outcomes: list = [None] * len(calls)

    def run(i):
        barrier.wait()
        outcomes[i] = _outcome(calls[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return outcomes


def _check_race(outcomes, firsts):
    """Every call got its own items or a one-line ConfigError (busy, or other items once the
    winner's run exists), never another call's items or a raw OSError."""
    assert any(not isinstance(o, Exception) for o in outcomes), outcomes
    for outcome, first in zip(outcomes, firsts):
        if isinstance(outcome, Exception):
            assert isinstance(outcome, ConfigError), repr(outcome)
            one_line_error(str(outcome))
        else:
            assert [j.item_id for j in outcome.items] == _ids(first)


@pytest.mark.parametrize("case", CASES)
def test_threads_racing_into_one_folder(tmp_path, monkeypatch, case):
    other, named = CASES[case]
    for round_ in range(5):
        out = tmp_path / f"run{round_}" if named else None
        (tmp_path / f"cwd{round_}").mkdir()
        monkeypatch.chdir(tmp_path / f"cwd{round_}")  # a new default folder each round
        outcomes = _race([partial(jurybox.judge, _items(0), model="sim", k=2, out=out),
                          partial(jurybox.judge, _items(other), model="sim", k=2, out=out)])
        _check_race(outcomes, [0, other])
        if not named:
            for folder in Path("runs").iterdir():  # a refused call removed none of it
                assert (folder / "input.jsonl").exists() and (folder / "run.json").exists()


@pytest.mark.parametrize("case", CASES)
def test_tasks_racing_into_one_folder(tmp_path, monkeypatch, case):
    other, named = CASES[case]

    async def both(out):
        calls = [jurybox.ajudge(_items(0), model="sim", k=2, out=out),
                 jurybox.ajudge(_items(other), model="sim", k=2, out=out)]
        return await asyncio.gather(*calls, return_exceptions=True)

    for round_ in range(5):
        out = tmp_path / f"run{round_}" if named else None
        (tmp_path / f"cwd{round_}").mkdir()
        monkeypatch.chdir(tmp_path / f"cwd{round_}")
        _check_race(asyncio.run(both(out)), [0, other])


def test_a_result_never_holds_items_the_call_did_not_give(tmp_path):
    # the last check before a result is returned: the run directory's judgments must be
    # those of the items given, in their order
    record = {"protocol": "pcf", "n_candidates": 2, "n_calls": 2, "n_ok": 2, "winners": [0],
              "credit": None, "gold": [], "combined": [60.0, 40.0], "top_picks": [0, 0],
              "top_positions": [0, 1], "failures": [], "k": 2, "stop": "all", "failed": False}
    judgments = [judgment_of({**record, "item_id": i}) for i in ("q100", "q101")]
    run = _JudgeRun(engine=None, job=None, folder=tmp_path / "run",
                    given=["q0", "q1"], ids=["q0", "q1"], judgments=judgments)
    report = SimpleNamespace(summary="the summary")
    with pytest.raises(ConfigError, match=r"run holds judgments of other items than the 2 "
                                          r"given \(other: \['q100', 'q101'\], missing: "
                                          r"\['q0', 'q1'\]\)"):
        run.result(report)
    mine = [judgment_of({**record, "item_id": i}) for i in ("q0", "q1")]
    for bad in (mine[::-1], mine[:1], [*mine, mine[0]]):  # order, a missing one, twice
        run.judgments = bad
        with pytest.raises(ConfigError, match="holds judgments of other items"):
            run.result(report)
    run.judgments = mine
    result = run.result(report)
    assert [j.item_id for j in result.items] == ["q0", "q1"] and result.summary == "the summary"
    run.given = ["q0", "q9"]  # the run's own selection, but not the caller's items
    with pytest.raises(ConfigError, match=r"other: \['q1'\]"):
        run.result(report)
