"""The Python API where an event loop already runs (Jupyter, IPython autoawait, an async web
handler): the blocking forms work there (the engine on a worker thread), the awaitable forms
(ajudge, arun_judge, arun_bench, arun_personalize) judge on the caller's loop without blocking
it. Simulated judge throughout."""

import asyncio
import json
import signal
import threading

import pytest

import jurybox
from jurybox.compare import BenchConfig, arun_bench, run_bench
from jurybox.errors import ConfigError, ProviderError
from jurybox.judging import JudgeConfig, arun_judge, run_judge
from jurybox.personalize import PersonalizeConfig, arun_personalize, run_personalize
from jurybox.rundir import read_jsonl
from jurybox.run import Interrupted, RunHooks, RunOptions
from jurybox.runner import RetryPolicy
from jurybox.sim import Faults, SimConfig

from ._items import ids as _ids
from ._items import items as _items




def _decisions(result):
    return [(j.item_id, j.winners, j.combined, j.agreement) for j in result.items]


def _threads(names):
    return RunHooks(on_call=lambda _call: names.add(threading.current_thread().name))


def _status(out):
    return json.loads((out / "run.json").read_text())["status"]


def test_judge_and_ajudge_in_a_notebook_style_running_loop(tmp_path):
    # no loop: the reference
    plain = jurybox.judge(_items(0), model="sim", k=3, out=tmp_path / "plain")
    blocking, awaited = set(), set()

    async def cell():
        sync = jurybox.judge(_items(0), model="sim", k=3, out=tmp_path / "sync",
                             hooks=_threads(blocking))
        result = await jurybox.ajudge(_items(0), model="sim", k=3, out=tmp_path / "async",
                                      hooks=_threads(awaited))
        return threading.current_thread().name, sync, result

    loop_thread, sync, result = asyncio.run(cell())
    assert [j.item_id for j in sync.items] == [j.item_id for j in result.items] == _ids(0)
    assert _decisions(sync) == _decisions(result) == _decisions(plain)
    assert all(j.combined is not None and len(j.agreement) == 3 for j in result.items)
    assert blocking == {"jurybox-run"}  # the blocking form: its own loop on a worker thread
    assert awaited == {loop_thread}  # the awaitable form: on the caller's loop, no thread
    assert sync.run.status == result.run.status == "complete"
    assert (tmp_path / "async" / "report.html").exists()


def test_two_concurrent_ajudge_calls_on_one_loop_each_get_their_own_items(tmp_path):
    calls = []
    ticks = 0

    async def heartbeat(stop):
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0)

    def hooks(tag):
        return RunHooks(on_call=lambda _call: calls.append((tag, ticks)))

    slow = SimConfig(latency_ms=20)
    options = RunOptions(concurrency=1)

    async def main():
        stop = asyncio.Event()
        beat = asyncio.ensure_future(heartbeat(stop))
        a, b = await asyncio.gather(
            jurybox.ajudge(_items(0, 12), model="sim", k=3, out=tmp_path / "a", sim=slow,
                           options=options, hooks=hooks("a")),
            jurybox.ajudge(_items(100, 12), model="sim", k=3, out=tmp_path / "b", sim=slow,
                           options=options, hooks=hooks("b")))
        stop.set()
        await beat
        return a, b

    a, b = asyncio.run(main())
    assert [j.item_id for j in a.items] == _ids(0, 12)
    assert [j.item_id for j in b.items] == _ids(100, 12)
    assert _decisions(a) == _decisions(jurybox.judge(_items(0, 12), model="sim", k=3,
                                                     out=tmp_path / "ra"))
    assert _decisions(b) == _decisions(jurybox.judge(_items(100, 12), model="sim", k=3,
                                                     out=tmp_path / "rb"))
    tags = [tag for tag, _ in calls]
    assert tags.count("a") == tags.count("b") == 36  # 12 items x 3 orders, one call each
    # the two runs judged at the same time: each made calls while the other was between
    # its first and last call
    first_b, last_a = tags.index("b"), len(tags) - 1 - tags[::-1].index("a")
    first_a, last_b = tags.index("a"), len(tags) - 1 - tags[::-1].index("b")
    assert first_b < last_a and first_a < last_b
    # and the loop kept running its other tasks between the calls of a run
    beats = [tick for tag, tick in calls if tag == "a"]
    assert beats == sorted(beats) and len(set(beats)) > 10


def test_a_cancelled_ajudge_leaves_an_interrupted_run_that_resumes(tmp_path):
    out = tmp_path / "run"

    async def main():
        judged = asyncio.Event()
        task = asyncio.ensure_future(jurybox.ajudge(
            _items(0), model="sim", k=3, out=out, sim=SimConfig(latency_ms=20),
            options=RunOptions(concurrency=1), hooks=RunHooks(on_item=lambda _: judged.set())))
        await judged.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert _status(out) == "interrupted"
    done = {r["item_id"] for r in read_jsonl(out / "items.jsonl")}
    assert 0 < len(done) < 8
    resumed = jurybox.judge(_items(0), model="sim", k=3, out=out)
    assert resumed.run.judged_now == 8 - len(done) and _status(out) == "complete"
    assert _decisions(resumed) == _decisions(jurybox.judge(_items(0), model="sim", k=3,
                                                           out=tmp_path / "clean"))


