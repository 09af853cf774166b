"""JSON schemas of judge answers, one per protocol family.

A schema is help for the server, never trust: parsing validates every answer whatever the
server enforced. The schemas are written for the common grammar engines (llama.cpp, vLLM's
guided decoding, OpenAI strict mode): integer ranges are ``enum`` lists, because llama.cpp's
grammar ignores ``minimum``/``maximum`` on integers but honours an enum (measured on
llama-cpp-python 0.3.36: a 0-100 range let the server write 123456789); every object lists
all its properties as required and forbids others (OpenAI strict mode needs both).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

__all__ = ["listwise_schema", "verdict_schema", "rubric_schema", "score_enum"]

JSONSchema = dict[str, Any]


def score_enum(low: int, high: int, *extra: int) -> JSONSchema:
    """An integer in ``low..high`` (plus ``extra`` codes) as an enum, which grammars honour."""
    return {"type": "integer", "enum": sorted({*range(low, high + 1), *extra})}


def _object(properties: dict[str, JSONSchema]) -> JSONSchema:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


def listwise_schema(labels: Sequence[str]) -> JSONSchema:
    """Listwise answer: one object per shown label (score 0-100 and the three flags), a
    ranking of exactly the shown labels, a rationale. The same dict for the same labels
    (built once per candidate count): treat it as read-only."""
    return _listwise_schema(tuple(labels))


@cache
def _listwise_schema(labels: tuple[str, ...]) -> JSONSchema:
    candidate = _object({"score": score_enum(0, 100),
                         "major_factual_error": {"type": "boolean"},
                         "hallucinated_specificity": {"type": "boolean"},
                         "calibrated_uncertainty": {"type": "boolean"}})
    return _object({
        "candidates": _object({label: candidate for label in labels}),
        "ranking": {"type": "array", "items": {"type": "string", "enum": list(labels)},
                    "minItems": len(labels), "maxItems": len(labels)},
        "rationale": {"type": "string"}})


def verdict_schema(keyed: bool = False) -> JSONSchema:
    """Pairwise JSON verdict: ``{"verdict": "A" | "B" | "tie", "rationale"}``; the keyed judge
    writes its own ``solution`` first (properties are generated in order)."""
    fields: dict[str, JSONSchema] = {"solution": {"type": "string"}} if keyed else {}
    return _object({**fields, "verdict": {"type": "string", "enum": ["A", "B", "tie"]},
                    "rationale": {"type": "string"}})


def rubric_schema(low: int, high: int, exclusion: int | None = None) -> JSONSchema:
    """Rubric answer: a score on the dimension's scale (or its exclusion code), confidence
    0-100, reasoning."""
    extra = () if exclusion is None else (exclusion,)
    return _object({"score": score_enum(low, high, *extra), "confidence": score_enum(0, 100),
                    "reasoning": {"type": "string"}})
