"""SQLite response cache (WAL), values stored as JSON.

Only what an endpoint answered is stored (the text, usage, latency, finish reason). API errors
are never stored. A response whose text later fails to parse *is* stored: it is what the
endpoint said, rerunning reproduces the same recorded failure at no cost, and a better parser
can re-read it. Parsing is never part of the cache.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from ..errors import ConfigError, RunWriteError
from ..providers import ChatResponse

__all__ = ["ResponseCache", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1


class ResponseCache:
    """A persistent key -> ChatResponse map.

    Args:
        path: the SQLite file (created with parent folders), or ``":memory:"``.
        read_only: open an existing cache without changing it (``jurybox cache info``).

    Raises:
        ConfigError: the file cannot be opened as a cache (a folder, not SQLite, no access),
            or, read-only, it is not a jurybox cache (nothing is added to it).

    Safe for one process with many asyncio tasks (calls are short and synchronous); several
    processes may share one file (WAL, busy timeout 30 s).
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = str(path)
        try:
            if read_only:
                self._db = sqlite3.connect(f"{Path(self.path).resolve().as_uri()}?mode=ro",
                                           uri=True, timeout=30, check_same_thread=False)
                self._check_schema()
                return
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                       check_same_thread=False)
            self._setup()
        except (sqlite3.Error, OSError) as exc:
            raise ConfigError(f"cannot use {self.path!r} as the response cache ({exc}); pass "
                              f"another --cache file or --no-cache") from None

    def _check_schema(self) -> None:
        tables = {row[0] for row in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"meta", "responses"} <= tables:
            self._db.close()
            raise ConfigError(f"{self.path!r} is an SQLite file but not a jurybox response "
                              f"cache (no 'responses' table); nothing was changed")

    def _setup(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, "
                         "value TEXT NOT NULL, created REAL NOT NULL)")
        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                         (str(SCHEMA_VERSION),))

    def get(self, key: str) -> ChatResponse | None:
        """The stored response for ``key``, or None."""
        row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else ChatResponse.model_validate(json.loads(row[0]))

    def put(self, key: str, response: ChatResponse) -> None:
        """Store ``response`` under ``key`` (first write wins).

        Raises:
            RunWriteError: the cache cannot be written (a full disk, a read-only file).
        """
        try:
            self._db.execute("INSERT OR IGNORE INTO responses VALUES (?, ?, ?)",
                             (key, response.model_dump_json(), time.time()))
        except sqlite3.Error as exc:
            raise RunWriteError(f"cannot write the response cache {self.path!r}: {exc}; "
                                f"free space (or pass --no-cache) and rerun to resume") from None

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def clear(self) -> int:
        """Delete every response; returns how many were deleted."""
        n = len(self)
        self._db.execute("DELETE FROM responses")
        self._db.execute("VACUUM")
        return n

    def close(self) -> None:
        self._db.close()
