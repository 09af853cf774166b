"""Connecting to Ray: the one place that imports ``ray`` for the executor.

:func:`require_ray` turns a missing Ray into the one-line ConfigError with the install line;
:func:`connect` joins the cluster at ``--ray-address`` (or ``RAY_ADDRESS``) or starts a local
Ray, after checking in a few seconds that a gRPC server (a Ray head node's GCS, or the Ray
Client server) answers at the address: ``ray.init`` itself waits about 14 minutes for a head
node that is not there, or for a port where another kind of server listens.
"""

from __future__ import annotations

import logging
import os
import socket
from types import ModuleType

from ..errors import ConfigError

__all__ = ["CONNECT_TIMEOUT_S", "INSTALL_LINE", "LOCAL_ACTORS_PER_CORE", "address_problem",
           "cluster_address", "connect", "require_ray"]

#: What installs the Ray backend.
INSTALL_LINE = "pip install 'jurybox[ray]'"
#: How long the reachability check of ``--ray-address`` waits, seconds.
CONNECT_TIMEOUT_S = 3.0
#: Default ports: the head node's GCS (``host:port``) and the Ray Client (``ray://``).
GCS_PORT, CLIENT_PORT = 6379, 10001
#: Ray actors a local Ray started by jurybox takes per core of this machine: an actor is a
#: process of about 150 MB that makes many calls at once (its ``max_concurrency``), so more
#: actors than this on one machine cost memory and start-up time and add no throughput.
LOCAL_ACTORS_PER_CORE = 4
#: HTTP/2's client connection preface and an empty SETTINGS frame (RFC 9113, 3.4 and 6.5):
#: a gRPC server answers them with its own SETTINGS frame.
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_H2_SETTINGS = 0x04

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


def _speaks_grpc(sock: socket.socket, timeout_s: float) -> bool | None:
    """Whether the server on ``sock`` answers HTTP/2's preface with a SETTINGS frame, as a
    gRPC server (Ray's GCS, the Ray Client server) does (None: no answer in ``timeout_s``)."""
    sock.settimeout(timeout_s)
    try:
        sock.sendall(_H2_PREFACE)
        head = b""
        while len(head) < 9:  # a frame header: length (3), type (1), flags (1), stream (4)
            chunk = sock.recv(9 - len(head))
            if not chunk:
                return False
            head += chunk
    except socket.timeout:
        return None
    except OSError:
        return False
    return head[3] == _H2_SETTINGS and head[5:9] == b"\x00\x00\x00\x00"


def _tls() -> bool:
    """Ray's TLS is on (``RAY_USE_TLS``): its gRPC servers expect a TLS handshake first."""
    return os.environ.get("RAY_USE_TLS", "0").strip().lower() in ("1", "true")


