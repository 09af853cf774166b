"""``jurybox.judge(items, jury=[...])``: a jury judging items given in memory or a file.

The items are written to ``OUT/input.jsonl`` with ``OUT`` locked (the lock held through the
run), and every judge judges that file (:func:`jurybox.jury.run_jury` with a
:class:`~jurybox.judging.JudgeConfig`). A rerun with the same items and settings is served
from the judges' records and cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..judging.items import INPUT_FILE, input_rows, named_by_item, write_input
from ..judging.call import check_judge_arguments, check_judge_settings
from ..judging.config import JudgeConfig
from ..rundir import RunLock, lock_run_dir
from ..run import RunHooks, RunOptions
from .panel import Juror, Jury, jury_of
from .run import JuryResult, arun_jury, run_jury

__all__ = ["ajudge_with_jury", "judge_with_jury"]


def _jury(jury: Any) -> Jury:
    if isinstance(jury, Jury):
        return jury
    if isinstance(jury, (str, os.PathLike)) and Path(jury).suffix in (".yaml", ".yml",
                                                                     ".json"):
        from .panel import load_jury
        return load_jury(os.fspath(jury))
    return jury_of(jury)


@contextmanager
def _prepared(items: Any, jury: Any, protocol: str, out: Any, options: Any, hooks: Any,
              settings: dict[str, Any]) -> Iterator[tuple[JudgeConfig, Jury, Path,
                                                          RunLock | None]]:
    check_judge_arguments(items, out, options, hooks)
    check_judge_settings(settings)
    panel = _jury(jury)
    if isinstance(items, (str, os.PathLike)):
        config = JudgeConfig(input=os.fspath(items), model="sim", protocol=protocol,
                             **settings)
        yield config, panel, Path(out) if out is not None else _default_out(config, panel, ""),\
            None
        return
    raw = list(items)
    rows = input_rows(raw)  # a bad item is refused before the folder is touched
    digest = hashlib.sha256(json.dumps([repr(r) for r in raw]).encode()).hexdigest()
    probe = JudgeConfig(input="items", model="sim", protocol=protocol, **settings)
    folder = Path(out) if out is not None else _default_out(probe, panel, digest)
    with lock_run_dir(folder) as lock:
        text = "".join(f"{json.dumps(row, ensure_ascii=False)}\n" for row in rows)
        given = folder / INPUT_FILE
        if (folder / "jury.json").exists() and given.exists() and \
                given.read_text(encoding="utf-8") != text:
            raise ConfigError(f"{folder} holds a jury run of other items ({given}); give "
                              f"another out= or delete that folder")
        path = write_input(rows, folder)
        with named_by_item(rows, path):
            yield replace(probe, input=str(path)), panel, folder, lock


def _default_out(config: JudgeConfig, jury: Jury, digest: str) -> Path:
    from .run import default_jury_out

    return default_jury_out("judge", {**config.as_dict(), "items": digest}, jury)


def judge_with_jury(items: Iterable[Any] | str | Path,
                    jury: Jury | Iterable[Juror | str | dict[str, Any]] | str | Path, *,
                    protocol: str = "pcf", out: str | Path | None = None,
                    options: RunOptions | None = None, hooks: RunHooks | None = None,
                    **settings: Any) -> JuryResult:
    """:func:`jurybox.judge` with ``jury=``: see there.

    Raises:
        ConfigError, DataError: bad items, settings or jury (before any model call);
            ProviderError: a judge's endpoint cannot be used, or a judge failed every call.
    """
    with _prepared(items, jury, protocol, out, options, hooks, settings) as (
            config, panel, folder, lock):
        return run_jury(config, panel, folder, options=options, hooks=hooks, lock=lock)


async def ajudge_with_jury(items: Iterable[Any] | str | Path,
                           jury: Jury | Iterable[Juror | str | dict[str, Any]] | str | Path, *,
                           protocol: str = "pcf", out: str | Path | None = None,
                           options: RunOptions | None = None, hooks: RunHooks | None = None,
                           **settings: Any) -> JuryResult:
    """:func:`judge_with_jury` on the running event loop (:func:`jurybox.ajudge` with
    ``jury=``)."""
    async with _aprepared(items, jury, protocol, out, options, hooks, settings) as (
            config, panel, folder, lock):
        return await arun_jury(config, panel, folder, options=options, hooks=hooks,
                               lock=lock)


@asynccontextmanager
async def _aprepared(*args: Any) -> AsyncIterator[tuple[JudgeConfig, Jury, Path,
                                                        RunLock | None]]:
    from ..run.loops import entered_off_loop

    async with entered_off_loop(_prepared(*args)) as value:
        yield value
