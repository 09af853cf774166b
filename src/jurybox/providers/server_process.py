"""A server process on 127.0.0.1 started by jurybox: a free port, whether the process is the
one listening on it, how it ended (:func:`describe_exit`), and its death with its parent (no
orphaned server).
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
from pathlib import Path

from ..errors import ConfigError

__all__ = ["check_port", "describe_exit", "die_with_parent", "free_port", "listens_on"]

_PR_SET_PDEATHSIG = 1
#: What a signal that ends a server process usually means.
_SIGNAL_MEANING = {
    signal.SIGILL: "illegal instruction",
    signal.SIGSEGV: "segmentation fault",
    signal.SIGBUS: "bus error",
    signal.SIGABRT: "aborted",
    signal.SIGFPE: "arithmetic fault",
    signal.SIGKILL: "killed: by the out-of-memory killer or from outside",
    signal.SIGTERM: "terminated from outside",
}


def describe_exit(returncode: int) -> str:
    """How a process ended, from ``Popen.returncode``: ``"died with SIGILL (illegal
    instruction)"`` for a signal (a negative code), ``"exited with code 1"`` otherwise.

    >>> describe_exit(-4)
    'died with SIGILL (illegal instruction)'
    >>> describe_exit(1)
    'exited with code 1'
    """
    if returncode >= 0:
        return f"exited with code {returncode}"
    try:
        sig = signal.Signals(-returncode)
    except ValueError:
        return f"died with signal {-returncode}"
    meaning = _SIGNAL_MEANING.get(sig)
    return f"died with {sig.name}" + (f" ({meaning})" if meaning else "")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def check_port(port: int) -> None:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            raise ConfigError(f"port {port} on 127.0.0.1 is in use; choose another --port"
                              ) from None


def listens_on(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds the listening TCP socket on 127.0.0.1:``port`` (Linux:
    the socket's inode in ``/proc/net/tcp`` among the process's open files); None where
    ``/proc`` cannot tell. A free port is chosen before the server binds it, so another
    process may take it meanwhile: its answers must never pass for the local judge's."""
    try:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    inodes = {f[9] for f in (line.split() for line in lines)
              if len(f) > 9 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port}
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return None
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            return True
    return False


def die_with_parent() -> None:  # runs in the child before exec (Linux): no orphaned server
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass

