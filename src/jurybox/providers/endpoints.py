"""The replicas of an endpoint pool, as the user gives them: ``--base-url`` lists and the
endpoints file.

Several servers of one model (vLLM on each GPU, a few llama.cpp hosts) are given either on the
command line, ``--base-url http://gpu0:8000/v1,http://gpu1:8000/v1`` (or ``--base-url``
repeated), each replica weight 1; or in an endpoints file, YAML or JSON, a list of entries or
a mapping with an ``endpoints`` list::

    endpoints:
      - url: http://gpu0:8000/v1
        weight: 2               # twice the share of new items (a larger GPU)
        max_concurrency: 16     # its own cap on calls in flight (default: --concurrency)
      - url: https://gateway.example/v1
        key_env: GATEWAY_KEY    # the environment variable holding this replica's API key
      - http://gpu1:8000/v1     # a bare URL: weight 1, nothing else

Each entry: ``url`` (required; http:// or https://), ``weight`` (a finite number > 0,
default 1), ``max_concurrency`` (a whole number from 1 to
:data:`~jurybox.limits.MAX_CONCURRENCY`), ``key_env`` (an environment variable's name,
``[A-Za-z_][A-Za-z0-9_]*``; the key itself never goes in the file). A URL given twice (after
trimming, dropping a trailing ``/`` and the scheme's default port, lowercasing scheme and
host) is refused, as are unknown keys (with the closest key suggested), an empty list and a
file larger than :data:`MAX_ENDPOINTS_BYTES`. Every problem is one line naming the file, the
line, the entry and the field, checked before any model call; a URL in a message or in
run.json is shown with its secrets hidden (:func:`~jurybox.providers.urls.redact_url`).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import ConfigError, DataError, did_you_mean
from ..limits import MAX_CONCURRENCY
from .urls import base_url_problem, redact_text, redact_url

__all__ = ["MAX_ENDPOINTS_BYTES", "Replica", "load_endpoints", "parse_base_urls"]

#: An endpoints file larger than this, in bytes, is refused before it is parsed (it lists
#: servers, not data).
MAX_ENDPOINTS_BYTES = 1_000_000
#: The keys an endpoints file's entry takes, in the order messages list them.
_KEYS = ("url", "weight", "max_concurrency", "key_env")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Replica:
    """One server of an endpoint pool.

    Attributes:
        url: its base URL as given, trimmed (it may hold credentials or a key in its query:
            show :attr:`shown`, never this).
        weight: its relative share of new items, a finite number > 0 (stored as a float).
        max_concurrency: most of its calls in flight, a whole number from 1 to
            :data:`~jurybox.limits.MAX_CONCURRENCY`, or None (the run's ``--concurrency``).
        key_env: the environment variable holding its API key, or None (the provider's usual
            key applies).
        source: where it was given, for messages: ``'--base-url'`` or
            ``'endpoints.yaml:7'`` (the file as given and the entry's line), or None.

    Raises:
        ConfigError: a bad value when built directly (the loaders check first and say which
            line).
    """

    url: str
    weight: float = 1.0
    max_concurrency: int | None = None
    key_env: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        problem = (_url_problem(self.url) or _weight_problem(self.weight)
                   or _concurrency_problem(self.max_concurrency)
                   or _key_env_problem(self.key_env))
        if problem:
            raise ConfigError(f"{self.source or 'replica'}: {problem}")
        object.__setattr__(self, "url", self.url.strip())
        object.__setattr__(self, "weight", float(self.weight))

    def __repr__(self) -> str:  # the URL's secrets stay out of logs and tracebacks
        return (f"Replica(url={self.shown!r}, weight={self.weight!r}, "
                f"max_concurrency={self.max_concurrency!r}, key_env={self.key_env!r}, "
                f"source={self.source!r})")

    @property
    def shown(self) -> str:
        """The URL as it may be shown or recorded: credentials, query values and fragment
        replaced by ``***`` (``http://***@gpu0:8000/v1``)."""
        return redact_url(self.url) or ""

    def api_key(self) -> str | None:
        """This replica's API key: the value of ``$key_env``, or None when no ``key_env`` was
        given.

        Raises:
            ConfigError: ``key_env`` is given but the variable is unset or empty (naming
                where the replica was given and the variable).
        """
        if self.key_env is None:
            return None
        key = os.environ.get(self.key_env)
        if not key:
            raise ConfigError(
                f"{self.source or 'replica'}: the replica {self.shown} takes its API key from "
                f"${self.key_env} (key_env), which is {'empty' if key == '' else 'not set'}: "
                f"export {self.key_env}=<its API key>")
        return key

    def public(self) -> dict[str, Any]:
        """For run.json: ``{"url": shown, "weight", "max_concurrency", "key_env"}`` (the
        variable's name, never the key; None values kept, so every replica has all four)."""
        return {"url": self.shown, "weight": self.weight,
                "max_concurrency": self.max_concurrency, "key_env": self.key_env}


def parse_base_urls(values: str | Sequence[str] | None) -> list[Replica]:
    """The replicas of ``--base-url``, given once or several times, each value one URL or
    several separated by commas (``"http://a/v1,http://b/v1"``; blanks around a URL are
    trimmed). Each replica has weight 1 and source ``'--base-url'``; ``[]`` for None.

    Entries are numbered from 1 across all values, in order, in messages.

    Raises:
        ConfigError: an empty entry (``"a,,b"``, a trailing comma, an empty value), a URL
            :func:`~jurybox.providers.urls.base_url_problem` refuses, or one URL given twice
            (naming both entries); URLs are shown with their secrets hidden.
    """
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    entries = [(part.strip(), value) for value in values for part in value.split(",")]
    count = len(entries)
    replicas: list[Replica] = []
    seen: dict[str, int] = {}
    for number, (url, value) in enumerate(entries, 1):
        entry = "--base-url" if count == 1 else f"--base-url entry {number} of {count}"
        if not url:
            if count == 1:
                raise ConfigError("--base-url is empty (is JURYBOX_BASE_URL set to ''?): give "
                                  "the endpoint's URL, e.g. http://localhost:8000/v1")
            raise ConfigError(f"{entry} is empty (in {_shown_list(value)!r}): separate base "
                              f"URLs with single commas, or give --base-url once per URL")
        problem = base_url_problem(url)
        if problem:
            raise ConfigError(f"{entry} {problem}")
        same = seen.setdefault(_normal(url), number)
        if same != number:
            raise ConfigError(f"--base-url entries {same} and {number} are the same endpoint "
                              f"({redact_url(url)}): give each replica once")
        replicas.append(Replica(url, source="--base-url"))
    return replicas


def load_endpoints(path: str | Path) -> list[Replica]:
    """Read and check an endpoints file (see the module docstring): its replicas, in order,
    each with source ``'<path>:<line of its entry>'``.

    Raises:
        DataError: one line naming the file and, where there is one, the line: a missing,
            unreadable or non-UTF-8 file, one larger than :data:`MAX_ENDPOINTS_BYTES` (before
            it is parsed), invalid YAML (a key given twice in one mapping included), an empty
            file, a shape other than a list or ``{endpoints: [...]}``, no entries; for an
            entry, ``endpoint <n>:`` and the field (also in ``.field``): an unknown key (with
            the closest key suggested), no ``url``, a bad URL, weight, max_concurrency or
            key_env, or a URL given twice (naming both lines). URLs are shown with their
            secrets hidden; a bad ``key_env`` is not shown (it may be the key itself).
    """
    from ..yamlfile import node_line, read_yaml

    path = Path(path)
    data, root = read_yaml(path, MAX_ENDPOINTS_BYTES, "replica list")

    def line(*loc: Any) -> int | None:
        return node_line(root, loc)

    shape = ("an endpoints file is a list of endpoints, or a mapping with an 'endpoints' list "
             "(- url: http://localhost:8000/v1)")
    if data is None:
        raise DataError(path, f"the file is empty: {shape}")
    prefix: tuple[Any, ...] = ()
    if isinstance(data, dict):
        for key in data:
            if key != "endpoints":
                raise _error(path, line(key), _key_name(key),
                             f"unknown key {_key_shown(key)} at the top"
                             f"{_paren(did_you_mean(str(key), ['endpoints']))}: {shape}")
        prefix = ("endpoints",)
        entries = data.get("endpoints")
        if entries is not None and not isinstance(entries, list):
            raise _error(path, line("endpoints"), "endpoints", f"'endpoints' must be a list "
                         f"of endpoints, got {type(entries).__name__}")
    elif isinstance(data, list):
        entries = data
    else:
        raise DataError(path, f"{shape}; got {type(data).__name__}",
                        line=root.start_mark.line + 1)
    if not entries:
        raise DataError(path, "no endpoints: list at least one replica "
                        "(- url: http://localhost:8000/v1)",
                        line=line(*prefix) if prefix else root.start_mark.line + 1)
    replicas: list[Replica] = []
    seen: dict[str, tuple[int, int | None]] = {}
    for index, entry in enumerate(entries):
        number, loc = index + 1, (*prefix, index)
        start = line(*loc)
        if isinstance(entry, str):
            fields: dict[Any, Any] = {"url": entry}
        elif isinstance(entry, dict):
            fields = entry
        else:
            got = "nothing" if entry is None else type(entry).__name__
            raise _entry_error(path, start, number, None,
                               f"must be a base URL or a mapping with a 'url', got {got}")
        for key in fields:
            if key not in _KEYS:
                url_key = ("; a URL is given as url: <URL>, its options beside it"
                           if "://" in str(key) else "")
                raise _entry_error(path, line(*loc, key), number, _key_name(key),
                                   f"unknown key {_key_shown(key)}"
                                   f"{_paren(did_you_mean(str(key), _KEYS))}; "
                                   f"keys: {', '.join(_KEYS)}{url_key}")
        if "url" not in fields:
            raise _entry_error(path, start, number, "url", "no 'url': give the replica's base "
                               "URL (url: http://localhost:8000/v1)")
        url_line = line(*loc, "url") if isinstance(entry, dict) else start
        problem = _url_problem(fields["url"])
        if problem:
            raise _entry_error(path, url_line, number, "url", problem)
        url = fields["url"].strip()
        first, first_line = seen.setdefault(_normal(url), (number, url_line))
        if first != number:
            raise _entry_error(path, url_line, number, "url",
                               f"url {redact_url(url)} repeats endpoint {first} (line "
                               f"{first_line}): give each replica once (a larger weight "
                               f"gives it a larger share)")
        for key, check in (("weight", _weight_problem),
                           ("max_concurrency", _concurrency_problem),
                           ("key_env", _key_env_problem)):
            if key in fields and (problem := check(fields[key])):
                raise _entry_error(path, line(*loc, key), number, key, problem)
        replicas.append(Replica(
            url, weight=fields.get("weight", 1.0), max_concurrency=fields.get("max_concurrency"),
            key_env=fields.get("key_env"), source=f"{path}:{start}"))
    return replicas


def _entry_error(path: Path, line: int | None, number: int, field: str | None,
                 message: str) -> DataError:
    """``<path>:<line>: endpoint <number>: <message>``, with ``field`` in ``.field``."""
    return _error(path, line, field, f"endpoint {number}: {message}")


def _error(path: Path, line: int | None, field: str | None, message: str) -> DataError:
    """``<path>:<line>: <message>``, with ``field`` in ``.field`` (the message names it in its
    own words, so DataError's ``field '...':`` prefix is not added)."""
    error = DataError(path, message, line=line)
    error.field = field
    return error


def _key_shown(key: object) -> str:
    """A key as a message shows it: quoted, any URL's secrets hidden (a URL written as a
    key), at most 80 characters."""
    return redact_text(repr(key))[:80]


def _key_name(key: object) -> str:
    """A key as ``.field`` holds it: its text, any URL's secrets hidden, at most 80
    characters."""
    return redact_text(str(key))[:80]


def _url_problem(url: object) -> str | None:
    """Why ``url`` cannot be a replica's base URL, trimmed (None when it can)."""
    if not isinstance(url, str):
        return f"url must be text (a base URL), got {type(url).__name__}"
    if not url.strip():
        return "url is empty: give the replica's base URL (http://localhost:8000/v1)"
    problem = base_url_problem(url.strip())
    return f"url {problem}" if problem else None


def _weight_problem(weight: object) -> str | None:
    """Why ``weight`` cannot be a replica's weight (None when it can)."""
    if not isinstance(weight, bool) and isinstance(weight, (int, float)):
        try:
            if math.isfinite(weight) and weight > 0:
                return None
        except OverflowError:  # an int too large for a float
            pass
    return f"weight must be a finite number > 0, got {weight!r:.40}"


def _concurrency_problem(value: object) -> str | None:
    """Why ``value`` cannot be a replica's max_concurrency (None when it can)."""
    if value is None or (not isinstance(value, bool) and isinstance(value, int)
                         and 1 <= value <= MAX_CONCURRENCY):
        return None
    return (f"max_concurrency must be a whole number from 1 to {MAX_CONCURRENCY}, got "
            f"{value!r:.40}")


def _key_env_problem(name: object) -> str | None:
    """Why ``name`` cannot be a key_env (None when it can); the value is not shown, as it may
    be the key itself pasted in."""
    if name is None or (isinstance(name, str) and _ENV_NAME.fullmatch(name)):
        return None
    got = (f"text of {len(name)} characters (not shown)" if isinstance(name, str)
           else type(name).__name__)
    return (f"key_env must be the name of an environment variable (letters, digits and _, "
            f"not starting with a digit), got {got}; the key itself never goes in the file")


def _normal(url: str) -> str:
    """``url`` as compared for repeats: trimmed, scheme and host lowercased, a default port
    and a trailing ``/`` dropped (credentials, path case and query kept)."""
    parts = urlsplit(url.strip())
    userinfo, at, host = parts.netloc.rpartition("@")
    host = host.lower()
    scheme = parts.scheme.lower()
    port = _DEFAULT_PORTS.get(scheme)
    if port is not None and host.endswith(f":{port}"):
        host = host[: -len(f":{port}")]
    return urlunsplit(parts._replace(scheme=scheme, netloc=userinfo + at + host,
                                     path=parts.path.rstrip("/")))


def _paren(hint: str) -> str:
    """``"; did you mean 'weight'?"`` (from did_you_mean) as ``" (did you mean 'weight'?)"``."""
    return f" ({hint.removeprefix('; ')})" if hint else ""


def _shown_list(value: str) -> str:
    """A comma-separated ``--base-url`` value with each URL's secrets hidden."""
    return ",".join(redact_url(part) or "" for part in value.split(","))
