"""The layering of jurybox's packages (docs/architecture.md): no module imports a module of a
higher layer, and no import circle, at any depth (imports inside functions count; only
``if TYPE_CHECKING:`` blocks are left out). ``from package import name`` counts as importing
the module the package's lazy export map names for it (tests/layering.py)."""

from pathlib import Path

import pytest

from .layering import cycles, imports

SRC = Path(__file__).resolve().parents[1] / "src" / "jurybox"

#: Low to high. A module may import modules of its own layer or lower ones. A module is in
#: the layer of the longest prefix of its name listed here. The same table is in
#: docs/architecture.md.
LAYERS: tuple[tuple[str, ...], ...] = (
    # 0 foundations: no jurybox import but each other
    ("_version", "_lazy", "_context", "errors", "limits", "fields", "terminal"),
    # 1 data, numbers, text, endpoints
    ("datasets", "stats", "ranking", "parsing", "providers", "yamlfile"),
    # 2 what a call needs: cache, prices, rubric files, the runner
    ("cache", "cost", "rubrics", "runner"),
    # 3 protocols (prompts, decisions) and the simulated judge that reads their prompts
    ("protocols", "sim"),
    # 4 the run directory and provider batches
    ("rundir", "batch"),
    # 5 rendering one run directory: report.html, charts, exports
    ("reports",),
    # 6 the engine under every judging command
    ("run",),
    # 7 executor plugins (run.executor finds them by entry point, never by import)
    ("ray",),
    # 8 the verbs' packages
    ("compare", "judging", "personalize", "agreement", "jury", "recorded", "leaderboard"),
    # 9 views over many runs of every kind, and Ray Data over the judge verb
    ("reports.index_page", "ray.dataset"),
    # 10 the public layer, and the root that re-exports it
    ("api", ""),
    # 11 the command line
    ("cli", "__main__"),
)


def layer_of(module: str, layers=LAYERS, package: str = "jurybox") -> int:
    """The layer of ``module`` (a dotted name under ``package``).

    Raises:
        KeyError: no prefix of it is listed.
    """
    rest = module[len(package):].lstrip(".")
    best, found = -1, None
    for level, names in enumerate(layers):
        for name in names:
            if (rest == name or rest.startswith(name + ".") or name == "") and len(name) > best:
                best, found = len(name), level
    if found is None:
        raise KeyError(module)
    return found


def violations(edges, layers=LAYERS, package: str = "jurybox") -> list[str]:
    """One line per import of a higher layer: ``file:line: source (layer i) imports target
    (layer j)``, sorted."""
    out = set()
    for e in edges:
        low, high = layer_of(e.source, layers, package), layer_of(e.target, layers, package)
        if low < high:
            out.add(f"{e.path.name}:{e.line}: {e.source} (layer {low}) imports {e.target} "
                    f"(layer {high})")
    return sorted(out)


@pytest.fixture(scope="module")
def edges():
    return imports(SRC, "jurybox")


def test_every_module_has_a_layer(edges):
    modules = {e.source for e in edges} | {e.target for e in edges}
    assert len(modules) > 150
    for module in modules:
        layer_of(module)  # KeyError names the module without a layer


def test_no_module_imports_a_higher_layer(edges):
    assert violations(edges) == []


def test_no_import_circle(edges):
    assert cycles(edges) == []


def test_the_checker_finds_an_upward_import_and_a_circle(tmp_path):
    # a tiny tree: low imports high (upward, inside a function), high and mid import each
    # other (a circle through a lazy export map); TYPE_CHECKING imports do not count
    root = tmp_path / "pkg"
    for folder in ("low", "mid", "high"):
        (root / folder).mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "low" / "__init__.py").write_text("")
    (root / "low" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..mid import thing\n"
        "def f():\n    from ..high.c import g\n    return g\n")
    (root / "mid" / "__init__.py").write_text(
        "import typing\nfrom .._lazy import lazy_exports as _lazy_exports\n"
        "__getattr__, __dir__ = _lazy_exports(__name__)\n"
        "if typing.TYPE_CHECKING:\n    from .b import thing\n")
    (root / "mid" / "b.py").write_text("from ..high.c import g\nthing = g\n")
    (root / "high" / "__init__.py").write_text("")
    (root / "high" / "c.py").write_text("def g():\n    from ..mid import thing\n    return thing\n")
    found = imports(root, "pkg")
    pairs = {(e.source, e.target) for e in found}
    assert ("pkg.low.a", "pkg.mid") not in pairs and ("pkg.low.a", "pkg.mid.b") not in pairs
    assert {("pkg.low.a", "pkg.high.c"), ("pkg.mid.b", "pkg.high.c"),
            ("pkg.high.c", "pkg.mid.b")} <= pairs
    layers = (("low",), ("mid",), ("high",), ("",))
    assert violations(found, layers, "pkg") == [
        "a.py:5: pkg.low.a (layer 0) imports pkg.high.c (layer 2)",
        "b.py:1: pkg.mid.b (layer 1) imports pkg.high.c (layer 2)"]
    assert cycles(found) == [["pkg.high.c", "pkg.mid.b"]]


#: The most lines a module of src/ may have (issue 30: modules of one job, under 400 lines).
MAX_MODULE_LINES = 400


def test_no_module_is_over_400_lines():
    # the first-shown Bradley-Terry term took ranking/bradley_terry.py to 412 lines unnoticed
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}, f"modules over {MAX_MODULE_LINES} lines: {long}"
