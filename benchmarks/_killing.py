"""Shared by the kill benchmarks: start a command, SIGKILL it at a chosen moment."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable


def kill_when(args: list[str], env: dict[str, str], ready: Callable[[], bool],
              jitter: float) -> bool:
    """Start ``args`` and SIGKILL it ``jitter`` s after ``ready()`` first holds (polled
    every 5 ms); False when the command finished first."""
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    while proc.poll() is None and not ready():
        time.sleep(0.005)
    time.sleep(jitter)
    if proc.poll() is not None:
        return False
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return True
