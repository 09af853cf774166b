"""Dataset names and files: resolve what a user typed into items."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import DataError
from .generic import load_listwise_jsonl
from .judgebench import load_judgebench
from .rewardbench2 import load_rewardbench2
from .truthfulqa import load_truthfulqa

__all__ = ["LoadedDataset", "load_dataset", "load_listwise", "bundled_path", "BUNDLED",
           "BUNDLED_OUTPUTS", "BUNDLED_RATINGS", "BUNDLED_RUBRICS", "BUNDLED_ITEMS",
           "FORMATS", "file_sha256"]

_JB = "judgebench/judgebench_"
#: Bundled datasets: name -> (paths inside jurybox/data, format).
BUNDLED: dict[str, tuple[tuple[str, ...], str]] = {
    "truthfulqa": (("truthfulqa/TruthfulQA.csv",), "truthfulqa"),
    "rewardbench2-sample": (("rewardbench2/rb2_factuality_sample.jsonl",), "rewardbench2"),
    "judgebench": ((f"{_JB}gpt-4o-2024-05-13.jsonl", f"{_JB}claude-3-5-sonnet-20240620.jsonl"),
                   "judgebench"),
    "judgebench-gpt": ((f"{_JB}gpt-4o-2024-05-13.jsonl",), "judgebench"),
    "judgebench-claude": ((f"{_JB}claude-3-5-sonnet-20240620.jsonl",), "judgebench"),
}

#: Bundled multi-rater ratings (long format; for ``jurybox agreement`` and ``personalize``).
BUNDLED_RATINGS = {
    "squality": "ratings/squality_humaneval_ratings_long.csv",
}

#: Bundled rubrics (YAML).
BUNDLED_RUBRICS = {
    "pbig": "rubrics/pbig_business_ideas.yaml",
    "squality": "rubrics/squality.yaml",
    "offensiveness": "rubrics/offensiveness.yaml",
}

#: Bundled item texts for the bundled ratings.
BUNDLED_ITEMS = {"squality": "ratings/squality_humaneval_items.jsonl"}

#: Bundled recorded judge outputs (for ``jurybox score``).
BUNDLED_OUTPUTS = {
    "arena-hard-haiku": "judgebench/arena_hard_claude-3-haiku_on_claude_split.trimmed.jsonl",
}

FORMATS = ("auto", "truthfulqa", "rewardbench2", "jsonl", "judgebench")
#: Which task each format's items are for.
TASKS = {"truthfulqa": "listwise", "rewardbench2": "listwise", "jsonl": "listwise",
         "judgebench": "pairwise"}


@dataclass(frozen=True)
class LoadedDataset:
    """Items plus where they came from (for the run manifest).

    Attributes:
        task: ``"listwise"`` (ListwiseItem) or ``"pairwise"`` (PairwiseItem).
        sha256: of the file, or of the files' hashes joined by newlines for several files.
    """

    name: str
    path: Path
    format: str
    sha256: str
    items: list
    task: str = "listwise"


def bundled_path(relative: str) -> Path:
    """Absolute path of a file shipped in ``jurybox/data``."""
    return Path(str(resources.files("jurybox") / "data" / relative))


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sniff(path: Path) -> str:
    if path.suffix == ".csv":
        return "truthfulqa"
    first = ""
    if path.suffix != ".parquet":
        with path.open(encoding="utf-8", errors="replace") as fh:
            first = next((ln for ln in fh if ln.strip()), "")
    if path.suffix == ".parquet" or ('"chosen"' in first and '"rejected"' in first):
        return "rewardbench2"
    if '"response_A"' in first and '"label"' in first:
        return "judgebench"
    return "jsonl"


def _split_name(path: Path) -> str:
    """``judgebench_gpt-4o-2024-05-13.jsonl`` -> ``gpt``; other files: their stem."""
    stem = path.stem.removeprefix("judgebench_")
    return stem.split("-")[0] if stem != path.stem else stem


def _load_file(path: Path, format: str, *, subset: str | None, n: int) -> list:
    if format == "truthfulqa":
        return load_truthfulqa(path, n=n)
    if format == "rewardbench2":
        return load_rewardbench2(path, subset=subset)
    if format == "judgebench":
        return load_judgebench(path, split=_split_name(path))
    return load_listwise_jsonl(path)


def load_dataset(dataset: str, *, format: str = "auto", subset: str | None = "Factuality",
                 n: int = 4) -> LoadedDataset:
    """Load items from a bundled name or a file path.

    Args:
        dataset: a bundled name (``truthfulqa``, ``rewardbench2-sample``, ``judgebench``,
            ``judgebench-gpt``, ``judgebench-claude``) or a path.
        format: ``auto`` (by extension and first row), ``truthfulqa``, ``rewardbench2``,
            ``jsonl`` (generic listwise) or ``judgebench``.
        subset: RewardBench 2 subset filter (None = all rows).
        n: candidates per TruthfulQA item.

    Raises:
        DataError: unknown name or missing file, bad format, bad rows, duplicate ids across
            files.
    """
    if format not in FORMATS:
        raise DataError(dataset, f"unknown format {format!r}; choose one of {FORMATS!r}")
    if dataset in BUNDLED:
        relatives, fmt = BUNDLED[dataset]
        paths, name = [bundled_path(r) for r in relatives], dataset
        format = fmt if format == "auto" else format
    else:
        paths, name = [Path(dataset)], Path(dataset).stem
        if not paths[0].exists():
            raise DataError(paths[0], f"file not found (bundled datasets: {sorted(BUNDLED)!r})")
        format = _sniff(paths[0]) if format == "auto" else format
    items: list = []
    for path in paths:
        items.extend(_load_file(path, format, subset=subset, n=n))
    if not items:
        raise DataError(paths[0], f"no items (subset filter {subset!r})"
                        if format == "rewardbench2" else "no items")
    if len({it.item_id for it in items}) != len(items):
        raise DataError(paths[-1], "an item id appears in more than one file", field="id")
    hashes = [file_sha256(p) for p in paths]
    return LoadedDataset(name=name, path=paths[0] if len(paths) == 1 else paths[0].parent,
                         format=format, sha256=hashes[0] if len(hashes) == 1
                         else hashlib.sha256("\n".join(hashes).encode()).hexdigest(),
                         items=items, task=TASKS[format])


def load_listwise(dataset: str, **kwargs) -> LoadedDataset:
    """:func:`load_dataset`, requiring listwise items.

    Raises:
        DataError: as load_dataset, or the dataset is pairwise.
    """
    loaded = load_dataset(dataset, **kwargs)
    if loaded.task != "listwise":
        raise DataError(loaded.path, f"{dataset!r} holds {loaded.task} items, not listwise")
    return loaded
