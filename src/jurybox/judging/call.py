"""``judge(items)``: one judge over items given in memory (or a file), with typed per-item
results (:class:`Judgments`); ``await ajudge(...)`` on a running event loop. The public
``jurybox.judge`` (:mod:`jurybox.api`) adds juries on top.

The items are written to ``OUT/input.jsonl`` with ``OUT`` locked (the lock held through the
run); a call refused before its run leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..providers.spec import require_model
from ..rundir import lock_run_dir
from ..run import RunHooks, RunOptions
from ..run.endpoint import split_endpoints
from ..run.loops import entered_off_loop
from .config import JudgeConfig, default_judge_out
from .items import INPUT_FILE, id_text, input_rows, named_by_item, write_input
from .run import Judgments, _judge_run, _JudgeRun

__all__ = ["ajudge", "check_judge_arguments", "check_judge_settings", "judge"]


def judge(items: Iterable[Any] | str | Path, *, model: str | None = None, protocol: str = "pcf",
          out: str | Path | None = None, options: RunOptions | None = None,
          hooks: RunHooks | None = None, **settings: Any) -> Judgments:
    """One judge over ``items``: :func:`jurybox.judge` without ``jury=`` (see there for the
    arguments, the run directory's lock, and what is raised)."""
    with _judge_call(items, model, protocol, out, options, hooks, settings) as run:
        return run.result(run.engine.run(run.job))


async def ajudge(items: Iterable[Any] | str | Path, *, model: str | None = None,
                 protocol: str = "pcf", out: str | Path | None = None,
                 options: RunOptions | None = None, hooks: RunHooks | None = None,
                 **settings: Any) -> Judgments:
    """:func:`judge` on the running event loop: ``await ajudge(items, model=...)``, what
    :func:`jurybox.ajudge` runs without ``jury=`` (arguments, result and errors as there)."""
    async with entered_off_loop(
            _judge_call(items, model, protocol, out, options, hooks, settings)) as run:
        return run.result(await run.engine.arun(run.job))


def check_judge_settings(settings: dict[str, Any]) -> None:
    """judge()'s settings are JudgeConfig fields (not ``input``: the items are given).

    Raises:
        ConfigError: an unknown setting, or ``input``, naming them and listing those taken.
    """
    unknown = sorted(set(settings) - set(JudgeConfig.__dataclass_fields__) - {"input"})
    if unknown or "input" in settings:
        takes = sorted(set(JudgeConfig.__dataclass_fields__) - {"input"} | {"endpoints"})
        raise ConfigError(f"judge() takes no setting {', '.join(map(repr, unknown or ['input']))}"
                          f"; it takes {takes}")


def _pool_settings(settings: dict[str, Any], options: RunOptions | None
                   ) -> tuple[dict[str, Any], RunOptions | None]:
    """judge()'s ``base_url`` (a URL; several: a list or tuple of URLs, or one text of
    comma-separated URLs) and ``endpoints`` (an endpoints file's path), as ``--base-url`` and
    ``--endpoints`` take them: the settings with the config's one base URL, and the options
    with an endpoint pool (:attr:`RunOptions.endpoints`) when several replicas are given.

    Raises:
        ConfigError: base_url of another kind, an empty list, a bad URL or one given twice;
            endpoints not a path; base_url and endpoints both given; a pool given here and in
            ``options.endpoints`` too.
        DataError: a bad endpoints file (file, line, endpoint and field).
    """
    if "base_url" not in settings and "endpoints" not in settings:
        return settings, options
    settings = dict(settings)
    base_url, endpoints = settings.pop("base_url", None), settings.pop("endpoints", None)
    if isinstance(base_url, (list, tuple)):
        if not base_url or not all(isinstance(url, str) for url in base_url):
            raise ConfigError(f"base_url must be a URL, or a list of URLs (the replicas of "
                              f"one model), got {base_url!r:.120}")
    elif base_url is not None and not isinstance(base_url, str):
        raise ConfigError(f"base_url must be a URL (text), a list of URLs, or None, got "
                          f"{base_url!r:.80} ({type(base_url).__name__})")
    if endpoints is not None and not isinstance(endpoints, (str, os.PathLike)):
        raise ConfigError(f"endpoints must be the path of an endpoints file (str or Path), "
                          f"got {type(endpoints).__name__}")
    url, pool = split_endpoints(base_url, None if endpoints is None else os.fspath(endpoints))
    if url is not None:
        settings["base_url"] = url
    if pool:
        if options is not None and options.endpoints:
            raise ConfigError("the endpoint pool is given twice, in base_url= or endpoints= "
                              "and in options=RunOptions(endpoints=...): give it once")
        options = replace(options or RunOptions(), endpoints=pool)
    return settings, options


@contextmanager
def _judge_call(items: Iterable[Any] | str | Path, model: str | None, protocol: str,
                out: str | Path | None, options: RunOptions | None, hooks: RunHooks | None,
                settings: dict[str, Any]) -> Iterator[_JudgeRun]:
    """:func:`judge`'s run: items in memory are written to ``out/input.jsonl`` with ``out``
    locked (and the lock held through the run); a call refused before its run leaves
    nothing behind."""
    check_judge_arguments(items, out, options, hooks)
    settings, options = _pool_settings(settings, options)
    check_judge_settings(settings)
    model = require_model(model, os.fspath(items) if isinstance(items, (str, os.PathLike))
                          else "the items", how="model=...")
    if isinstance(items, (str, os.PathLike)):
        config = JudgeConfig(input=os.fspath(items), model=model, protocol=protocol,
                             **settings)
        folder = Path(out) if out is not None else default_judge_out(config)
        with _judge_run(config, folder, options, hooks, keep=True) as run:
            yield run
        return
    raw = list(items)
    rows = input_rows(raw)  # a bad item is refused before the folder is touched
    digest = hashlib.sha256(json.dumps([repr(r) for r in raw]).encode()).hexdigest()
    probe = JudgeConfig(input="items", model=model, protocol=protocol, **settings)
    folder = Path(out) if out is not None else default_judge_out(probe, digest)
    existed, had_lock = folder.exists(), (folder / "lock").exists()
    with lock_run_dir(folder) as lock:
        try:
            config = replace(probe, input=str(write_input(rows, folder)))
            with named_by_item(rows, Path(config.input)), _judge_run(
                    config, folder, options, hooks, lock=lock, keep=True,
                    given=[id_text(row["id"]) for row in rows]) as run:
                yield run
        except BaseException:
            if not (folder / "run.json").exists():  # refused before any run: leave nothing
                _remove_input(folder, existed, had_lock)
            raise


def check_judge_arguments(items: Any, out: Any, options: Any, hooks: Any) -> None:
    """judge()'s own arguments, before anything is written (ConfigError naming the one)."""
    if isinstance(items, Mapping):
        raise ConfigError("items must be a list of items (dicts with id, prompt, candidates) "
                          "or a file path, got one dict; give [item]")
    if not isinstance(items, (str, os.PathLike, Iterable)):
        raise ConfigError(f"items must be a list of items or a file path, got "
                          f"{type(items).__name__}")
    if out is not None:
        if not isinstance(out, (str, os.PathLike)):
            raise ConfigError(f"out must be a path (str or Path) or None, got "
                              f"{type(out).__name__}")
        if not str(out).strip():
            raise ConfigError("out is empty; give a folder for the run directory")
        if Path(out).exists() and not Path(out).is_dir():
            raise ConfigError(f"out={str(out)!r} is a file, not a folder; give a folder for "
                              f"the run directory")
    if options is not None and not isinstance(options, RunOptions):
        raise ConfigError(f"options must be a RunOptions or None, got {type(options).__name__}")
    if hooks is not None and not isinstance(hooks, RunHooks):
        raise ConfigError(f"hooks must be a RunHooks or None, got {type(hooks).__name__}")


def _remove_input(folder: Path, existed: bool, had_lock: bool) -> None:
    """Undo :func:`write_input` and the lock file of a call that was refused (bad items or
    settings), while it still holds the lock; a folder it did not create stays."""
    (folder / INPUT_FILE).unlink(missing_ok=True)
    if not had_lock:
        (folder / "lock").unlink(missing_ok=True)
    if not existed:
        try:
            folder.rmdir()
        except OSError:  # something else is in it: leave it
            pass
