"""Rubrics: dimensions with integer scales, exclusion codes and gating (YAML files).

A rubric file::

    name: pbig-business-ideas
    description: ...
    dimensions:
      - name: specificity
        description: How concrete is the idea?
        scale: {min: 1, max: 4, levels: {1: vague, 2: ..., 3: ..., 4: ...}}
      - name: technical_validity
        description: ...
        scale: {min: 1, max: 4, levels: {...}}
        requires: {specificity: ">= 2"}
      - name: market_size
        scale: {min: 0, max: 3, levels: {...}}
        exclusion: {code: 0, meaning: not a B2B product}
        requires: {specificity: ">= 2"}

Gating (arXiv 2604.22517's staged rubric): a dimension is asked only when every prerequisite's
final score meets its threshold; otherwise it is *gated* (missing by design, reported apart
from failures). A prerequisite that is itself gated, abstained or failed gates its dependants.
An exclusion code (e.g. 0 = "not a B2B product") is a valid answer that statistics treat as
missing.

Strictness (a rubric decides what judges are asked and how answers are scored, so nothing in
it is guessed): ``min``, ``max`` and ``code`` are integers, not booleans or numeric text; a
scale has at most :data:`MAX_SCALE_LEVELS` levels (the answer schema enumerates every level);
an exclusion code lies outside the scale or is its lowest level (PBIG's 0 = "not a B2B
product" on 0-3); names are not blank; a key given twice in one YAML (or JSON) mapping is an
error, not last-wins.
"""

from __future__ import annotations

import operator
import re
from pathlib import Path
from typing import Annotated

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, StrictInt,
                      ValidationError, model_validator)

from ..datasets import BUNDLED_RUBRICS, resolve_bundled
from ..datasets.validate import text_problem
from ..fields import check_arguments
from ..errors import DataError
from ..yamlfile import read_yaml

__all__ = ["Scale", "Exclusion", "Dimension", "Rubric", "load_rubric", "Threshold",
           "MAX_RUBRIC_BYTES", "MAX_SCALE_LEVELS"]

#: Most levels a scale may have (min..max inclusive): 0-1000, or 0-100 with room to spare.
#: The judge's answer schema lists every level (``protocols.schemas.score_enum``), so a
#: scale of 10**8 levels would build a 10**8-entry enum before the first call.
MAX_SCALE_LEVELS = 1001
#: Largest rubric file read, in bytes (4 MiB; the bundled rubrics are under 3 kB): the read
#: stops there, whatever the file.
MAX_RUBRIC_BYTES = 4 << 20

_OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
        "==": operator.eq}
_RULE = re.compile(r"^\s*(>=|>|<=|<|==)\s*(-?\d+)\s*$")


def _sendable(text: str) -> str:
    problem = text_problem(text)
    if problem:
        raise ValueError(f"text {problem}")
    return text


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError(f"must not be empty or blank, got {text!r}")
    return text


#: Rubric text goes into judge prompts: no NUL character, no lone surrogate.
Text = Annotated[str, AfterValidator(_sendable)]
#: A rubric or dimension name: such text, not blank.
Name = Annotated[Text, AfterValidator(_not_blank)]


class Threshold(BaseModel):
    """A parsed gating rule such as ``>= 2``."""

    model_config = ConfigDict(frozen=True)
    op: str
    value: int

    @classmethod
    def parse(cls, text: str) -> Threshold:
        match = _RULE.match(str(text))
        if not match:
            raise ValueError(f"gating rule {text!r} must look like '>= 2' (operators "
                             f"{', '.join(_OPS)})")
        return cls(op=match.group(1), value=int(match.group(2)))

    def passes(self, score: float) -> bool:
        return bool(_OPS[self.op](score, self.value))

    def __str__(self) -> str:
        return f"{self.op} {self.value}"


class Scale(BaseModel):
    """An integer scale min..max (at most :data:`MAX_SCALE_LEVELS` levels) with a
    description per level; ``min`` and ``max`` are integers, not booleans or text."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    min: StrictInt
    max: StrictInt
    levels: dict[int, Text] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Scale:
        if self.min >= self.max:
            raise ValueError(f"scale min {self.min} must be below max {self.max}")
        if self.max - self.min + 1 > MAX_SCALE_LEVELS:
            raise ValueError(f"scale {self.min}-{self.max} has {self.max - self.min + 1} "
                             f"levels; at most {MAX_SCALE_LEVELS} allowed")
        outside = [k for k in self.levels if not self.min <= k <= self.max]
        if outside:
            raise ValueError(f"level(s) {outside} outside the scale {self.min}-{self.max}")
        return self

    def contains(self, score: float) -> bool:
        return float(score).is_integer() and self.min <= score <= self.max


class Exclusion(BaseModel):
    """A score that means "not applicable"; missing for ordinal statistics. ``code`` is an
    integer, outside its dimension's scale or at its lowest level (see :class:`Dimension`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    code: StrictInt
    meaning: Text


