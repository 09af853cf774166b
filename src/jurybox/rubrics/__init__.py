"""Rubrics: dimensions, scales, exclusion codes and gating."""

from .model import Dimension, Exclusion, Rubric, Scale, Threshold, load_rubric

__all__ = ["Dimension", "Exclusion", "Rubric", "Scale", "Threshold", "load_rubric"]
