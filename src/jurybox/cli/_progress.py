"""The progress line of the judging commands (bench, judge, personalize, score, demo, juries).

One line on stderr, readable at 80 columns::

    judging ━━━━━━━━━━━╺━━━━━━━  120/200 items  14.2 calls/s  2 failed  ETA 0:00:07

Items done of the run's total, model calls per second this session (HTTP attempts; cache
hits are not calls), calls that failed so far (after their last retry or re-ask: API errors,
unusable and refused answers, as ``calls.jsonl`` records them) and the time left at this
session's item rate. A wide terminal shows cache hits and tokens too; on a narrow one the bar
goes first, and below 58 columns the fields wrap onto a second line (never cut).

Off a terminal (a log, a pipe) no bar is drawn: a plain line at most every
``JURYBOX_PROGRESS_INTERVAL`` seconds instead (:mod:`._plain_progress`).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from rich.console import Console, Group, RenderableType
from rich.progress import Progress
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

#: The state words after which a batch no longer changes (OpenAI's, Anthropic's, jurybox's).
BATCH_ENDED = frozenset({"completed", "expired", "failed", "cancelled", "ended", "rejected"})

if TYPE_CHECKING:
    from ..batch import BatchEvent
    from ..run import RunHooks
    from ..runner import CallRecord

__all__ = ["BenchProgress", "clock_text", "progress_forced", "with_progress"]

R = TypeVar("R")

#: Bar width bounds, columns: below MIN_BAR the bar is dropped, above MAX_BAR it stops growing.
MIN_BAR, MAX_BAR = 6, 30


def clock_text(seconds: float | None) -> str:
    """``h:mm:ss`` of a duration rounded up to the second; ``-:--:--`` when unknown."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "-:--:--"
    whole = math.ceil(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def progress_forced() -> bool:
    """``JURYBOX_PROGRESS``: true to draw the progress line when stderr is not a terminal
    (1, true, yes, on; 0, false, no, off or empty: only on a terminal; any case).

    Raises:
        ConfigError: any other value (the message names the variable and the values).
    """
    from ..errors import ConfigError
    from ._environment import FLAG_VALUES

    value = os.environ.get("JURYBOX_PROGRESS", "")
    word = value.strip().lower()
    if word in ("", "0", "false", "no", "off", "n", "f"):
        return False
    if word in ("1", "true", "yes", "on", "y", "t"):
        return True
    raise ConfigError(f"JURYBOX_PROGRESS must be one of {FLAG_VALUES} (or empty: a progress "
                      f"line only on a terminal), got {value!r}")


class _LineProgress(Progress):
    """A rich Progress drawn as :meth:`BenchProgress.line` decides (one line per task)."""

    def __init__(self, owner: BenchProgress, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.owner = owner

    def get_renderables(self) -> Any:
        yield Group(*(self.owner.line(task.completed, task.total, self.console.width)
                      for task in self.tasks))


class BenchProgress:
    """The progress line of a run, fed by the engine's hooks (:meth:`hooks`).

    Args:
        label: what the line says first (``judging``).
        console: where it is drawn (default: stderr, drawn only when stderr is a terminal
            or ``JURYBOX_PROGRESS=1``).
        clock: seconds, monotonic (tests pass their own).
        interval: off a terminal, seconds between plain progress lines (default
            ``JURYBOX_PROGRESS_INTERVAL``, else 10; 0: none); unused when the line is drawn.
        stream: where plain lines go (default stderr).

    Raises:
        ConfigError: ``JURYBOX_PROGRESS_INTERVAL`` is not a number of seconds.
    """

    def __init__(self, label: str = "judging", *, console: Console | None = None,
                 clock: Callable[[], float] = time.monotonic, interval: float | None = None,
                 stream: TextIO | None = None) -> None:
        from ._console import err_console, isatty
        from ._plain_progress import PlainProgress, progress_interval

        self.label = label
        self.calls = self.hits = self.failures = self.tokens = 0
        self.clock = clock
        self.started = clock()
        self.done_at_start = 0
        self.batches: dict[str, BatchEvent] = {}
        forced = progress_forced()  # checked on a terminal too
        draw = console is not None or isatty(sys.stderr) or forced
        self.progress = _LineProgress(self, console=console or err_console, transient=False,
                                      disable=not draw, get_time=clock)
        self.task = self.progress.add_task(label, total=None)
        every = progress_interval() if interval is None else interval
        self.plain = (PlainProgress(self.plain_text, interval=every, clock=clock, stream=stream)
                      if not draw and every > 0 else None)

    def on_start(self, total: int, done: int) -> None:
        """The run's units and those already done (a resumed run): the rate counts from here."""
        self.started, self.done_at_start = self.clock(), done
        self.progress.update(self.task, total=total, completed=done)

    def on_call(self, record: CallRecord) -> None:
        """One call's record: counted as calls (HTTP attempts) or a cache hit; a failure when
        it ended its job without an answer (``outcome`` other than ``ok``; a parse failure
        that is re-asked is not one yet)."""
        if record.cached:
            self.hits += 1
        else:
            self.calls += record.attempts
            self.tokens += record.usage.prompt_tokens + record.usage.completion_tokens
        if record.outcome not in (None, "ok"):
            self.failures += 1
        self.progress.refresh()
        if self.plain is not None:
            self.plain.tick()

    def on_item(self, _item: object) -> None:
        self.progress.advance(self.task)
        if self.plain is not None:
            self.plain.tick()

    def plain_text(self) -> str:
        """The plain progress line (off a terminal): ``judging: 120/300 items, 240 calls
        (14.2 calls/s), 2 failed, 12 cached, ETA 0:00:07``; ``took`` when every item is
        done."""
        task = self.progress.tasks[0]
        done, total = int(task.completed), task.total
        elapsed = max(self.clock() - self.started, 0.0)
        rate = self.calls / elapsed if elapsed > 0 else 0.0
        session = done - self.done_at_start
        left = None if total is None or session <= 0 else (total - done) * elapsed / session
        items = f"{done}/{total:.0f} items" if total is not None else f"{done} items"
        when = (f"took {clock_text(elapsed)}" if total is not None and done >= total
                else f"ETA {clock_text(left)}")
        return (f"{self.label}: {items}, {self.calls:,} calls ({rate:.1f} calls/s), "
                f"{self.failures} failed, {self.hits:,} cached, {when}")

    def on_batch(self, event: BatchEvent) -> None:
        """A batch changed state: one line when its state word changes (printed whether or
        not the progress line is drawn), and the line counts the batches in flight."""
        before = self.batches.get(event.batch)
        self.batches[event.batch] = event
        if before is None or before.state != event.state:
            ids = f" ({event.batch_id})" if event.batch_id else ""
            failed = f", {event.failed:,} not answered" if event.failed else ""
            self._say(f"batch {event.batch}{ids}: {event.state}, {event.done:,}/"
                      f"{event.total:,} requests ended{failed}")
        self.progress.refresh()

    def _say(self, text: str) -> None:
        from rich.markup import escape

        from ._console import err_console

        target = self.progress.console if not self.progress.disable else err_console
        target.print(escape(text), highlight=False, soft_wrap=True)

    def line(self, completed: float, total: float | None, width: int) -> RenderableType:
        """The line at ``width`` columns: label, bar when it fits, then the fields."""
        elapsed = max(self.clock() - self.started, 0.0)
        done = int(completed)
        rate = self.calls / elapsed if elapsed > 0 else 0.0
        items = f"{done}/{total:.0f} items" if total is not None else f"{done} items"
        session = done - self.done_at_start
        left = None if total is None or session <= 0 else (total - done) * elapsed / session
        finished = total is not None and done >= total
        when = f"took {clock_text(elapsed)}" if finished else f"ETA {clock_text(left)}"
        fields = [items, f"{rate:.1f} calls/s", f"{self.failures} failed", when]
        waiting = sum(1 for e in self.batches.values() if e.state not in BATCH_ENDED)
        if waiting:
            fields.insert(1, f"{waiting} batch{'es' if waiting > 1 else ''} in flight")
        extras = [f"{self.hits} cached", f"{self.tokens:,} tokens"]
        text = "  ".join(fields)
        # the spaces around the bar, and the last column left free (a terminal that wraps
        # there would scroll the line)
        room = width - len(self.label) - len(text) - 4
        for extra in extras:  # a wide terminal shows more, a full-width bar still fitting
            if room - len(extra) - 2 < MAX_BAR:
                break
            text, room = f"{text}  {extra}", room - len(extra) - 2
        grid = Table.grid(padding=(0, 0, 0, 1))  # one space before every column but the first
        grid.add_column(no_wrap=True, min_width=len(self.label))
        cells: list[RenderableType] = [Text(self.label, style="bold")]
        if room >= MIN_BAR:  # the bar goes first when the terminal is narrow
            grid.add_column(width=min(room, MAX_BAR), no_wrap=True)
            cells.append(ProgressBar(total=total, completed=completed,
                                     width=min(room, MAX_BAR)))
        grid.add_column(no_wrap=room >= 0)  # wraps between fields when narrow, never cut
        cells.append(Text(" " + text))
        grid.add_row(*cells)
        return grid

    def hooks(self) -> RunHooks:
        """The engine's progress callbacks, drawing this line."""
        from ..run import RunHooks

        return RunHooks(on_start=self.on_start, on_call=self.on_call, on_item=self.on_item,
                        on_batch=self.on_batch)

    def __enter__(self) -> BenchProgress:
        from ..runner import tune_gc

        tune_gc()  # the command's imports are done and a long run starts: freeze them
        self.started = self.clock()
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()
        if self.plain is not None:
            self.plain.close()


def with_progress(run: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """``run(*args, **kwargs)`` fed the hooks of a progress line (:class:`BenchProgress`, as
    ``hooks=``), drawn while it runs: its result."""
    with BenchProgress() as progress:
        return run(*args, **kwargs, hooks=progress.hooks())
