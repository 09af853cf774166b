"""The import graph of a package tree, for tests/test_layering.py: every import of every
module (at any depth, inside functions too; ``if TYPE_CHECKING:`` blocks left out), with
``from package import name`` resolved through the package's lazy export map
(``lazy_exports(__name__, {name: ".module"})``) to the module that defines the name."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    """``source`` imports ``target`` (module names) at ``path``:``line``."""

    source: str
    target: str
    path: Path
    line: int


def _modules(root: Path, package: str) -> dict[str, Path]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package, *parts])] = path
    return out


def _lazy_map(tree: ast.Module) -> dict[str, str]:
    """A package __init__'s lazy exports: name -> relative module (``".engine"``), from its
    ``if TYPE_CHECKING:`` imports (what ``lazy_exports(__name__)`` reads), or from an explicit
    ``lazy_exports(__name__, {name: ".module"})`` map."""
    out: dict[str, str] = {}
    for node in tree.body:
        if _type_checking(node):
            for item in node.body:  # type: ignore[attr-defined]
                if isinstance(item, ast.ImportFrom) and item.level == 1 and item.module:
                    out.update({a.asname or a.name: "." + item.module for a in item.names})
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                "lazy_exports", "_lazy_exports") and len(node.args) == 2 \
                and isinstance(node.args[1], ast.Dict):
            out.update({k.value: v.value.partition(":")[0] for k, v in zip(
                node.args[1].keys, node.args[1].values)
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)})
    return out


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        getattr(test, "id", None) == "TYPE_CHECKING" or getattr(test, "attr", None)
        == "TYPE_CHECKING")


def _walk(node: ast.AST):
    for child in ast.iter_child_nodes(node):
        if _type_checking(child):
            continue
        yield child
        yield from _walk(child)


def imports(root: str | Path, package: str) -> list[Import]:
    """Every import between the modules of the package ``package`` rooted at ``root``."""
    root = Path(root)
    modules = _modules(root, package)
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in modules.items()}
    lazy = {name: _lazy_map(tree) for name, tree in trees.items()
            if modules[name].name == "__init__.py"}

    def resolve(base: str, name: str | None) -> str | None:
        """The module ``from base import name`` reads ``name`` from."""
        if name is not None and f"{base}.{name}" in modules:
            return f"{base}.{name}"
        if name is not None and name in lazy.get(base, {}):
            where = lazy[base][name]
            return base + where if where.startswith(".") else where
        return base if base in modules else None

    found = []
    for source, tree in trees.items():
        is_package = modules[source].name == "__init__.py"
        here = source.split(".") if is_package else source.split(".")[:-1]
        for node in _walk(tree):
            targets: list[str | None] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = here[:len(here) - node.level + 1]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                if not (base == package or base.startswith(package + ".")):
                    continue
                targets = [resolve(base, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name in modules]
            for target in targets:
                if target is not None and target != source:
                    found.append(Import(source, target, modules[source], node.lineno))
    return found


def cycles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out
