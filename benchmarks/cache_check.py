"""What checking a response cache for damage costs, and what each check catches.

Builds a cache of about ``--mb`` MB (responses of ~1 kB text, as a listwise judge's answers),
then times, each the best of ``--repeats`` runs on a warm page cache:

- ``open``: ``ResponseCache(path)``, the start-up check jurybox makes (the header's stated
  size against the file's length: reads 100 bytes, whatever the cache's size);
- ``quick_check``: SQLite's ``PRAGMA quick_check`` (reads every page);
- ``integrity_check``: ``PRAGMA integrity_check`` (also checks every index against its table);

and each again "cold": the file's pages dropped from the page cache first
(``posix_fadvise(DONTNEED)`` on that file only), as on the first run after a reboot.

Then cuts a copy of the file to half its length and shows whether opening it is refused.

Usage: python benchmarks/cache_check.py [--mb 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from jurybox.cache import CacheDamagedError, ResponseCache  # noqa: E402
from jurybox.providers import ChatResponse, Usage  # noqa: E402


def build(path: Path, mb: int) -> int:
    """Fill ``path`` with responses until it holds about ``mb`` MB; return how many."""
    cache = ResponseCache(path)
    text = "The best answer is C. " * 48  # ~1 kB
    n = 0
    cache._db.execute("BEGIN")
    while n % 1000 or os.path.getsize(path) + _wal(path) < mb * 1_000_000:
        cache.put(f"{n:064x}", ChatResponse(text=text, usage=Usage(prompt_tokens=900,
                                                                   completion_tokens=250)))
        n += 1
        if n % 1000 == 0:
            cache._db.execute("COMMIT")
            cache._db.execute("BEGIN")
    cache._db.execute("COMMIT")
    cache.close()  # checkpoints the WAL into the file
    return n


def _wal(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return wal.stat().st_size if wal.exists() else 0


def _drop(path: Path) -> None:
    """Drop ``path``'s pages from the OS page cache (this file only)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def best(fn, repeats: int, cold: Path | None = None) -> float:
    times = []
    for _ in range(repeats):
        if cold is not None:
            _drop(cold)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def pragma(path: Path, name: str) -> None:
    db = sqlite3.connect(path)
    try:
        assert db.execute(f"PRAGMA {name}").fetchone() == ("ok",)
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.sqlite"
        n = build(path, args.mb)
        print(f"cache: {os.path.getsize(path) / 1e6:.1f} MB, {n:,} responses")
        for cold in (None, path):
            how = "cold" if cold else "warm"
            print(f"{how}: open (jurybox's start-up check): "
                  f"{1000 * best(lambda: ResponseCache(path).close(), args.repeats, cold):.2f} "
                  f"ms")
            for name in ("quick_check", "integrity_check"):
                print(f"{how}: PRAGMA {name}: "
                      f"{best(lambda: pragma(path, name), args.repeats, cold):.3f} s")  # noqa: B023
        cut = Path(tmp) / "cut.sqlite"
        shutil.copyfile(path, cut)
        os.truncate(cut, os.path.getsize(cut) // 2)
        db = sqlite3.connect(cut)
        try:
            said = repr(db.execute("PRAGMA quick_check(1)").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            said = f"DatabaseError: {exc}"
        finally:
            db.close()
        print(f"cut to half: PRAGMA quick_check says {said}")
        try:
            ResponseCache(cut).close()
            print("cut to half: opened (NOT detected)")
        except CacheDamagedError as exc:
            print(f"cut to half: refused: {exc}")


if __name__ == "__main__":
    main()
