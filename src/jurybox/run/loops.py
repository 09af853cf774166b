"""Where a run's event loop is: its own, a worker thread's, or the caller's.

The engine judges in a coroutine. The blocking API (``jurybox.judge``, ``run_bench``, ...)
runs it with :func:`run_blocking`: on a loop of its own (``asyncio.run``) when none runs in the
calling thread, else (Jupyter, IPython with autoawait, an async web handler) on a loop of its
own in a worker thread while the caller waits. The async API (``jurybox.ajudge``, ...) awaits
it on the caller's loop, and passes file work that would block that loop for long (loading a
dataset, the summary, report.html) to :func:`off_loop`. No loop is ever re-entered
(``nest_asyncio`` is not needed).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractContextManager, asynccontextmanager
from typing import Any, Protocol, TypeVar

__all__ = ["Blocking", "all_or_none", "entered_off_loop", "inline", "loop_running", "off_loop",
           "run_blocking"]

T = TypeVar("T")

#: How often (seconds) a caller waiting for a worker thread returns to the interpreter, so
#: that Ctrl-C (delivered to whichever thread the kernel picks) raises in the caller.
_POLL_S = 0.1


def loop_running() -> bool:
    """Whether an event loop is running in this thread (``asyncio.run`` would refuse)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_blocking(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine ``main()`` to its end and return its result, from sync code.

    With no event loop running in this thread: ``asyncio.run(main())``, here. With one
    running: ``main()`` runs on a new loop in a worker thread (named ``jurybox-run``, with a
    copy of this thread's context variables) and this thread waits, so the caller's loop
    is blocked for that long, as by any blocking call; await the async API instead to keep it
    running. The worker's loop sets no signal handlers (only the main thread can).

    Raises:
        whatever ``main()`` raised, the same exception object (jurybox's errors unchanged).
        KeyboardInterrupt: Ctrl-C while waiting: the worker's coroutine is cancelled (as
            Ctrl-C cancels ``asyncio.run``'s) and waited for, so the run directory is left
            settled (run.json ``interrupted``), then KeyboardInterrupt is re-raised; a
            second Ctrl-C during that wait leaves at once.
    """
    if not loop_running():
        return asyncio.run(main())
    worker = _Worker(main)
    thread = threading.Thread(target=contextvars.copy_context().run, args=(worker,),
                              name="jurybox-run")
    try:
        thread.start()  # Ctrl-C may come while this waits for the thread to start
        while not worker.done.wait(_POLL_S):
            pass
    except KeyboardInterrupt:
        worker.cancel()
        if thread.ident is not None:  # it started (one not yet running stops at once)
            while not worker.done.wait(_POLL_S):
                pass
            thread.join()
        raise
    thread.join()
    if worker.error is not None:
        raise worker.error
    return worker.result


class _Worker:
    """A worker thread's body: ``asyncio.run(main())``, cancellable from another thread."""

    def __init__(self, main: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self._main = main
        self._guard = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._stopped = False
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None

    def __call__(self) -> None:
        try:
            self.result = asyncio.run(self._body())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            self.error = exc
        finally:
            self.done.set()

    async def _body(self) -> Any:
        with self._guard:
            if self._stopped:  # cancelled before the loop started
                raise asyncio.CancelledError
            self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        return await self._main()

    def cancel(self) -> None:
        """Cancel the coroutine (thread-safe; a no-op once it has ended)."""
        with self._guard:
            self._stopped = True
            if self._loop is not None and self._task is not None:
                try:
                    self._loop.call_soon_threadsafe(self._task.cancel)
                except RuntimeError:  # the loop is closed: the run has ended
                    pass


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a thread of the loop's default executor (``asyncio.to_thread``), so
    file work does not block the running loop; ``fn`` must not touch the loop.

    It is never abandoned: cancelling the awaiting task waits for ``fn`` to finish (it may be
    writing the run directory, which must stay locked until it has), then propagates the
    cancellation (``fn``'s result or error is dropped).

    Raises:
        whatever ``fn`` raised; asyncio.CancelledError: the caller was cancelled.
    """
    future = asyncio.ensure_future(asyncio.to_thread(fn, *args))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await _settled(future)
        raise


async def _settled(future: asyncio.Future[Any]) -> None:
    """Wait for ``future`` to end, through any further cancellations, and mark its error as
    seen (it is dropped: the cancellation propagates instead)."""
    while not future.done():
        try:
            await asyncio.wait({future})
        except asyncio.CancelledError:
            continue
    if not future.cancelled():
        future.exception()


@asynccontextmanager
async def entered_off_loop(cm: AbstractContextManager[T]) -> AsyncIterator[T]:
    """``async with entered_off_loop(cm) as value``: a blocking context manager whose enter
    and exit (opening an endpoint, checking a dataset, cleaning up) run in :func:`off_loop`.
    A cancellation while it is being entered exits it once it is entered, then propagates."""
    entering = asyncio.ensure_future(asyncio.to_thread(cm.__enter__))
    try:
        value = await asyncio.shield(entering)
    except asyncio.CancelledError as exc:
        await _settled(entering)
        if not entering.cancelled() and entering.exception() is None:
            await _settled(asyncio.ensure_future(asyncio.to_thread(
                cm.__exit__, type(exc), exc, exc.__traceback__)))
        raise
    try:
        yield value
    except BaseException as exc:
        if not await off_loop(cm.__exit__, type(exc), exc, exc.__traceback__):
            raise
    else:
        await off_loop(cm.__exit__, None, None, None)


class Blocking(Protocol):
    """How the engine runs file work: :func:`inline` or :func:`off_loop`."""

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> Awaitable[T]: ...


async def inline(fn: Callable[..., T], /, *args: Any) -> T:
    """``fn(*args)`` here, on the engine's own loop (nothing else runs on it)."""
    return fn(*args)


async def all_or_none(coros: list[Any]) -> None:
    """Run the coroutines concurrently; on an error or cancellation (Ctrl-C) the others are
    cancelled and awaited before the exception propagates, so no task is left pending."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
