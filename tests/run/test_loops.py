"""Where a run's loop runs (jurybox.run.loops): its own, a worker thread's inside a running
loop, the caller's; cancellation and Ctrl-C never abandon file work half done."""

import asyncio
import signal
import threading
import time
from contextlib import contextmanager

import pytest

from jurybox.errors import ProviderError
from jurybox.run.loops import entered_off_loop, loop_running, off_loop, run_blocking


async def _where():
    await asyncio.sleep(0)
    return threading.current_thread().name, loop_running()


def test_run_blocking_runs_here_without_a_loop_and_on_a_worker_inside_one():
    assert run_blocking(_where) == (threading.current_thread().name, True)

    async def notebook_cell():
        return run_blocking(_where)

    assert asyncio.run(notebook_cell()) == ("jurybox-run", True)


def test_run_blocking_raises_the_workers_exception_object_unchanged():
    error = ProviderError("openai/x: too many calls in a row failed")

    async def fails():
        raise error

    async def notebook_cell():
        with pytest.raises(ProviderError) as info:
            run_blocking(fails)
        return info.value

    assert asyncio.run(notebook_cell()) is error


def test_ctrl_c_while_waiting_cancels_the_worker_and_waits_for_its_cleanup():
    # a loop started as Jupyter's is (run_until_complete sets no SIGINT handler): Ctrl-C
    # raises KeyboardInterrupt in the waiting thread, wherever the kernel delivered it
    started, cleaned = threading.Event(), []
    main = threading.main_thread().ident
    assert main is not None

    async def run_forever():
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            time.sleep(0.2)  # file work a cancelled run still does (run.json, report)
            cleaned.append(threading.current_thread().name)
            raise

    def ctrl_c():
        started.wait(20)
        signal.pthread_kill(main, signal.SIGINT)

    async def cell():
        threading.Thread(target=ctrl_c).start()
        run_blocking(run_forever)

    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
    finally:
        loop.close()
    assert cleaned == ["jurybox-run"]  # done before KeyboardInterrupt reached the caller


def test_off_loop_is_never_abandoned_by_a_cancellation():
    finished = []

    def slow_write():
        time.sleep(0.3)
        finished.append(threading.current_thread().name)
        return "written"

    async def main():
        task = asyncio.ensure_future(off_loop(slow_write))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return list(finished)

    seen = asyncio.run(main())
    assert len(seen) == 1 and seen[0] != threading.current_thread().name
    assert asyncio.run(off_loop(lambda a, b: a + b, 2, 3)) == 5


def test_entered_off_loop_exits_what_a_cancellation_caught_entering():
    events = []

    @contextmanager
    def endpoint():
        time.sleep(0.3)
        events.append("entered")
        try:
            yield "provider"
        except BaseException as exc:
            events.append(f"exited on {type(exc).__name__}")
            raise
        else:
            events.append("exited")

    async def use():
        async with entered_off_loop(endpoint()) as value:
            events.append(value)
            await asyncio.sleep(0)

    async def main():
        await use()
        task = asyncio.ensure_future(use())
        await asyncio.sleep(0.05)  # still entering
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert events == ["entered", "provider", "exited", "entered", "exited on CancelledError"]
