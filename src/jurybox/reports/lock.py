"""One process, and one call, at a time in a run directory.

Two processes judging into one ``--out`` would both judge every unit and overwrite each
other's run.json. :class:`RunLock` takes an exclusive ``flock`` on ``RUN/lock`` for as long as
the run directory is open. A ``flock`` belongs to an open file, not to a process, so two calls
in one process (threads, or tasks on one event loop) that each open the lock are refused the
same way as two processes, with the same error (naming this process). The operating system
releases the lock when its process ends, however it ends (SIGKILL included), so a lock left by
a dead process is taken over without any check; the file's contents (pid, host, command, start
time) only name the holder in the error.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import IO

from ..errors import ConfigError
from ..providers.urls import redact_text

__all__ = ["RunDirBusyError", "RunLock"]


class RunDirBusyError(ConfigError):
    """Another process holds the run directory."""


class RunLock:
    """An exclusive lock on a run directory, held until :meth:`release`.

    Args:
        folder: the run directory (must exist).

    Raises:
        RunDirBusyError: another live process holds it, or another call in this process;
            the message names its pid, host, command (or "this process") and start time.
        OSError: the lock file cannot be created (the caller reports it).
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / "lock"
        fh: IO[str] = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = _describe(fh.read())
            fh.close()
            raise RunDirBusyError(
                f"{folder} is in use by {holder}; wait for it to finish, or use another "
                f"--out") from None
        except BaseException:
            fh.close()
            raise
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                             "command": redact_text(" ".join(sys.argv)),
                             "started": datetime.now(timezone.utc).isoformat()}) + "\n")
        fh.flush()
        self._fh: IO[str] | None = fh

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()

    def release(self) -> None:
        """Give the lock up (idempotent). The file stays: it only names the last holder."""
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def _describe(text: str) -> str:
    try:
        holder = json.loads(text)
        if holder["pid"] == os.getpid() and holder["host"] == socket.gethostname():
            return (f"process {holder['pid']} on {holder['host']} (this process: another call "
                    f"judging into it, since {holder['started']})")
        return (f"process {holder['pid']} on {holder['host']} ({holder['command']!r}, since "
                f"{holder['started']})")
    except (ValueError, KeyError, TypeError):
        return "another process"
