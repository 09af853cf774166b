"""One process, and one call, at a time in a run directory.

Two processes judging into one ``--out`` would both judge every unit and overwrite each
other's run.json. :class:`RunLock` takes an exclusive ``flock`` for as long as the run
directory is open. The operating system releases it when its process ends, however it ends
(SIGKILL included), so a lock left by a dead process is taken over without any check. A
``flock`` belongs to an open file, not to a process, so two calls in one process (threads, or
tasks on one event loop) that each open the lock are refused the same way as two processes,
with the same error (naming this process).

What is locked is **the run directory itself** (opened ``O_RDONLY | O_DIRECTORY``), not a file
in it. A lock on a file can be lost from under its holder: delete ``RUN/lock`` while a run
holds it and the next process creates a new file (a new inode), locks that, finds the
holder's session ``running``, settles it as killed and judges every unit again beside it
(duplicate decisions, totals that no longer match calls.jsonl). A directory cannot be unlinked
while it holds the run's files, so whoever opens ``RUN`` by its name meets the holder's lock.
Re-checking a lock file's identity before every write would also catch the deletion, but only
after the second process had started writing, and at the cost of a ``stat`` per line.

Around that:

- ``RUN/lock`` is still written (pid, host, command, start time): it only names the holder in
  the busy error (a deleted one gives "another process"). It is locked too, so an older
  jurybox, which locks only that file, and this one still exclude each other.
- If the directory is removed outright (``rm -rf RUN``) and made anew, a second process gets
  the new one; :meth:`RunLock.check` (called before run.json or summary.json is written by
  name) sees that ``RUN`` is no longer the locked directory and refuses to write into
  another process's run.
- A file system that cannot ``flock`` a directory (some network mounts) falls back to the
  lock file alone, with a warning; :meth:`RunLock.check` then also refuses when the lock
  file was deleted or replaced.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import NamedTuple

from ..errors import ConfigError, RunWriteError
from ..providers.urls import redact_text

__all__ = ["LockHolder", "RunDirBusyError", "RunLock", "lock_holder"]

log = logging.getLogger(__name__)


class RunDirBusyError(ConfigError):
    """Another process (or another open :class:`RunLock` in this one) holds the run
    directory."""


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


class RunLock:
    """An exclusive lock on a run directory, held until :meth:`release`.

    Args:
        folder: the run directory (must exist).

    Raises:
        RunDirBusyError: another holder has it (another process, or another RunLock open on
            the same folder in this process: ``flock`` locks belong to open files); the
            message names the holder's pid, host, command and start time when ``RUN/lock``
            still says them.
        OSError: the folder cannot be opened or the lock file created (the caller reports
            it).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "lock"
        self._dir: int | None = None
        self._file: int | None = None
        self.directory_locked = True  # False: the fallback to the lock file alone
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._busy() from None
            except OSError as exc:
                if exc.errno not in (errno.EBADF, errno.EINVAL, errno.ENOLCK,
                                     errno.EOPNOTSUPP):
                    raise
                log.warning("%s: this file system cannot lock a directory (%s); locking %s "
                            "alone, so do not delete that file while a run holds it",
                            folder, exc.strerror, self.path)
                self.directory_locked = False
            self._dir = fd
            self._file = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # an older jurybox, which locks only the file
                raise self._busy() from None
            holder = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "command": redact_text(" ".join(sys.argv)),
                                 "started": datetime.now(timezone.utc).isoformat()}) + "\n"
            os.ftruncate(self._file, 0)
            os.pwrite(self._file, holder.encode("utf-8"), 0)
        except BaseException:
            if self._dir is None:  # not yet handed to self
                os.close(fd)
            self._close()
            raise

    def _busy(self) -> RunDirBusyError:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")[:10_000]
        except OSError:
            text = ""
        return RunDirBusyError(f"{self.folder} is in use by {_describe(text)}; wait for it to "
                               f"finish, or use another --out")

    def check(self) -> None:
        """Refuse to write by name into a run directory that is no longer the locked one.

        Raises:
            RunWriteError: ``RUN`` was removed (or replaced by another directory) since it
                was locked, or, on the lock-file fallback, ``RUN/lock`` was deleted or
                replaced; a second process may be running there.
        """
        if self._dir is None:
            return
        try:
            same = _identity(os.stat(self.folder)) == _identity(os.fstat(self._dir))
            if same and not self.directory_locked and self._file is not None:
                same = _identity(os.stat(self.path)) == _identity(os.fstat(self._file))
        except OSError:
            same = False
        if not same:
            what = "the run directory" if self.directory_locked else "the run directory's lock"
            raise RunWriteError(f"{what} {str(self.folder)!r} was removed or replaced while "
                                f"this run held it; stopped without writing into it (another "
                                f"process may be running there)")

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()

    def release(self) -> None:
        """Give the lock up (idempotent). The file stays: it only names the last holder."""
        self._close()

    def __del__(self) -> None:  # dropped unreleased: give it up as a closed file would
        self._close()

    def _close(self) -> None:
        for name in ("_file", "_dir"):
            fd = getattr(self, name, None)
            if fd is not None:
                setattr(self, name, None)
                os.close(fd)  # closing the last descriptor releases its flock


def _describe(text: str) -> str:
    try:
        holder = json.loads(text)
        if holder["pid"] == os.getpid() and holder["host"] == socket.gethostname():
            return (f"process {holder['pid']} on {holder['host']} (this process: another call "
                    f"judging into it, since {holder['started']})")
        return (f"process {holder['pid']} on {holder['host']} ({holder['command']!r}, since "
                f"{holder['started']})")
    except (ValueError, KeyError, TypeError, RecursionError):  # a garbage or hostile file
        return "another process"


class LockHolder(NamedTuple):
    """The process ``RUN/lock`` names: the one holding the run directory, or the last one
    that did (the file stays after a release)."""

    pid: int
    host: str
    started: str

    def alive(self) -> bool | None:
        """True: a process with that pid runs on this host; False: none does (the holder
        ended); None: it ran on another host, so this one cannot tell."""
        if self.host != socket.gethostname():
            return None
        try:
            os.kill(self.pid, 0)  # signal 0: only asks whether the process exists
        except (ProcessLookupError, OverflowError, ValueError):  # none, or no possible pid
            return False
        except OSError:  # it exists, under another user (EPERM)
            return True
        return True


def lock_holder(folder: str | Path) -> LockHolder | None:
    """Who ``folder/lock`` names (read without locking: the first 10 KB), or None when it is
    absent or not what jurybox writes."""
    try:
        with open(Path(folder) / "lock", encoding="utf-8", errors="replace") as fh:
            holder = json.loads(fh.read(10_000))
        pid = holder["pid"]
        if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
            return None
        return LockHolder(pid, str(holder["host"]), str(holder.get("started") or ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