class Dimension(BaseModel):
    """One rubric dimension.

    The exclusion code must lie outside the scale (0 or 9 on 1-5) or be its lowest level
    (0 on PBIG's 0-3, where level 0 *is* "not a B2B product"). A code further inside (3 on
    1-5) is refused: genuine 3s would be read as "not applicable" and dropped.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: Name
    description: Text = ""
    scale: Scale
    exclusion: Exclusion | None = None
    requires: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Dimension:
        code, scale = self.exclusion.code if self.exclusion else None, self.scale
        if code is not None and scale.min < code <= scale.max:
            raise ValueError(f"exclusion code {code} of {self.name!r} is inside its scale "
                             f"{scale.min}-{scale.max}, so genuine {code}s would count as "
                             f"'not applicable'; use a code outside the scale (e.g. "
                             f"{scale.min - 1}) or its lowest level {scale.min}")
        return self

    def thresholds(self) -> dict[str, Threshold]:
        return {dim: Threshold.parse(rule) for dim, rule in self.requires.items()}

    def valid_answer(self, score: float) -> bool:
        """In the scale, or the exclusion code."""
        return self.scale.contains(score) or (self.exclusion is not None
                                              and score == self.exclusion.code)


class Rubric(BaseModel):
    """Dimensions in gating order (a dimension after all of its prerequisites).

    Raises (on construction, as pydantic ValidationError): duplicate names, a rule naming an
    unknown dimension or the dimension itself, a malformed rule, a threshold outside the
    prerequisite's scale, a gating cycle.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: Name
    description: Text = ""
    dimensions: tuple[Dimension, ...]

    @model_validator(mode="after")
    def _check(self) -> Rubric:
        names = [d.name for d in self.dimensions]
        if not names:
            raise ValueError("a rubric needs at least one dimension")
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate dimension names in {', '.join(names)}")
        by_name = {d.name: d for d in self.dimensions}
        for d in self.dimensions:
            for prereq, rule in d.requires.items():
                if prereq == d.name:
                    raise ValueError(f"dimension {d.name!r} requires itself")
                if prereq not in by_name:
                    raise ValueError(f"dimension {d.name!r} requires unknown dimension "
                                     f"{prereq!r}; known: {', '.join(names)}")
                threshold = Threshold.parse(rule)
                scale = by_name[prereq].scale
                # the ordering rules are monotone on min..max, so the two ends decide
                ends = [threshold.passes(scale.min), threshold.passes(scale.max)]
                some = (scale.min <= threshold.value <= scale.max if threshold.op == "=="
                        else any(ends))
                if not some or all(ends):
                    never = "can never pass" if not some else "always passes"
                    raise ValueError(f"{d.name!r} requires {prereq!r} {threshold}, which "
                                     f"{never} on {prereq!r}'s scale {scale.min}-{scale.max}")
        object.__setattr__(self, "dimensions", tuple(by_name[n] for n in _order(by_name)))
        return self

    def dimension(self, name: str) -> Dimension:
        for d in self.dimensions:
            if d.name == name:
                return d
        raise KeyError(f"no dimension {name!r} in rubric {self.name!r}")

    @property
    def names(self) -> list[str]:
        return [d.name for d in self.dimensions]

    def gate(self, name: str, finals: dict[str, float | None]) -> str | None:
        """Why ``name`` is gated given the final scores so far (None: ask it).

        ``finals`` maps a dimension to its final score, or None when it was gated,
        abstained or failed (which gates dependants too).
        """
        for prereq, threshold in self.dimension(name).thresholds().items():
            score = finals.get(prereq)
            if score is None:
                return f"{prereq} has no score"
            if not threshold.passes(score):
                return f"{prereq} = {score:g} fails {threshold}"
        return None


def _order(by_name: dict[str, Dimension]) -> list[str]:
    """Topological order (file order among equals); ValueError on a cycle."""
    done: list[str] = []
    visiting: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in done:
            return
        if name in visiting:
            cycle = path[path.index(name):] + [name]
            raise ValueError(f"gating cycle: {' -> '.join(cycle)}")
        visiting.add(name)
        for prereq in by_name[name].requires:
            visit(prereq, path + [name])
        visiting.discard(name)
        done.append(name)

    for name in by_name:
        visit(name, [])
    return done


def load_rubric(path: str | Path) -> Rubric:
    """Load and validate a rubric YAML file, or a bundled rubric by name (``"pbig"``,
    ``"squality"``, ``"offensiveness"``).

    The file is a regular file (not a device or FIFO) of at most :data:`MAX_RUBRIC_BYTES`
    bytes, UTF-8 (a byte-order mark is allowed); JSON, being YAML, works too. Texts
    (names, descriptions, level descriptions) must not hold NUL characters or lone
    surrogates: they go into judge prompts.

    Raises:
        DataError: missing or unreadable file, not a regular file, larger than the limit
            (naming its size), bytes that are not UTF-8 (naming the line),
            bad YAML (also: a key given twice in one mapping, nested too deeply, or a value
            YAML cannot build, such as an integer of more than 4300 digits), or an invalid
            rubric (the message names the field): see the module docstring for the rules.
    """
    check_arguments("load_rubric", path=(path, (str, Path)))
    path = Path(resolve_bundled(path, BUNDLED_RUBRICS))
    data = read_yaml(path, MAX_RUBRIC_BYTES, "rubric")[0]
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or None
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] != "value_error" and "input" in first:  # a type error: show the value
            message += f", got {first['input']!r:.80}"
        raise DataError(path, message, field=where) from None
