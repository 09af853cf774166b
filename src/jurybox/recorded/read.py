"""Read recorded judgments from wherever they are: a bundled recording's name, an LLMBar
result.json or folder tree, or a generic recorded JSON-lines file."""

from __future__ import annotations

from pathlib import Path

from .model import Recording

__all__ = ["read_recordings"]


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
