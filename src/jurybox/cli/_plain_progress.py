"""Progress without a terminal: a plain line at a bounded rate (CI logs, ``nohup``, a pipe).

Off a terminal the progress bar is not drawn (it would fill a log with redraws), and a long
run used to print nothing until it ended. As pip and tqdm do off a terminal, the run then
writes a plain ASCII line to stderr at most once every ``JURYBOX_PROGRESS_INTERVAL`` seconds
(default :data:`DEFAULT_INTERVAL_S`; ``0`` writes none), when an item or a call ends::

    judging: 120/300 items, 240 calls (14.2 calls/s), 2 failed, 12 cached, ETA 0:00:07

and, when it wrote any, one last line when the run ends. No line is written before the first
interval has passed, so a run shorter than that prints exactly what it did before.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from typing import TextIO

__all__ = ["DEFAULT_INTERVAL_S", "PlainProgress", "progress_interval"]

#: Seconds between two plain progress lines unless ``JURYBOX_PROGRESS_INTERVAL`` says.
DEFAULT_INTERVAL_S = 10.0
#: The longest interval accepted, seconds (a day).
MAX_INTERVAL_S = 86_400.0
#: The shortest interval accepted but 0, seconds: at most two lines a second, whatever the rate
#: of calls (a log is read by people; 0.001 would write a line per call).
MIN_INTERVAL_S = 0.5


def progress_interval() -> float:
    """``JURYBOX_PROGRESS_INTERVAL``: seconds between plain progress lines off a terminal
    (0: none, or a number from 0.5 to 86400; unset or empty: :data:`DEFAULT_INTERVAL_S`).

    Raises:
        ConfigError: any other value (the message names the variable and what it takes).
    """
    from ..errors import ConfigError

    value = os.environ.get("JURYBOX_PROGRESS_INTERVAL", "")
    if not value.strip():
        return DEFAULT_INTERVAL_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (seconds == 0 or MIN_INTERVAL_S <= seconds <= MAX_INTERVAL_S):  # NaN fails too
        raise ConfigError(f"JURYBOX_PROGRESS_INTERVAL must be a number of seconds from "
                          f"{MIN_INTERVAL_S} to {MAX_INTERVAL_S:.0f}, or 0 for no progress lines "
                          f"off a terminal, got {value!r}")
    return seconds


class PlainProgress:
    """Plain progress lines at most once per ``interval`` seconds.

    Args:
        text: the line's text now (the owner's counts).
        interval: seconds, > 0.
        clock: seconds, monotonic (the owner's).
        stream: where lines go (default: stderr at the time of writing).
    """

    def __init__(self, text: Callable[[], str], *, interval: float,
                 clock: Callable[[], float], stream: TextIO | None = None) -> None:
        if not interval > 0:
            raise ValueError(f"interval must be > 0 seconds, got {interval!r}")
        self.text, self.interval, self.clock, self.stream = text, interval, clock, stream
        self.last = clock()
        self.lines = 0

    def tick(self) -> None:
        """Write a line if ``interval`` has passed since the start or the last line."""
        now = self.clock()
        if now - self.last >= self.interval:
            self.last = now
            self._write()

    def close(self) -> None:
        """The last line, when any line was written (a short run stays as quiet as before)."""
        if self.lines:
            self._write()

    def _write(self) -> None:
        stream = self.stream or sys.stderr
        print(self.text(), file=stream, flush=True)
        self.lines += 1
