"""Loaders that turn dataset files into typed items."""

from .generic import load_listwise_jsonl
from .items import ListwiseItem, PairwiseItem, Verdict
from .judgebench import BUCKETS, bucket_of, load_judgebench
from .judgebench_outputs import RecordedPair, load_judgebench_outputs
from .ratings import RATING_COLUMNS, Rating, RatingsTable, load_ratings
from .rubric_items import RatedItem, load_rated_items
from .registry import (BUNDLED, BUNDLED_ITEMS, BUNDLED_OUTPUTS, BUNDLED_RATINGS,
                       BUNDLED_RUBRICS, FORMATS, LoadedDataset, bundled_path, file_sha256,
                       load_dataset, load_listwise)
from .rewardbench2 import load_rewardbench2
from .truthfulqa import load_truthfulqa

__all__ = [
    "BUCKETS",
    "BUNDLED",
    "BUNDLED_ITEMS",
    "BUNDLED_OUTPUTS",
    "BUNDLED_RATINGS",
    "BUNDLED_RUBRICS",
    "FORMATS",
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
]