def address_problem(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> str | None:
    """Why no Ray can be reached at a Ray address within ``timeout_s`` (None: a gRPC server
    answers there, or the address is ``auto``). Nothing listening, no answer, and a server
    of another kind (an HTTP server, Redis) are each a problem; with Ray's TLS on
    (``RAY_USE_TLS=1``) only the connection is checked.

    Raises:
        ConfigError: an address that names no host or a bad port.
    """
    where = _host_port(address)
    if where is None:
        return None
    host_port = f"{where[0]}:{where[1]}"
    try:
        with socket.create_connection(where, timeout=timeout_s) as sock:
            if _tls():
                return None
            grpc = _speaks_grpc(sock, timeout_s)
    except socket.timeout:
        return f"no answer from {host_port} within {timeout_s:g} s"
    except OSError as exc:
        return f"cannot connect to {host_port} ({exc.strerror or exc})"
    if grpc is None:
        return (f"{host_port} accepts connections but says nothing within {timeout_s:g} s; "
                f"it is not a Ray head node")
    if not grpc:
        return (f"something listens at {host_port} but it is not a Ray head node (it does "
                f"not answer as a gRPC server: another service's port?)")
    return None


#: Ray's switch for clusters across machines; off, a Ray started here binds to 127.0.0.1.
LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def loopback_ray() -> None:
    """Make a Ray started by this process listen on 127.0.0.1 only (as on macOS and Windows),
    not on the machine's network address: a local Ray serves this process alone, and its
    ports are then not open to the network. Read by Ray when it is first imported, so set
    before that; a value the user set is kept."""
    os.environ.setdefault(LOOPBACK_SWITCH, "0")


class _TokenNotice(logging.Filter):
    """Drops Ray's warning that a cluster it starts has token authentication on (Ray's
    default: a local Ray that jurybox starts keeps it, and need not say so on every run)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Token authentication is enabled")


#: Ray's logger that warns when it turns token authentication on for a cluster it starts.
_TOKEN_LOGGER = "ray._private.authentication.authentication_token_setup"


def cluster_address(address: str | None) -> str | None:
    """The Ray cluster a run joins: ``address`` (``--ray-address``), else ``RAY_ADDRESS`` if
    it is set (as in a Ray job); None (or ``local``, Ray's word for it) to start a local Ray.
    Checked first (:func:`address_problem`, a few seconds at most, without importing Ray).

    Raises:
        ConfigError: no Ray answers at the address (one line naming it and where it came
            from), or it names no host or a bad port.
    """
    flag = "--ray-address"
    if address is None and os.environ.get("RAY_ADDRESS", "").strip():
        address, flag = os.environ["RAY_ADDRESS"].strip(), "RAY_ADDRESS"
    if address is None or address == "local":
        return None
    if problem := address_problem(address):
        raise ConfigError(f"{flag} {address}: {problem}; is the cluster up (ray start "
                          f"--head)? give the head node's address (host:6379) or "
                          f"ray://host:10001, or leave {flag} unset for a local Ray")
    return address


def connect(address: str | None, *, num_cpus: int | None = None,
            actors: int | None = None) -> None:
    """Join the Ray cluster :func:`cluster_address` names for ``address``, or start a local
    Ray (``num_cpus``, default all of this machine's; no dashboard; token authentication as
    Ray's default, without its notice). When Ray is already initialized in this process (a
    notebook's own ``ray.init``, a test session's) that connection is used, after the same
    check of ``address``.

    Args:
        address: the cluster's address (``host:port``, ``ray://host:port``, ``auto``,
            ``local``), or None.
        num_cpus: CPUs of a local Ray (default: this machine's cores).
        actors: the Ray actors the run will start; a local Ray that this call starts takes at
            most :data:`LOCAL_ACTORS_PER_CORE` per core (None: not checked).

    Raises:
        ConfigError: Ray is not installed; no Ray answers at the address; too many actors
            for a local Ray; ``ray.init`` fails to start or connect (one line naming the
            address).
    """
    given = address
    address = cluster_address(address)
    flag = "--ray-address" if given is not None else "RAY_ADDRESS"
    if address is None:
        loopback_ray()
    ray = require_ray()
    if ray.is_initialized():
        return
    cores = num_cpus or os.cpu_count() or 1
    if address is None and actors is not None and actors > LOCAL_ACTORS_PER_CORE * cores:
        raise ConfigError(
            f"--ray-actors {actors} is too many for a local Ray on {cores} core"
            f"{'s' if cores != 1 else ''}: at most {LOCAL_ACTORS_PER_CORE * cores} "
            f"({LOCAL_ACTORS_PER_CORE} a core; each actor is a process of about 150 MB and "
            f"makes --concurrency calls at once); give --ray-address to run more on a cluster")
    quiet = {"include_dashboard": False, "logging_level": logging.WARNING}
    notice = _TokenNotice()
    token_log = logging.getLogger(_TOKEN_LOGGER)
    token_log.addFilter(notice)
    try:
        if address is None:  # "local": a new Ray, not the last `ray start` cluster here
            ray.init(address="local", num_cpus=cores, **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, TimeoutError, ValueError, RuntimeError) as exc:
        where = f"{flag} {address}" if address else "a local Ray"
        if address == "auto" and isinstance(exc, ConnectionError):
            raise ConfigError(f"{where}: no Ray cluster is running on this machine; start "
                              f"one (ray start --head), give the head node's address "
                              f"(host:6379), or leave {flag} unset for a local Ray"
                              ) from None
        raise ConfigError(f"{where}: Ray could not start or connect: "
                          f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                          ) from None
    finally:
        token_log.removeFilter(notice)