def test_ajudge_leaves_the_callers_sigterm_handler_alone(tmp_path):
    # the loop is the caller's, and so is its SIGTERM: had the engine set its own handler
    # and removed it, SIGTERM would be back to its default (the assert below stops short of
    # sending it then)
    async def main():
        loop = asyncio.get_running_loop()
        received = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, received.set)
        try:
            result = await jurybox.ajudge(_items(0, 3), model="sim", k=2, out=tmp_path / "run")
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
            signal.raise_signal(signal.SIGTERM)
            await asyncio.wait_for(received.wait(), 20)
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
        return result

    assert [j.item_id for j in asyncio.run(main()).items] == _ids(0, 3)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_errors_inside_a_running_loop_are_the_same_as_outside(tmp_path):
    jurybox.judge(_items(0, 3), model="sim", k=3, out=tmp_path / "run")
    failing = {"sim": SimConfig(faults=Faults(rate_500=1.0)), "k": 2,
               "options": RunOptions(retry=RetryPolicy(attempts=1, base_s=0), abort_after=3)}

    def errors():
        caught = []
        for kind, call in (
                (ConfigError, lambda: jurybox.judge(_items(0, 3), model="sim", k=2,
                                                    out=tmp_path / "run")),
                (ProviderError, lambda: jurybox.judge(_items(0, 3), model="sim", out=tmp_path / "f",
                                                      **failing))):
            with pytest.raises(kind) as info:
                call()
            caught.append((type(info.value), str(info.value).replace(str(tmp_path), "T")))
        return caught

    async def cell():
        return errors()

    outside = errors()
    assert outside[0] == (ConfigError, "T/run holds a run with a different configuration "
                          "(differs in ['k']); use another --out or delete it")
    assert outside[1][0] is ProviderError and "3 calls in a row failed" in outside[1][1]
    assert asyncio.run(cell()) == outside  # raised on the worker thread, passed on unchanged


def test_ctrl_c_in_a_blocking_judge_inside_a_running_loop_interrupts_it(tmp_path):
    out, main = tmp_path / "run", threading.main_thread().ident
    assert main is not None
    seen = []

    def ctrl_c_after_two(_item):  # called on the worker thread: the signal goes to main
        seen.append(threading.current_thread().name)
        if len(seen) == 2:
            signal.pthread_kill(main, signal.SIGINT)

    async def cell():
        jurybox.judge(_items(0), model="sim", k=3, out=out, sim=SimConfig(latency_ms=20),
                      options=RunOptions(concurrency=1), hooks=RunHooks(on_item=ctrl_c_after_two))

    loop = asyncio.new_event_loop()  # as Jupyter's: no SIGINT handler of asyncio's
    try:
        with pytest.raises(Interrupted) as info:
            loop.run_until_complete(cell())
    finally:
        loop.close()
    assert info.value.signum == signal.SIGINT and set(seen) == {"jurybox-run"}
    assert _status(out) == "interrupted"
    resumed = jurybox.judge(_items(0), model="sim", k=3, out=out)
    assert 0 < resumed.run.judged_now < 8 and _status(out) == "complete"


def test_arun_judge_arun_bench_and_arun_personalize_decide_as_the_blocking_forms(tmp_path):
    src = tmp_path / "items.jsonl"
    src.write_text("".join(json.dumps(i) + "\n" for i in _items(0, 4)))
    judge_config = JudgeConfig(input=str(src), model="sim", k=3)
    bench_config = BenchConfig(dataset="truthfulqa", limit=5, k=3)
    personalize_config = PersonalizeConfig(
        ratings="squality", items="squality", rubric="squality", dimensions=("overall",),
        raters=2, limit=2, shots=(0, 1), seeds=1, group_field="passage_id")
    runs = [(run_judge, arun_judge, judge_config), (run_bench, arun_bench, bench_config),
            (run_personalize, arun_personalize, personalize_config)]

    async def awaited():
        return [await arun(config, tmp_path / f"a{i}") for i, (_, arun, config) in
                enumerate(runs)]

    blocking = [run(config, tmp_path / f"s{i}") for i, (run, _, config) in enumerate(runs)]
    for i, (sync, result) in enumerate(zip(blocking, asyncio.run(awaited()))):
        assert result.status == sync.status == "complete"
        assert result.n_units == sync.n_units > 0 and result.judged_now == sync.n_units
        assert _final(tmp_path / f"a{i}") == _final(tmp_path / f"s{i}")
    assert (tmp_path / "a0" / "judgments.jsonl").read_text() == \
        (tmp_path / "s0" / "judgments.jsonl").read_text()


def _final(out):
    """Each unit's decision (latest record per unit and protocol), without timings."""
    return {(r.get("unit") or r["item_id"], r["protocol"]):
            {k: v for k, v in r.items() if k not in ("seconds", "latency_s")}
            for r in read_jsonl(out / "items.jsonl")}
