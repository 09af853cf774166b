"""JudgeBench pairs (Tan et al., 2024; ScalerLab/JudgeBench, MIT) as pairwise items.

The pairwise file format: JSON lines (or parquet rows), each an object with six required
fields (:data:`REQUIRED`):

- ``pair_id``: the pair's id, unique in the file (a non-blank string or an integer);
- ``question``: the question both responses answer (non-empty text);
- ``response_A``, ``response_B``: the two responses (non-empty text);
- ``label``: ``"A>B"`` or ``"B>A"``, which response is better;
- ``source``: where the pair comes from (non-empty text): ``mmlu-pro-<subject>``,
  ``livebench-reasoning``, ``livebench-math``, ``livecodebench`` or any name of yours;
  accuracy is reported per bucket, and the bucket folds every mmlu-pro subject into
  ``mmlu-pro``.

Other fields (JudgeBench's ``original_id``, ``response_model``) are ignored. A line missing
fields names all of them at once. One claude-split pair has two identical responses and a
strict label; it is kept (it is part of the published benchmark), and a judge can only tie or
guess on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import DataError
from .rows import iter_rows, require, require_all
from .validate import IdTracker, check_file, check_name, check_text
from .items import PairwiseItem

__all__ = ["iter_judgebench", "load_judgebench", "bucket_of", "BUCKETS", "REQUIRED"]

#: Fields every line of a pairwise (JudgeBench) file must have.
REQUIRED = ("pair_id", "question", "response_A", "response_B", "label", "source")

BUCKETS = ("mmlu-pro", "livebench-reasoning", "livebench-math", "livecodebench")
LABELS = ("A>B", "B>A")


def bucket_of(source: str) -> str:
    """The JudgeBench bucket of a source (``mmlu-pro-law`` -> ``mmlu-pro``)."""
    return "mmlu-pro" if source.startswith("mmlu-pro") else source


def load_judgebench(path: str | Path, *, split: str | None = None) -> list[PairwiseItem]:
    """All items of :func:`iter_judgebench`."""
    return list(iter_judgebench(path, split=split))


def iter_judgebench(path: str | Path, *, split: str | None = None) -> Iterator[PairwiseItem]:
    """Read a JudgeBench jsonl split, one line at a time.

    Args:
        path: the file.
        split: name recorded on each item (e.g. ``gpt``, ``claude``); default the file stem.

    Returns:
        Items with ``item_id`` = pair_id, ``label`` ``A>B`` or ``B>A``, ``bucket`` per
        :func:`bucket_of`.

    Raises:
        DataError: missing file or fields (all of a line's at once), a bad or empty pair_id,
            empty or bad text (NUL, lone surrogate) in question, responses or source, a label
            other than A>B / B>A, duplicate pair_id (file, line, field).
    """
    path = check_file(Path(path))
    split = split or path.stem
    ids = IdTracker(path, field="pair_id")
    for line, row in iter_rows(path):
        require_all(path, line, row, REQUIRED, "a JudgeBench pair needs")
        pair_id = check_name(path, line, "pair_id", require(path, line, row, "pair_id"))
        fields = {}
        for name in ("question", "response_A", "response_B", "source"):
            value = check_text(path, line, name, require(path, line, row, name, str))
            if not value.strip():
                raise DataError(path, "empty text", line=line, field=name)
            fields[name] = value
        label = require(path, line, row, "label", str)
        if label not in LABELS:
            raise DataError(path, f"label must be one of {', '.join(LABELS)}, got {label!r}",
                            line=line, field="label")
        ids.add(pair_id, line)
        yield PairwiseItem(item_id=pair_id, question=fields["question"],
                           response_a=fields["response_A"], response_b=fields["response_B"],
                           label=label, source=fields["source"],
                           bucket=bucket_of(fields["source"]), split=split)
