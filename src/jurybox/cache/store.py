"""SQLite response cache (WAL), values stored as JSON.

Only what an endpoint answered is stored (the text, usage, latency, finish reason). API errors
are never stored. Parsing is never part of the cache: every answer is stored as it came,
including one whose text then fails to parse (it is what the endpoint said, and ``jurybox
score`` can re-read it with a better parser). But a failure is never *served* from the
cache: when a cached answer cannot be used (a parse error, a parser that failed, an answer
cut off at the token limit), the runner treats it as a miss, asks the endpoint again, and
the new answer replaces the stored one (``put(..., replace=True)``; counted in the run's
totals as ``cached_failures_asked``). Only offline replay (recorded answers, no endpoint)
keeps a recorded failure a failure.

What may be opened as a cache (checked when it is opened, before any model call):

- a path that does not exist (created), or an **empty** file (what ``touch`` or ``mktemp``
  makes: nothing to lose, so it becomes a new cache);
- an SQLite database holding a jurybox cache, or none of anyone else's tables.

Anything else is refused with one line naming the file and never changed: a folder or device,
a non-empty file that is not SQLite (SQLite itself would take a file of under 512 bytes for
an empty database and write over it), another program's SQLite database, or a **damaged**
cache. The start-up check of damage is cheap (it does not grow with the cache): the file's
SQLite header states the database's size in pages, and a file shorter than that was cut
short (truncated, a copy that did not finish). Only then does SQLite's own ``PRAGMA
quick_check`` decide (a checkpoint by another process may briefly leave the file short of its
new header); a full check reads every page (``benchmarks/cache_check.py`` measures it).
Damage inside the file that leaves its length alone shows when a damaged page is read: that
call stops the run with the same one line (:class:`CacheDamagedError`), the run directory
keeps everything judged before, and rerunning after moving the cache aside resumes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from pathlib import Path

from ..errors import ConfigError, RunWriteError
from ..providers import ChatResponse

__all__ = ["CacheDamagedError", "ResponseCache", "SCHEMA_VERSION", "SQLITE_MAGIC"]

SCHEMA_VERSION = 1

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: SQLite result codes (primary, the low byte) that mean a damaged file.
_DAMAGED = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


class CacheDamagedError(ConfigError):
    """The response cache file is damaged (cut short, overwritten): the message names it and
    says what to do (move it aside, or ``--no-cache``)."""


def _damaged(path: str, why: str) -> CacheDamagedError:
    return CacheDamagedError(
        f"the response cache {path!r} is damaged ({why}); move it aside (e.g. mv {path!r} "
        f"{path + '.damaged'!r}) or pass --no-cache, then rerun the same command (a run "
        f"resumes from its run directory)")


def _is_damage(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _DAMAGED
    return type(exc) is sqlite3.DatabaseError  # no code: corruption is the bare class


class ResponseCache:
    """A persistent key -> ChatResponse map.

    Args:
        path: the SQLite file (created with parent folders), or ``":memory:"``.
        read_only: open an existing cache without changing it (``jurybox cache info``).

    Raises:
        ConfigError: the file cannot be opened as a cache: a folder or device, a non-empty
            file that is not SQLite, another program's SQLite database (nothing is added to
            it), no access (see the module docstring).
        CacheDamagedError: the file is a damaged SQLite database (cut short).

    Safe for one process with many asyncio tasks (calls are short and synchronous); several
    processes may share one file (WAL, busy timeout 30 s).
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = str(path)
        memory = self.path == ":memory:"
        try:
            if not memory:
                self._check_file(read_only)
            if read_only:
                self._db = sqlite3.connect(f"{Path(self.path).resolve().as_uri()}?mode=ro",
                                           uri=True, timeout=30, check_same_thread=False)
                self._check_schema(allow_new=False)
                return
            if not memory:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                       check_same_thread=False)
            self._check_schema(allow_new=True)
            self._setup()
        except (sqlite3.Error, OSError) as exc:
            if isinstance(exc, sqlite3.Error) and _is_damage(exc):
                raise _damaged(self.path, str(exc)) from None
            why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
            raise ConfigError(f"cannot use {self.path!r} as the response cache ({why}); pass "
                              f"another --cache file or --no-cache") from None

    def _check_file(self, read_only: bool) -> None:
        """Refuse a path that is not a regular file, a non-empty file that is not SQLite, and
        an SQLite file shorter than its header says (reads 100 bytes)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            if read_only:
                raise
            return
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise ConfigError(f"cannot use {self.path!r} as the response cache: it is {kind}; "
                              f"pass a file with --cache, or --no-cache")
        if st.st_size == 0:
            if read_only:
                raise ConfigError(f"{self.path!r} is empty: not a response cache yet (a run "
                                  f"with --cache {self.path} makes it one); nothing was changed")
            return  # empty: becomes a new cache
        with open(self.path, "rb") as fh:
            header = fh.read(100)
        if not header.startswith(SQLITE_MAGIC):
            length = "1 byte" if st.st_size == 1 else f"{st.st_size:,} bytes"
            raise ConfigError(f"{self.path!r} is not an SQLite file ({length} starting "
                              f"{header[:16]!r}), so not a response cache; it was "
                              f"left alone: pass another --cache file or --no-cache")
        if len(header) < 100:
            raise _damaged(self.path, f"cut short: {st.st_size} bytes, less than its header")
        size = self._stated_size(header)
        if size is not None and st.st_size < size and not self._passes_quick_check():
            raise _damaged(self.path, f"cut short: {st.st_size:,} bytes where its header "
                                      f"says {size:,}")

    @staticmethod
    def _stated_size(header: bytes) -> int | None:
        """The database size in bytes that an SQLite header states (page size x page count),
        or None when the header does not say (a count not valid for this version)."""
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        if header[24:28] != header[92:96] or pages == 0:  # SQLite's rule for a valid count
            return None
        return page_size * pages

    def _passes_quick_check(self) -> bool:
        """SQLite's own check (reads every page): ``PRAGMA quick_check`` says ``ok``."""
        try:
            db = sqlite3.connect(f"{Path(self.path).resolve().as_uri()}?mode=ro", uri=True,
                                 timeout=30)
            try:
                return db.execute("PRAGMA quick_check(1)").fetchone() == ("ok",)
            finally:
                db.close()
        except sqlite3.Error:
            return False

    def _check_schema(self, *, allow_new: bool) -> None:
        tables = {row[0] for row in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        ours = {"meta", "responses"}
        if ours <= tables or (allow_new and tables <= ours):  # new, or set up part-way
            return
        self._db.close()
        raise ConfigError(f"{self.path!r} is an SQLite file but not a jurybox response "
                          f"cache (no 'responses' table); nothing was changed: pass another "
                          f"--cache file or --no-cache")

    def _setup(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, "
                         "value TEXT NOT NULL, created REAL NOT NULL)")
        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                         (str(SCHEMA_VERSION),))

    def _read_error(self, exc: sqlite3.Error) -> ConfigError:
        if _is_damage(exc):
            return _damaged(self.path, str(exc))
        return ConfigError(f"cannot read the response cache {self.path!r}: {exc}; pass "
                           f"--no-cache (or another --cache file) and rerun to resume")

    def get(self, key: str) -> ChatResponse | None:
        """The stored response for ``key``, or None.

        Raises:
            CacheDamagedError: the file is damaged (the run stops; see the module docstring).
            ConfigError: it cannot be read otherwise (an I/O error).
        """
        try:
            row = self._db.execute("SELECT value FROM responses WHERE key = ?",
                                   (key,)).fetchone()
        except sqlite3.Error as exc:
            raise self._read_error(exc) from None
        if row is None:
            return None
        try:
            return ChatResponse.model_validate(json.loads(row[0]))
        except (ValueError, TypeError, RecursionError):  # pydantic's errors are ValueErrors
            raise _damaged(self.path, "a stored response is not one jurybox wrote") from None

    def put(self, key: str, response: ChatResponse, *, replace: bool = False) -> None:
        """Store ``response`` under ``key``: first write wins, unless ``replace`` (the
        stored answer could not be used and was asked again: the new one takes its place).

        Raises:
            CacheDamagedError: the file is damaged.
            RunWriteError: the cache cannot be written (a full disk, a read-only file).
        """
        try:
            verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
            self._db.execute(f"{verb} INTO responses VALUES (?, ?, ?)",
                             (key, response.model_dump_json(), time.time()))
        except sqlite3.Error as exc:
            if _is_damage(exc):
                raise _damaged(self.path, str(exc)) from None
            raise RunWriteError(f"cannot write the response cache {self.path!r}: {exc}; "
                                f"free space (or pass --no-cache) and rerun to resume") from None

    def __len__(self) -> int:
        """Responses stored (CacheDamagedError or ConfigError as :meth:`get`)."""
        try:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        except sqlite3.Error as exc:
            raise self._read_error(exc) from None

    def clear(self) -> int:
        """Delete every response; returns how many were deleted (errors as :meth:`get`)."""
        n = len(self)
        try:
            self._db.execute("DELETE FROM responses")
            self._db.execute("VACUUM")
        except sqlite3.Error as exc:
            raise self._read_error(exc) from None
        return n

    def close(self) -> None:
        self._db.close()
