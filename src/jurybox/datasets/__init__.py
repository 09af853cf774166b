"""Loaders that turn dataset files into typed items."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = [
    "BUCKETS",
    "BUNDLED",
    "BUNDLED_ITEMS",
    "BUNDLED_OUTPUTS",
    "BUNDLED_RATINGS",
    "BUNDLED_RUBRICS",
    "FORMATS",
    "Item",
    "ItemSelection",
    "ListwiseItem",
    "LoadedDataset",
    "PairwiseItem",
    "RATING_COLUMNS",
    "RatedItem",
    "Rating",
    "RatingsTable",
    "RecordedPair",
    "Verdict",
    "bucket_of",
    "iter_judgebench",
    "iter_listwise_jsonl",
    "iter_rewardbench2",
    "iter_truthfulqa",
    "bundled_path",
    "file_sha256",
    "load_dataset",
    "load_judgebench",
    "load_judgebench_outputs",
    "load_listwise",
    "load_listwise_jsonl",
    "load_rated_items",
    "load_ratings",
    "load_rewardbench2",
    "load_truthfulqa",
    "resolve_bundled",
    "select_items",
]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .generic import iter_listwise_jsonl, load_listwise_jsonl
    from .items import ListwiseItem, PairwiseItem, Verdict
    from .judgebench import BUCKETS, bucket_of, iter_judgebench, load_judgebench
    from .judgebench_outputs import RecordedPair, load_judgebench_outputs
    from .ratings import RATING_COLUMNS, Rating, RatingsTable, load_ratings
    from .rubric_items import RatedItem, load_rated_items
    from .registry import (BUNDLED, BUNDLED_ITEMS, BUNDLED_OUTPUTS, BUNDLED_RATINGS,
                           BUNDLED_RUBRICS, FORMATS, Item, LoadedDataset, ItemSelection,
                           bundled_path, file_sha256, load_dataset, load_listwise, resolve_bundled,
                           select_items)
    from .rewardbench2 import iter_rewardbench2, load_rewardbench2
    from .truthfulqa import iter_truthfulqa, load_truthfulqa
