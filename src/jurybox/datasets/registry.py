"""Dataset names and files: resolve what a user typed into items."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import DataError
from .generic import load_listwise_jsonl
from .items import ListwiseItem
from .rewardbench2 import load_rewardbench2
from .truthfulqa import load_truthfulqa

__all__ = ["LoadedDataset", "load_listwise", "bundled_path", "BUNDLED", "file_sha256"]

#: Bundled datasets: name -> (path inside jurybox/data, format).
BUNDLED = {
    "truthfulqa": ("truthfulqa/TruthfulQA.csv", "truthfulqa"),
    "rewardbench2-sample": ("rewardbench2/rb2_factuality_sample.jsonl", "rewardbench2"),
}

FORMATS = ("auto", "truthfulqa", "rewardbench2", "jsonl")


@dataclass(frozen=True)
class LoadedDataset:
    """Items plus where they came from (for the run manifest)."""

    name: str
    path: Path
    format: str
    sha256: str
    items: list[ListwiseItem]


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
    return "jsonl"


def load_listwise(dataset: str, *, format: str = "auto", subset: str | None = "Factuality",
                  n: int = 4) -> LoadedDataset:
    """Load listwise items from a bundled name or a file path.

    Args:
        dataset: a bundled name (``truthfulqa``, ``rewardbench2-sample``) or a path.
        format: ``auto`` (by extension and first row), ``truthfulqa``, ``rewardbench2``
            or ``jsonl``.
        subset: RewardBench 2 subset filter (None = all rows).
        n: candidates per TruthfulQA item.

    Raises:
        DataError: unknown name or missing file, bad format, bad rows.
    """
    if format not in FORMATS:
        raise DataError(dataset, f"unknown format {format!r}; choose one of {FORMATS!r}")
    if dataset in BUNDLED:
        relative, fmt = BUNDLED[dataset]
        path, name = bundled_path(relative), dataset
        format = fmt if format == "auto" else format
    else:
        path, name = Path(dataset), Path(dataset).stem
        if not path.exists():
            raise DataError(path, f"file not found (bundled datasets: {sorted(BUNDLED)!r})")
        format = _sniff(path) if format == "auto" else format
    if format == "truthfulqa":
        items = load_truthfulqa(path, n=n)
    elif format == "rewardbench2":
        items = load_rewardbench2(path, subset=subset)
    else:
        items = load_listwise_jsonl(path)
    if not items:
        raise DataError(path, f"no items (subset filter {subset!r})" if format == "rewardbench2"
                        else "no items")
    return LoadedDataset(name=name, path=path, format=format, sha256=file_sha256(path),
                         items=items)
