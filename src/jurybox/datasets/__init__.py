"""Loaders that turn dataset files into typed items."""

from .generic import load_listwise_jsonl
from .items import ListwiseItem
from .registry import BUNDLED, LoadedDataset, bundled_path, file_sha256, load_listwise
from .rewardbench2 import load_rewardbench2
from .truthfulqa import load_truthfulqa

__all__ = [
    "BUNDLED",
    "ListwiseItem",
    "LoadedDataset",
    "bundled_path",
    "file_sha256",
    "load_listwise",
    "load_listwise_jsonl",
    "load_rewardbench2",
    "load_truthfulqa",
]
