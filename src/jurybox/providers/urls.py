"""Credentials in endpoint URLs: used for the request, never written or shown.

``http://user:secret@host/v1`` is a common way to reach a server behind basic auth. jurybox
sends those credentials as HTTP basic auth and shows and records the URL as
``http://***@host/v1`` (run.json, cache identity, lock file, errors).
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["EndpointURL", "redact_text", "redact_url", "split_credentials"]

_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@?#]+@")


class EndpointURL(NamedTuple):
    """A base URL split for use: ``url`` without credentials (what requests go to),
    ``shown`` (credentials replaced by ``***``), and the decoded credentials or None."""

    url: str
    shown: str
    username: str | None
    password: str | None


def split_credentials(url: str) -> EndpointURL:
    """Split ``user:password@`` off a URL.

    >>> url = split_credentials("http://bob:s%40cret@host:8000/v1")
    >>> url.url, url.shown, url.username, url.password
    ('http://host:8000/v1', 'http://***@host:8000/v1', 'bob', 's@cret')
    """
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return EndpointURL(url, url, None, None)
    userinfo, host = parts.netloc.rsplit("@", 1)
    user, _, password = userinfo.partition(":")
    clean = urlunsplit(parts._replace(netloc=host))
    shown = urlunsplit(parts._replace(netloc=f"***@{host}"))
    return EndpointURL(clean, shown, unquote(user), unquote(password))


def redact_url(url: str | None) -> str | None:
    """``url`` with any ``user:password@`` replaced by ``***@`` (None stays None)."""
    return None if url is None else split_credentials(url).shown


def redact_text(text: str) -> str:
    """Every ``scheme://user:password@`` in ``text`` as ``scheme://***@`` (error messages,
    the command line kept in run.json)."""
    return _USERINFO.sub(r"\g<scheme>***@", text)
