"""Read recorded judgments from wherever they are: a bundled recording's name, an LLMBar
result.json or folder tree, or a generic recorded JSON-lines file."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from ..errors import ConfigError, did_you_mean
from .model import Recording

__all__ = ["read_recordings", "select_recordings"]

#: A recording of either kind (pairwise :class:`Recording`, listwise
#: :class:`~jurybox.recorded.listwise.ListwiseRecording`): it has subset, judge and strategy.
R = TypeVar("R")


def read_recordings(source: str | Path) -> list[Recording]:
    """The recordings of ``source``: a bundled name (``"llmbar"``,
    :data:`~jurybox.recorded.bundle.BUNDLED_RECORDED`), an LLMBar ``result.json``, a folder
    of them (an LLMBar ``Dataset/`` tree or a judge's folder), or a generic recorded
    ``.jsonl``/``.jsonl.gz`` (docs/recorded-format.md).

    Raises:
        DataError: a malformed file (file, line, field).
        FileNotFoundError: ``source`` is neither bundled nor a path that exists.
    """
    from .bundle import BUNDLED_RECORDED, load_bundled
    from .jsonl import read_recorded_jsonl
    from .llmbar import read_llmbar_result, read_llmbar_tree

    if isinstance(source, str) and source in BUNDLED_RECORDED:
        return load_bundled(source)
    target = Path(source)
    if not target.exists():
        raise FileNotFoundError(f"{source}: no such file or folder, and not a bundled "
                                f"recording ({', '.join(BUNDLED_RECORDED)})")
    if target.is_dir():
        return list(read_llmbar_tree(target))
    if target.suffix == ".json":
        return [read_llmbar_result(target, texts=False)]
    return read_recorded_jsonl(target)


def select_recordings(recordings: list[R], option: str, values: str | None,
                      attr: str) -> list[R]:
    """The recordings whose ``attr`` (``subset``, ``judge``, ``strategy``) is one of
    ``values`` (comma-separated; a subset also takes the subsets under a folder:
    ``LLMBar/Adversarial``); all of them when ``values`` is None.

    Raises:
        ConfigError: a value no recording has, naming ``option`` and the closest.
    """
    if values is None:
        return recordings
    wanted = [v.strip() for v in values.split(",") if v.strip()]
    plural = {"strategy": "strategies"}.get(attr, f"{attr}s")
    if not wanted:
        raise ConfigError(f"{option} names no {attr}: give one or more, comma-separated")
    have = {getattr(r, attr) for r in recordings}

    def hit(r: R, v: str) -> bool:
        got = getattr(r, attr)
        return got == v or (attr == "subset" and got.startswith(v.rstrip("/") + "/"))

    for v in wanted:
        if not any(hit(r, v) for r in recordings):
            raise ConfigError(f"{option}: no {attr} {v!r} in these recordings"
                              f"{did_you_mean(v, have)} ({plural}: {', '.join(sorted(have))})")
    return [r for r in recordings if any(hit(r, v) for v in wanted)]
