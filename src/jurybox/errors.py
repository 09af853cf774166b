"""The one error tree of jurybox.

Every error a user can cause or meet derives from :class:`JuryboxError`; the CLI prints its
message on one line and exits with code 2. Messages show the bad value with ``!r`` and what is
allowed.

- :class:`ConfigError`: a missing key, extra or bad option, with the exact fix.
- :class:`DataError`: a bad input file, naming file, line and field.
- :class:`ProviderError`: an endpoint that cannot be used (unreachable, auth, rate limit,
  timeout); subclasses say whether a retry may help.
- :class:`ParseError`: judge output that cannot be used; carries the raw text.
"""

from __future__ import annotations

import difflib
import itertools
import json
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "did_you_mean_file",
    "JuryboxError",
    "ConfigError",
    "DataError",
    "RunWriteError",
    "write_error",
    "ProviderError",
    "FormatRefusedError",
    "BatchRejectedError",
    "BatchUnavailableError",
    "BatchFilesWritten",
    "RetryableProviderError",
    "EndpointGoneError",
    "RateLimitError",
    "ServerError",
    "TimeoutError_",
    "ParseError",
    "missing_extra",
    "did_you_mean",
    "as_json",
]


class JuryboxError(Exception):
    """Base of every jurybox error."""


class ConfigError(JuryboxError):
    """Configuration is missing or wrong; the message says the exact fix."""


class RunWriteError(JuryboxError):
    """The run directory or the cache cannot be written (a full disk, a lost mount). What was
    written before stays; rerunning the same command resumes from it."""


def write_error(path: object, exc: OSError) -> RunWriteError:
    """The RunWriteError for a file of a run that could not be written: names it and why."""
    return RunWriteError(f"cannot write {str(path)!r}: {exc.strerror or exc}")


def discard(*paths: object) -> None:
    """Remove temporary files left by a failed write, as far as the file system lets (on a
    read-only one even unlinking a missing file fails: that must not replace the write's
    own error)."""
    import os

    for path in paths:
        try:
            os.unlink(str(path))
        except OSError:
            pass


class DataError(JuryboxError):
    """A dataset or ratings file is bad.

    Args:
        path: the file.
        message: what is wrong and what is allowed.
        line: 1-based line (for CSV, the header is line 1), or None for the whole file.
        field: the column or JSON field, or None.
    """

    def __init__(self, path: object, message: str, *, line: int | None = None,
                 field: str | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = f" field {field!r}:" if field else ""
        super().__init__(f"{where}:{what} {message}")


class ProviderError(JuryboxError):
    """An endpoint failed in a way a retry will not fix (auth, bad request, unreachable)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class FormatRefusedError(ProviderError):
    """The server refused the structured-output field (``response_format``) it was sent."""


class RetryableProviderError(ProviderError):
    """An endpoint failure a retry may fix (429, 5xx, timeout, dropped connection).

    Attributes:
        retry_after: seconds the server asked to wait (``Retry-After``), or None.
    """

    def __init__(self, message: str, *, status: int | None = None,
                 retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message, status=status)


class EndpointGoneError(ProviderError):
    """The endpoint's server process has exited (a local judge that crashed or was killed):
    no retry can reach it, so the run stops at once. The calls that failed are API failures,
    judged again when the run is resumed."""


class BatchRejectedError(ProviderError):
    """The provider refused a whole batch (its validation failed): each of its requests is a
    recorded failure carrying the provider's message, and the run goes on."""


class BatchUnavailableError(EndpointGoneError):
    """The provider's batch API cannot be used for this run any more (the key was refused,
    the batch endpoints are gone): the run stops at once, as for a server that exited."""


class BatchFilesWritten(JuryboxError):
    """A ``--batch-files`` run wrote its batch round to files and stopped: run them, import
    the answers, rerun (the message says how). Not a failure: the CLI exits 0."""


class RateLimitError(RetryableProviderError):
    """HTTP 429."""


class ServerError(RetryableProviderError):
    """HTTP 5xx."""


class TimeoutError_(RetryableProviderError):  # noqa: N801 - avoid shadowing the builtin
    """The request took longer than the client timeout."""


class ParseError(JuryboxError):
    """Judge output could not be used.

    Attributes:
        raw: the judge's raw text.
        kind: ``"parse"`` (no usable answer) or ``"refusal"`` (the judge declined).
    """

    def __init__(self, message: str, *, raw: str = "", kind: str = "parse") -> None:
        self.raw = raw
        self.kind = kind
        super().__init__(message)


def missing_extra(package: str, extra: str) -> ConfigError:
    """The error for an optional dependency that is not installed, with the exact fix."""
    return ConfigError(
        f"{package!r} is not installed; install it with: pip install 'jurybox[{extra}]' (in "
        f"a clone of jurybox: .venv/bin/pip install -e '.[{extra}]')")


def as_json(value: object, limit: int = 60) -> str:
    """``value`` as a JSON file spells it (``null``, ``Infinity``, ``"lots"``, ``[1, 2]``),
    cut to ``limit`` characters, for an error message about a JSON field: the user sees what
    is in their file, not Python's ``None``/``inf``/``'lots'``.

    >>> [as_json(v) for v in (None, float("inf"), "lots", True, [1])]
    ['null', 'Infinity', '"lots"', 'true', '[1]']
    """
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not from a JSON file (a Python caller's object)
        shown = repr(value)
    return shown[:limit]


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'truthfulqa'?"`` for the choice closest to a mistyped name
    (``difflib.get_close_matches``, cutoff 0.6), or ``""`` when none is close.

    >>> did_you_mean("squalty", ["pbig", "squality"])
    "; did you mean 'squality'?"
    >>> did_you_mean("my_data.jsonl", ["truthfulqa"])
    ''
    """
    matches = difflib.get_close_matches(str(value), list(choices), n=1, cutoff=0.6)
    return f"; did you mean {matches[0]!r}?" if matches else ""


#: Most entries of a folder read for :func:`did_you_mean_file` (a huge folder is not listed).
MAX_FOLDER_ENTRIES = 10_000


def did_you_mean_file(path: str | Path) -> str:
    """``"; did you mean 'data/items.jsonl'?"`` for the file in ``path``'s folder whose name
    is closest to the missing one (``difflib.get_close_matches``, cutoff 0.6), or ``""``
    when none is close or the folder cannot be read. Hidden files are not offered; at most
    :data:`MAX_FOLDER_ENTRIES` entries are read."""
    path = Path(path)
    try:
        names = [p.name for p in itertools.islice(path.parent.iterdir(), MAX_FOLDER_ENTRIES)
                 if not p.name.startswith(".")]
    except OSError:
        return ""
    matches = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    return f"; did you mean {str(path.parent / matches[0])!r}?" if matches else ""
