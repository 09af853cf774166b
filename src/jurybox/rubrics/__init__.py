"""Rubrics: dimensions, scales, exclusion codes and gating."""

from .model import MAX_SCALE_LEVELS, Dimension, Exclusion, Rubric, Scale, Threshold, load_rubric

__all__ = ["Dimension", "Exclusion", "Rubric", "Scale", "Threshold", "load_rubric",
           "MAX_SCALE_LEVELS"]
