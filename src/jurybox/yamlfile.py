"""YAML files read safely, with line numbers for messages: the rubric, jury and endpoints
files.

:func:`read_yaml` reads a bounded, UTF-8 file with PyYAML's safe loader, refusing a key given
twice in one mapping; it returns the value and its node tree, in which :func:`node_line` finds
the line of any key or list entry, so a message can name the line a bad value is on.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from .datasets.validate import read_bounded
from .errors import DataError

__all__ = ["node_line", "read_yaml"]


class _RepeatedKey(yaml.constructor.ConstructorError):
    """A key given twice in one YAML mapping."""

    def __init__(self, key: object, node: yaml.Node, key_node: yaml.Node) -> None:
        super().__init__("while constructing a mapping", node.start_mark,
                         f"key {key!r:.80} appears twice in one mapping; give each key once",
                         key_node.start_mark)
        self.key = str(key)[:80]


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in one mapping (PyYAML keeps the
    last). Keys merged in with ``<<`` may still be overridden, as YAML intends."""

    def construct_mapping(self, node: yaml.MappingNode,
                          deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in seen
            except TypeError:  # an unhashable key: the base class says so
                continue
            if repeated:
                raise _RepeatedKey(key, node, key_node)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: Path, limit: int, what: str) -> tuple[Any, Any]:
    """A YAML file read safely: (the value, its node tree for line numbers).

    Bounded (``limit`` bytes, a regular file only), UTF-8 (a BOM allowed), a key given twice
    in one mapping refused; what the rubric and the jury files share.

    Raises:
        DataError: the file cannot be read, is too large, is not UTF-8 (naming the line),
            is not YAML (naming the line, and the key given twice), is nested too deeply,
            holds a value YAML cannot build (an integer of more than 4300 digits), or
            aliases that expand to more than ``limit`` values (an alias bomb).
    """
    raw = read_bounded(path, limit, what)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                        line=raw.count(b"\n", 0, exc.start) + 1) from None
    try:
        node = yaml.compose(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
        data: Any = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise DataError(path, f"invalid YAML: {getattr(exc, 'problem', exc)}",
                        line=mark.line + 1 if mark else None,
                        field=exc.key if isinstance(exc, _RepeatedKey) else None) from None
    except RecursionError:
        raise DataError(path, "invalid YAML: nested too deeply to read") from None
    except ValueError as exc:  # a scalar YAML resolves but cannot build (a huge int, a date)
        raise DataError(path, f"invalid YAML value: {exc}") from None
    if node is not None and _expanded_size(node, limit) > limit:
        raise DataError(path, f"invalid YAML: its aliases (*name) expand to more than "
                        f"{limit:,} values; write the values out (an alias repeats a value, "
                        f"it must not multiply the file)")
    return data, node


def _expanded_size(root: yaml.Node, cap: int) -> int:
    """The values (nodes) ``root`` holds with every alias expanded, counted up to ``cap + 1``
    (a node reached twice counts twice; a node inside itself, once): what a reader walking
    the value visits. Without aliases it is below the file's size in bytes; a few lines of
    nested aliases ("billion laughs") reach billions, which a message showing the value,
    or any walk of it, would never finish."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()  # nodes on the current path (a recursive alias counts once)
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        children = _children(node)
        if finished:
            open_.discard(id(node))
            sizes[id(node)] = min(cap + 1, 1 + sum(sizes.get(id(c), 1) for c in children))
        elif id(node) not in sizes and id(node) not in open_:
            open_.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in children
                         if id(c) not in sizes and id(c) not in open_)
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def node_line(node: Any, loc: Sequence[Any]) -> int | None:
    """The 1-based line of the YAML node at ``loc`` (keys and list indices), or of the
    deepest node on the way there."""
    line = None
    for part in loc:
        if node is None:
            break
        line = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            nxt = None
            for key, value in node.value:
                if key.value == str(part):
                    line, nxt = key.start_mark.line + 1, value
                    break
            node = nxt
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) \
                and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            node = None
    return line
