"""Systems' outputs to rank: one prompt and each system's output to it.

A JSON-lines (or CSV, parquet) file in one of two shapes, which may not be mixed:

- wide, one line a prompt: ``{"id": "p1", "prompt": "...", "outputs": {"sys-a": "...",
  "sys-b": "..."}}``;
- long, one line a (prompt, system): ``{"id": "p1", "prompt": "...", "system": "sys-a",
  "output": "..."}`` (the prompt repeated, or given on the prompt's first line only).

A system may lack an output for some prompts: it is paired where it has one. Optional
``correct`` says which outputs are right where that is known (a benchmark's gold): wide, the
list of the systems whose output is right (``"correct": ["sys-a"]``); long, ``true`` or
``false`` on the line. A pair in which exactly one output is right is labelled, so the judge
run reports the judge's accuracy on those pairs (and the simulated judge, which is told the
gold, judges them as it judges labelled items). Every check is made when the file is read,
before any model call (file, line and field named).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..datasets.rows import iter_rows
from ..datasets.validate import check_file, check_name, check_text
from ..errors import DataError, did_you_mean

__all__ = ["SystemOutputs", "read_outputs", "looks_like_outputs"]

_WIDE = ("id", "prompt", "outputs")
_LONG = ("id", "prompt", "system", "output")
_OPTIONAL = ("meta", "correct")


@dataclass(frozen=True)
class SystemOutputs:
    """What each system answered to each prompt.

    Attributes:
        prompts: prompt id -> the prompt's text, in file order.
        outputs: prompt id -> {system name -> its output}, the systems in file order.
        systems: every system's name, in order of first appearance.
        source: the file read.
        correct: prompt id -> the systems whose output is right (only prompts that say).
    """

    prompts: dict[str, str]
    outputs: dict[str, dict[str, str]]
    systems: tuple[str, ...]
    source: str
    correct: dict[str, frozenset[str]] = field(default_factory=dict)


def looks_like_outputs(path: Path) -> bool:
    """True when the first line of ``path`` has ``outputs`` or ``system`` and ``output``
    (the shapes :func:`read_outputs` reads). Never raises: the reader says what is wrong."""
    try:
        for _, row in iter_rows(path):
            return "outputs" in row or {"system", "output"} <= set(row)
    except (DataError, OSError):
        return False
    return False


def read_outputs(path: str | Path) -> SystemOutputs:
    """Read a systems' outputs file (shapes: the module docstring).

    Raises:
        DataError: a missing file, bad JSON, a missing or unknown key, a shape mixed with the
            other, a prompt whose text differs between its lines, a system's second output
            to one prompt, fewer than two systems (file, line, field).
    """
    path = check_file(Path(path))
    prompts: dict[str, str] = {}
    outputs: dict[str, dict[str, str]] = {}
    systems: dict[str, None] = {}
    correct: dict[str, set[str]] = {}
    shape: str | None = None
    for line, row in iter_rows(path):
        here = "wide" if "outputs" in row else "long"
        shape = shape or here
        keys = _WIDE if shape == "wide" else _LONG
        if here != shape:
            raise DataError(path, f"a {here} line in a {shape} file: use one shape (wide: "
                            f"{', '.join(_WIDE)}; long: {', '.join(_LONG)})", line=line)
        for key in row:
            if key not in keys and key not in _OPTIONAL:
                raise DataError(path, f"unknown key{did_you_mean(key, keys) or ';'} a {shape} "
                                f"line holds {', '.join(keys)}", line=line, field=str(key)[:80])
        prompt_id = check_name(path, line, "id", row.get("id"))
        if "prompt" in row:
            text = check_text(path, line, "prompt", row["prompt"])
            if prompts.setdefault(prompt_id, text) != text:
                raise DataError(path, f"prompt {prompt_id!r} has another text than on its "
                                f"first line", line=line, field="prompt")
        elif prompt_id not in prompts:
            raise DataError(path, f"missing 'prompt' (prompt {prompt_id!r} is first seen "
                            f"here)", line=line, field="prompt")
        given = outputs.setdefault(prompt_id, {})
        if shape == "wide":
            if "outputs" not in row or not isinstance(row["outputs"], dict) or not row["outputs"]:
                raise DataError(path, "must be an object: system name -> its output",
                                line=line, field="outputs")
            pairs = list(row["outputs"].items())
            field_of = "outputs.{}"
        else:
            for key in ("system", "output"):
                if key not in row:
                    raise DataError(path, f"missing {key!r}", line=line, field=key)
            pairs = [(row["system"], row["output"])]
            field_of = "output"
        for name, output in pairs:
            system = check_name(path, line, "system" if shape == "long" else "outputs", name)
            where = field_of.format(system)[:120]
            if system in given:
                raise DataError(path, f"a second output of {system!r} to prompt "
                                f"{prompt_id!r}", line=line, field=where)
            given[system] = check_text(path, line, where, output)
            systems.setdefault(system)
        if "correct" in row:
            _correct(path, line, row["correct"], shape, [str(n) for n, _ in pairs],
                     correct.setdefault(prompt_id, set()))
    if len(systems) < 2:
        raise DataError(path, f"{len(systems)} system(s): ranking needs outputs of at least "
                        f"two")
    return SystemOutputs(prompts, outputs, tuple(systems), str(path),
                         {p: frozenset(s) for p, s in correct.items()})


def _correct(path: Path, line: int, value: object, shape: str, names: list[str],
             into: set[str]) -> None:
    """A line's ``correct``: wide, a list of its systems; long, true or false."""
    if shape == "long":
        if not isinstance(value, bool):
            raise DataError(path, f"must be true or false (is this output right?), got "
                            f"{type(value).__name__}", line=line, field="correct")
        if value:
            into.update(names)
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(path, "must be a list of the systems whose output is right",
                        line=line, field="correct")
    for name in value:
        if name not in names:
            raise DataError(path, f"names {name!r}, which has no output on this line"
                            f"{did_you_mean(name, names) or ''}", line=line, field="correct")
    into.update(value)
