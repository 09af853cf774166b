"""Connecting to Ray: the one place that imports ``ray`` for the executor.

:func:`require_ray` turns a missing Ray into the one-line ConfigError with the install line;
:func:`connect` joins the cluster at ``--ray-address`` or starts a local Ray, after checking
in a few seconds that something listens at the address (``ray.init`` itself may wait much
longer for a head node that is not there).
"""

from __future__ import annotations

import logging
import os
import socket
from types import ModuleType

from ..errors import ConfigError

__all__ = ["CONNECT_TIMEOUT_S", "INSTALL_LINE", "address_problem", "connect", "require_ray"]

#: What installs the Ray backend.
INSTALL_LINE = "pip install 'jurybox[ray]'"
#: How long the reachability check of ``--ray-address`` waits, seconds.
CONNECT_TIMEOUT_S = 3.0
#: Default ports: the head node's GCS (``host:port``) and the Ray Client (``ray://``).
GCS_PORT, CLIENT_PORT = 6379, 10001

log = logging.getLogger(__name__)


def require_ray() -> ModuleType:
    """The ``ray`` module.

    Raises:
        ConfigError: Ray is not installed (the message gives :data:`INSTALL_LINE`).
    """
    try:
        import ray
    except ImportError:
        raise ConfigError(f"--executor ray needs Ray, which is not installed here: "
                          f"{INSTALL_LINE} (or use --executor local)") from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """The (host, port) a Ray address names; None for ``auto`` and ``local``.

    >>> _host_port("10.0.0.5:6379"), _host_port("ray://head:10001"), _host_port("head")
    (('10.0.0.5', 6379), ('head', 10001), ('head', 6379))
    >>> _host_port("auto") is None
    True
    """
    if address in ("auto", "local"):
        return None
    client = address.startswith("ray://")
    rest = address[len("ray://"):] if client else address
    host, sep, port = rest.rpartition(":")
    if not sep:
        host, port = rest, ""
    host = host.strip("[]")
    if not host:
        raise ConfigError(f"--ray-address {address!r} names no host; give host:port (the head "
                          f"node, e.g. 10.0.0.5:6379) or ray://host:10001")
    try:
        number = int(port) if port else (CLIENT_PORT if client else GCS_PORT)
    except ValueError:
        raise ConfigError(f"--ray-address {address!r}: the port {port!r} is not a number"
                          ) from None
    if not 0 < number < 65536:
        raise ConfigError(f"--ray-address {address!r}: the port {number} is out of range")
    return host, number


def address_problem(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> str | None:
    """Why nothing can be reached at a Ray address within ``timeout_s`` (None: something
    listens there, or the address is ``auto``).

    Raises:
        ConfigError: an address that names no host or a bad port.
    """
    where = _host_port(address)
    if where is None:
        return None
    try:
        with socket.create_connection(where, timeout=timeout_s):
            return None
    except socket.timeout:
        return f"no answer from {where[0]}:{where[1]} within {timeout_s:g} s"
    except OSError as exc:
        return f"cannot connect to {where[0]}:{where[1]} ({exc.strerror or exc})"


#: Ray's switch for clusters across machines; off, a Ray started here binds to 127.0.0.1.
LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def loopback_ray() -> None:
    """Make a Ray started by this process listen on 127.0.0.1 only (as on macOS and Windows),
    not on the machine's network address: a local Ray serves this process alone, and its
    ports are then not open to the network. Read by Ray when it is first imported, so set
    before that; a value the user set is kept."""
    os.environ.setdefault(LOOPBACK_SWITCH, "0")


def connect(address: str | None, *, num_cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address`` (``host:port``, ``ray://host:port``, ``auto``), or
    start a local Ray (``num_cpus``, default all of this machine's; no dashboard) when
    ``address`` is None. When Ray is already initialized in this process (a notebook's own
    ``ray.init``, a test session's) that connection is used, after the same check of
    ``address``.

    Raises:
        ConfigError: Ray is not installed; nothing listens at ``address``; ``ray.init``
            fails to connect (one line naming the address).
    """
    if address is not None and (problem := address_problem(address)):  # before Ray's import
        raise ConfigError(f"--ray-address {address}: {problem}; is the cluster up (ray start "
                          f"--head)? give the head node's address (host:6379) or "
                          f"ray://host:10001, or leave --ray-address unset for a local Ray")
    if address is None:
        loopback_ray()
    ray = require_ray()
    if ray.is_initialized():
        return
    quiet = {"include_dashboard": False, "logging_level": logging.WARNING}
    try:
        if address is None:
            ray.init(num_cpus=num_cpus or os.cpu_count() or 1, **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, TimeoutError, ValueError) as exc:
        where = f"--ray-address {address}" if address else "a local Ray"
        raise ConfigError(f"{where}: Ray could not start or connect: "
                          f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                          ) from None
