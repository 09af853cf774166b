"""Rubrics: dimensions, scales, exclusion codes and gating."""

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

__all__ = ["Dimension", "Exclusion", "Rubric", "Scale", "Threshold", "load_rubric",
           "MAX_SCALE_LEVELS"]

__getattr__, __dir__ = _lazy_exports(__name__)

if _typing.TYPE_CHECKING:
    from .model import MAX_SCALE_LEVELS, Dimension, Exclusion, Rubric, Scale, Threshold, load_rubric
