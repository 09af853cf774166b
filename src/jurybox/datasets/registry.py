"""Dataset names and files: resolve what a user typed into items."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..errors import ConfigError, DataError, JuryboxError, did_you_mean, did_you_mean_file
from .rows import iter_jsonl
from .validate import MAX_CANDIDATES, check_file
from .generic import iter_listwise_jsonl, iter_pairs_jsonl
from .items import ListwiseItem, PairwiseItem
from .judgebench import iter_judgebench
from .rewardbench2 import iter_rewardbench2
from .truthfulqa import iter_truthfulqa

__all__ = ["Item", "LoadedDataset", "ItemSelection", "load_dataset", "select_items",
           "load_listwise", "bundled_path", "resolve_bundled", "BUNDLED",
           "BUNDLED_OUTPUTS", "BUNDLED_RATINGS", "BUNDLED_RUBRICS", "BUNDLED_ITEMS",
           "FORMATS", "dataset_format", "file_sha256", "reopen_dataset"]

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

#: ``pairs`` is the generic ``jsonl`` format read as pairs (2 candidates a line), which
#: ``jurybox judge`` uses for pairwise protocols; it is never sniffed.
FORMATS = ("auto", "truthfulqa", "rewardbench2", "jsonl", "judgebench", "pairs")
#: Which task each format's items are for.
TASKS = {"truthfulqa": "listwise", "rewardbench2": "listwise", "jsonl": "listwise",
         "judgebench": "pairwise", "pairs": "pairwise"}


def bundled_path(relative: str) -> Path:
    """Absolute path of a file shipped in ``jurybox/data``."""
    return Path(str(resources.files("jurybox") / "data" / relative))


def resolve_bundled(name_or_path: str | Path, bundled: dict[str, str]) -> Path:
    """A bundled file by its name in ``bundled`` (``"squality"``), else the path given.

    Raises:
        DataError: neither a bundled name nor an existing path (the message suggests the
            closest bundled name: ``squalty`` -> did you mean 'squality'?).
    """
    key = str(name_or_path)
    if key in bundled:
        return bundled_path(bundled[key])
    path = Path(name_or_path)
    if not path.exists():
        hint = did_you_mean_file(path) or did_you_mean(key, bundled)
        raise DataError(path, f"file not found{hint} (bundled: {', '.join(bundled)})")
    return path


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sniff(path: Path) -> str:
    """A file's format from its extension and, for JSON lines, the keys of its first object.

    ``.csv``: TruthfulQA; ``.parquet``: RewardBench 2. A JSON line whose object has the keys
    ``chosen`` and ``rejected`` is RewardBench 2, one with ``response_A`` or ``response_B``
    and no ``candidates`` is JudgeBench (so a pair missing its label is told so), anything
    else the generic listwise format. Only keys count, never values: a
    generic line whose candidates read "chosen" and "rejected" stays generic.

    Raises:
        DataError: the first non-blank line is not a JSON object (as the loader would).
    """
    if path.suffix == ".csv":
        return "truthfulqa"
    if path.suffix == ".parquet":
        return "rewardbench2"
    _, first = next(iter_jsonl(path), (0, {}))
    if {"chosen", "rejected"} <= first.keys():
        return "rewardbench2"
    if first.keys() & {"response_A", "response_B"} and "candidates" not in first:
        return "judgebench"
    return "jsonl"


def _split_name(path: Path) -> str:
    """``judgebench_gpt-4o-2024-05-13.jsonl`` -> ``gpt``; other files: their stem."""
    stem = path.stem.removeprefix("judgebench_")
    return stem.split("-")[0] if stem != path.stem else stem


#: An item of a bench dataset.
Item = ListwiseItem | PairwiseItem


def _iter_file(path: Path, format: str, *, subset: str | None, n: int,
               labelled: bool = True) -> Iterator[Item]:
    if format == "pairs":
        return iter_pairs_jsonl(path, labelled=labelled)
    if format == "truthfulqa":
        return iter_truthfulqa(path, n=n)
    if format == "rewardbench2":
        return iter_rewardbench2(path, subset=subset)
    if format == "judgebench":
        return iter_judgebench(path, split=_split_name(path))
    return iter_listwise_jsonl(path, labelled=labelled)


@dataclass(frozen=True)
class LoadedDataset:
    """A checked dataset: where it is, what it holds, and how to read it again.

    Its items are not held: :meth:`iter_items` reads them anew from the file(s), so a run can
    stream a dataset of any size. :func:`load_dataset` has read it once to check every row.

    Attributes:
        task: ``"listwise"`` (ListwiseItem) or ``"pairwise"`` (PairwiseItem).
        sha256: of the file, or of the files' hashes joined by newlines for several files.
        n_items: how many items it holds.
        splits: items per split, in file order (JudgeBench's ``gpt``, ``claude``; ``""``
            for datasets without splits).
        labelled: False when gold may be missing (``jurybox judge``; generic files only).
    """

    name: str
    path: Path
    format: str
    sha256: str
    task: str
    n_items: int
    splits: dict[str, int]
    paths: tuple[Path, ...] = ()
    subset: str | None = None
    n_candidates: int = 4
    labelled: bool = True

    def iter_items(self) -> Iterator[Item]:
        """Every item, in file order, read lazily."""
        for path in self.paths:
            yield from _iter_file(path, self.format, subset=self.subset, n=self.n_candidates,
                                  labelled=self.labelled)

    @property
    def items(self) -> list[Item]:
        """Every item, in a list (for small datasets; runs stream :meth:`iter_items`)."""
        return list(self.iter_items())


@dataclass(frozen=True)
class ItemSelection:
    """The items a run judges: all of a dataset, or a seeded sample of each split.

    Iterating reads the dataset anew and yields the chosen items in dataset order; only the
    chosen positions are held.
    """

    dataset: LoadedDataset
    chosen: dict[str, frozenset[int]] | None = None  # split -> positions; None: all
    n_items: int = 0
    splits: dict[str, int] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Item]:
        seen: dict[str, int] = {}
        for item in self.dataset.iter_items():
            split = getattr(item, "split", "")
            position = seen.get(split, 0)
            seen[split] = position + 1
            if self.chosen is None or position in self.chosen.get(split, ()):
                yield item


def select_items(dataset: LoadedDataset, limit: int | None, seed: int) -> ItemSelection:
    """All items, or a seeded sample of ``limit`` items kept in dataset order; for a dataset
    with several splits (JudgeBench's gpt and claude), ``limit`` items per split.

    The sample of a split with N items is ``random.Random(f"{seed}:{split}").sample`` of
    range(N): the same items whatever else the file holds.

    Raises:
        ConfigError: limit < 1.
    """
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be >= 1, got {limit}")
    if limit is None or all(limit >= n for n in dataset.splits.values()):
        return ItemSelection(dataset, None, dataset.n_items, dict(dataset.splits))
    chosen = {split: frozenset(range(n)) if limit >= n else
              frozenset(random.Random(f"{seed}:{split}").sample(range(n), limit))
              for split, n in dataset.splits.items()}
    counts = {split: len(c) for split, c in chosen.items()}
    return ItemSelection(dataset, chosen, sum(counts.values()), counts)


def dataset_format(dataset: str) -> str | None:
    """The format :func:`load_dataset` would read ``dataset`` as (``format="auto"``), or None
    when it is neither a bundled name nor an existing file (load_dataset names the problem).

    >>> dataset_format("truthfulqa"), dataset_format("rewardbench2-sample")
    ('truthfulqa', 'rewardbench2')
    """
    if dataset in BUNDLED:
        return BUNDLED[dataset][1]
    path = Path(dataset)
    try:
        return _sniff(path) if path.is_file() else None
    except (OSError, DataError):
        return None


def load_dataset(dataset: str, *, format: str = "auto", subset: str | None = "Factuality",
                 n: int = 4, labelled: bool = True) -> LoadedDataset:
    """Check a bundled name or a file path and describe it (one pass over every row; the
    items are not kept: iterate the result to read them).

    Args:
        dataset: a bundled name (``truthfulqa``, ``rewardbench2-sample``, ``judgebench``,
            ``judgebench-gpt``, ``judgebench-claude``) or a path.
        format: ``auto`` (by extension and first row), ``truthfulqa``, ``rewardbench2``,
            ``jsonl`` (generic listwise) or ``judgebench``.
        subset: RewardBench 2 subset filter (None = all rows).
        n: candidates per TruthfulQA item.
        labelled: False: gold may be missing in generic files (``jurybox judge``).

    Raises:
        DataError: unknown name or missing file, a path that is not a readable file, bad
            rows, duplicate ids across files.
        ConfigError: unknown ``format``; ``n`` outside 2..26 for TruthfulQA.
    """
    paths, name, format = _locate(dataset, format)
    if format == "truthfulqa" and not 2 <= n <= MAX_CANDIDATES:
        raise ConfigError(f"n (candidates per TruthfulQA item) must be 2 to {MAX_CANDIDATES}, "
                          f"got {n!r}")
    splits: dict[str, int] = {}
    ids: set[str] = set()
    for path in paths:
        for item in _iter_file(path, format, subset=subset, n=n, labelled=labelled):
            if item.item_id in ids:
                raise DataError(path, f"item id {item.item_id!r} appears in more than one file",
                                field="id")
            ids.add(item.item_id)
            split = getattr(item, "split", "")
            splits[split] = splits.get(split, 0) + 1
    if not ids:
        raise DataError(paths[0], f"no items (subset filter {subset!r})"
                        if format == "rewardbench2" else "no items")
    return LoadedDataset(name=name, path=paths[0] if len(paths) == 1 else paths[0].parent,
                         format=format, sha256=_sha256(paths), task=TASKS[format],
                         n_items=len(ids), splits=splits, paths=tuple(paths), subset=subset,
                         n_candidates=n, labelled=labelled)


def _locate(dataset: str, format: str) -> tuple[list[Path], str, str]:
    """(paths, name, format) of a bundled name or a file path (``auto`` resolved).

    Raises:
        ConfigError: unknown ``format``. DataError: no such name or file, or a file that
            cannot be read.
    """
    if format not in FORMATS:
        raise ConfigError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    if dataset in BUNDLED:
        relatives, fmt = BUNDLED[dataset]
        return [bundled_path(r) for r in relatives], dataset, fmt if format == "auto" else format
    path = Path(dataset)
    if not path.exists():
        hint = did_you_mean_file(path) or did_you_mean(dataset, BUNDLED)
        raise DataError(path, f"file not found{hint} (bundled datasets: "
                              f"{', '.join(sorted(BUNDLED))})")
    check_file(path)
    return [path], path.stem, _sniff(path) if format == "auto" else format


def _sha256(paths: list[Path]) -> str:
    """:attr:`LoadedDataset.sha256` of a dataset's files."""
    hashes = [file_sha256(p) for p in paths]
    return hashes[0] if len(hashes) == 1 else hashlib.sha256(
        "\n".join(hashes).encode()).hexdigest()


def reopen_dataset(dataset: str, sha256: str, *, format: str = "auto",
                   subset: str | None = "Factuality", n: int = 4,
                   labelled: bool = True) -> LoadedDataset | None:
    """A dataset a run checked, opened again to read its items without checking every row
    first (what :func:`load_dataset` does): its files are hashed, and when their bytes are
    still the recorded ``sha256`` they are the rows that run checked. ``n_items`` and
    ``splits`` are then unknown (0 and {}): iterate to read the items.

    Returns:
        The dataset, or None when the bytes changed or the files are gone or unreadable.
    """
    try:
        paths, name, format = _locate(dataset, format)
        if _sha256(paths) != sha256:
            return None
    except (JuryboxError, OSError):
        return None
    return LoadedDataset(name=name, path=paths[0] if len(paths) == 1 else paths[0].parent,
                         format=format, sha256=sha256, task=TASKS[format], n_items=0,
                         splits={}, paths=tuple(paths), subset=subset, n_candidates=n,
                         labelled=labelled)


def load_listwise(dataset: str, **kwargs: object) -> LoadedDataset:
    """:func:`load_dataset`, requiring listwise items.

    Raises:
        DataError: as load_dataset, or the dataset is pairwise.
    """
    loaded = load_dataset(dataset, **kwargs)  # type: ignore[arg-type]
    if loaded.task != "listwise":
        raise DataError(loaded.path, f"{dataset!r} holds {loaded.task} items, not listwise")
    return loaded
