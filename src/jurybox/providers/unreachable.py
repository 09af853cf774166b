"""Why an endpoint could not be reached, in words a user acts on (not a client library's
exception class): what ``cannot reach <url> (...)`` says."""

from __future__ import annotations

import asyncio
import socket
import ssl

from .urls import redact_text

__all__ = ["why_unreachable"]


def why_unreachable(exc: BaseException) -> str:
    """A short reason for a failed connection: the first cause found along ``exc``'s chain
    (``os_error`` of aiohttp's connector errors, ``__cause__``, ``__context__``), with any
    URL in it redacted.

    >>> why_unreachable(ConnectionRefusedError(111, "Connection refused"))
    'connection refused: nothing listens on that port'
    >>> why_unreachable(asyncio.TimeoutError())
    'no answer within the time limit'
    >>> why_unreachable(ValueError("bad http://u:p@h/x"))
    'bad http://***@h/x'
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return "connection refused: nothing listens on that port"
        if isinstance(current, socket.gaierror):
            return "the host name was not found"
        if isinstance(current, ssl.SSLError):
            return f"the TLS handshake failed ({redact_text(str(current))[:200]})"
        if isinstance(current, (asyncio.TimeoutError, TimeoutError, socket.timeout)):
            return "no answer within the time limit"
        if isinstance(current, ConnectionResetError):
            return "the server reset the connection"
        if type(current).__name__ == "ServerDisconnectedError":
            return "the server closed the connection without answering"
        current = (getattr(current, "os_error", None) or current.__cause__
                   or current.__context__)
    text = redact_text(str(exc)).strip()
    return text[:300] if text else "the connection failed"
