"""Secrets in endpoint URLs: used for the request, never written or shown.

Two common ways to put a secret in a base URL:

- ``http://user:secret@host/v1`` (a server behind basic auth): jurybox sends the credentials
  as HTTP basic auth and shows the URL as ``http://***@host/v1``;
- ``http://host/v1?api_key=secret`` (gateways that take a key, or an ``api-version``, in the
  query string): the query is sent with every request, after the endpoint's path
  (``/v1/models?api_key=secret``, ``/v1/chat/completions?api_key=secret``), and shown with
  every value hidden, ``http://host/v1?api_key=***``. A fragment (``#...``) is never sent
  by HTTP clients; it is dropped from requests and shown as ``#***``.

Shown forms are what run.json, the cache identity, the lock file, reports and error messages
hold.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from .read import repair_text

__all__ = ["EndpointURL", "base_url_problem", "redact_text", "redact_url", "split_credentials"]

#: A URL inside free text: a scheme, then anything up to white space or a quote.
_URL_IN_TEXT = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>`]+")
_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#]*@")
#: ``user:password@host`` written without a scheme.
_BARE_USERINFO = re.compile(r"^(?P<lead>\s*)[^/?#:\s]*:[^/?#]*@")
#: ``user:password@`` in free text with no scheme before it (a command line's argument).
_BARE_USERINFO_IN_TEXT = re.compile(r"(?<![^\s'\"=])[^\s'\"=/?#@:]+:[^\s'\"/?#@]*@(?=[\w\[])")
#: A comma then another URL: several base URLs given as one.
_SEVERAL = re.compile(r",\s*[a-zA-Z][a-zA-Z0-9+.-]*://")
#: Path parameters (``/v1;key=secret``): shown hidden, as a query is.
_PATH_PARAMS = re.compile(r";[^/?#]*")
HIDDEN = "***"


class EndpointURL(NamedTuple):
    """A base URL split for use.

    Attributes:
        url: scheme, host and path only (no credentials, query or fragment): what endpoint
            paths are joined to.
        shown: the URL as it may be shown or recorded (credentials, query values and
            fragment replaced by ``***``).
        username, password: the decoded credentials, or None.
        query: the query string to send with every request (``""``: none).
    """

    url: str
    shown: str
    username: str | None
    password: str | None
    query: str = ""

    def join(self, path: str) -> str:
        """The URL of an endpoint path, the query after it.

        >>> split_credentials("http://h/v1?api_key=X").join("/models")
        'http://h/v1/models?api_key=X'
        """
        return f"{self.url}{path}" + (f"?{self.query}" if self.query else "")

    def shown_join(self, path: str) -> str:
        """:meth:`join` as it may be shown (``http://h/v1/models?api_key=***``)."""
        return redact_url(self.join(path)) or ""

    def query_params(self) -> dict[str, str]:
        """The query as parameters (for clients that take them apart from the URL: the SDKs'
        ``default_query``); a repeated name keeps its last value."""
        return dict(parse_qsl(self.query, keep_blank_values=True))


def split_credentials(url: str) -> EndpointURL:
    """Split ``user:password@``, the query and the fragment off a URL.

    >>> url = split_credentials("http://bob:s%40cret@host:8000/v1")
    >>> url.url, url.shown, url.username, url.password
    ('http://host:8000/v1', 'http://***@host:8000/v1', 'bob', 's@cret')
    >>> url = split_credentials("http://host/v1?api_key=SECRET#frag")
    >>> url.url, url.shown, url.query
    ('http://host/v1', 'http://host/v1?api_key=***#***', 'api_key=SECRET')
    """
    parts = urlsplit(url)
    username = password = None
    host = parts.netloc
    if "@" in parts.netloc:
        userinfo, host = parts.netloc.rsplit("@", 1)
        user, _, secret = userinfo.partition(":")
        username, password = unquote(user), unquote(secret)
    parts = parts._replace(path=parts.path.rstrip("/"))  # endpoint paths are joined with "/"
    clean = urlunsplit(parts._replace(netloc=host, query="", fragment=""))
    return EndpointURL(clean, _redact_one(urlunsplit(parts)), username, password, parts.query)


def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an endpoint's base URL (None when it can): the message names the
    URL only in its shown form, so a secret in it is never printed.

    >>> base_url_problem("http://localhost:8000/v1") is None
    True
    >>> base_url_problem("127.0.0.1:8000")
    'has no scheme: did you mean http://127.0.0.1:8000/v1?'
    >>> base_url_problem("ftp://h/v1")
    "has the scheme 'ftp'; jurybox speaks http:// and https://"
    >>> base_url_problem("http://[u:SECRET]@h/v1")
    'is not a valid URL (http://***@h/v1): check the host and port'
    >>> base_url_problem("http://a/v1,http://u:SECRET@b/v1")[:56]
    'holds 2 URLs separated by commas (http://a/v1,http://***'
    """
    if url != url.strip():
        return f"has leading or trailing white space ({_redact_one(url.strip())!r})"
    several = len(_SEVERAL.findall(url))
    if several:
        return (f"holds {several + 1} URLs separated by commas ({redact_text(url)}): one "
                f"endpoint takes one base URL (the replicas of one judge: --base-url once per "
                f"replica, --endpoints FILE, or base_url=[...] in Python)")
    if "://" not in url:
        shown = _redact_one(url)
        guess = shown if "/" in shown else f"{shown}/v1"
        return f"has no scheme: did you mean http://{guess}?"
    scheme = url.split("://", 1)[0]
    if scheme.lower() not in ("http", "https"):
        return (f"has the scheme {scheme[:20]!r}; jurybox speaks http:// and https://"
                if re.fullmatch(r"[a-zA-Z][a-zA-Z0-9+.-]*", scheme) else
                "is not a valid URL: it must start with http:// or https://")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number 0-65535
    except ValueError:
        return f"is not a valid URL ({_redact_one(url)}): check the host and port"
    if not parts.hostname:
        return f"has no host ({_redact_one(url)})"
    return None


def redact_url(url: str | None) -> str | None:
    """``url`` with any ``user:password@`` replaced by ``***@`` (with or without a scheme,
    after leading white space too), every query value and path parameter (``;key=...``) by
    ``***`` and a fragment by ``#***`` (None stays None).

    >>> redact_url("https://u:p@h/v1?api_key=K&v=2#x")
    'https://***@h/v1?api_key=***&v=***#***'
    >>> redact_url("  http://u:p@h/v1;key=K"), redact_url("u:p@h:80/v1")
    ('  http://***@h/v1;***', '***@h:80/v1')
    """
    return None if url is None else _redact_one(url)


def redact_text(text: str) -> str:
    """Every URL in ``text`` redacted as :func:`redact_url` does (error messages, the command
    line kept in run.json and the lock file), and any character UTF-8 cannot encode (an
    argument's byte that was not UTF-8, which Python carries as a lone surrogate) as U+FFFD,
    so the text can always be written."""
    text = repair_text(text)[0]
    if "@" in text:
        text = _BARE_USERINFO_IN_TEXT.sub(f"{HIDDEN}@", text)
    if "://" not in text:
        return text
    def one(match: re.Match[str]) -> str:
        url = match.group(0)
        core = url.rstrip(").,;:!]}")  # the sentence's punctuation after a URL stays shown
        return _redact_one(core) + url[len(core):]

    return _URL_IN_TEXT.sub(one, text)


def _redact_one(url: str) -> str:
    """One URL redacted, by text alone (so that even a URL ``urlsplit`` refuses, such as a
    broken IPv6 host, is shown without its secrets)."""
    if "://" in url:
        shown = _USERINFO.sub(rf"\g<scheme>{HIDDEN}@", url)  # "a,b": both URLs
    else:
        shown = _BARE_USERINFO.sub(rf"\g<lead>{HIDDEN}@", url, count=1)
    rest, hash_, _fragment = shown.partition("#")
    base, question, query = rest.partition("?")
    base = _PATH_PARAMS.sub(f";{HIDDEN}", base)
    if question:
        base += "?" + "&".join(
            f"{name}={HIDDEN}" if sep else HIDDEN
            for name, sep, _ in (p.partition("=") for p in query.split("&")) if name or sep)
    return base + (f"#{HIDDEN}" if hash_ else "")
