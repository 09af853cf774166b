"""MkDocs hooks for the documentation site (``mkdocs.yml``: ``hooks:``).

The CLI reference is generated from the typer app at build time: the marker
``<!-- jurybox-cli-reference -->`` in a page is replaced by the Markdown that typer's own
``typer utils docs`` writes (``typer.cli.get_docs_for_click`` on
``typer.main.get_command(app)``), with its headings moved one level down so the page keeps its
own title. A new command appears without editing the page. The build fails (a ``PluginError``)
when the marker is missing from the page that should hold it, or when a command of the app is
absent from the generated text, so the reference cannot go quietly empty.

The Python API's front page lists the root's public names (``jurybox.__all__``) with the first
paragraph of each docstring, each linked to the subpackage page that documents it
(``reference/python/<subpackage>.md``, whose ``__all__`` holds the name); a root name that no
such page documents fails the build.

Why not a plugin: typer 0.29 ships its own copy of click (``typer._click``), so mkdocs-click's
``isinstance(param, click.Option)`` checks drop every option, and mkdocs-typer2's native engine
stops on a ``TyperOption`` without ``.type``; its legacy engine runs this same typer function in
a subprocess but renders the result without fenced code blocks, drops ``<...>`` metavars as
HTML tags, and writes nothing when the subprocess fails.
"""

from __future__ import annotations

import re
from typing import Any

from mkdocs.exceptions import PluginError

CLI_MARKER = "<!-- jurybox-cli-reference -->"
CLI_PAGE = "reference/cli.md"
API_MARKER = "<!-- jurybox-api-index -->"
API_DIR = "reference/python"
API_PAGE = f"{API_DIR}/index.md"


def cli_reference() -> str:
    """The Markdown reference of every ``jurybox`` command, headings from ``##`` down.

    Raises:
        PluginError: a command of the app is missing from the generated text.
    """
    import typer
    import typer.cli
    import typer.main

    from jurybox.cli import app

    command = typer.main.get_command(app)
    ctx = typer.Context(command, info_name="jurybox")
    text = typer.cli.get_docs_for_click(obj=command, ctx=ctx, name="jurybox")
    text = re.sub(r"^(#+) ", r"#\1 ", text, flags=re.M)
    names = command.list_commands(ctx)  # type: ignore[attr-defined]
    missing = [n for n in names if f"## `jurybox {n}`" not in text]
    if not names or missing:
        raise PluginError(f"CLI reference: commands {missing or names} not generated")
    return text


def _summary(docstring: str) -> str:
    """The first paragraph of a docstring on one line, fit for a table cell."""
    first = " ".join(docstring.split("\n\n")[0].split())
    first = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", first)  # Sphinx roles -> code
    return first.replace("|", "\\|")


def shadowed(sub: str) -> dict[str, str]:
    """Public names of ``jurybox.<sub>`` that share their name with one of its submodules.

    ``jurybox.stats.accuracy`` is both a module and the function the package exports; the
    documentation reader sees the module, so such a function is documented (and linked) under
    its full path, e.g. ``jurybox.stats.accuracy.accuracy``.

    Returns:
        name -> the object's full dotted path.
    """
    import importlib
    import importlib.util

    package = importlib.import_module(f"jurybox.{sub}")
    paths: dict[str, str] = {}
    if not hasattr(package, "__path__"):  # a module such as jurybox.errors has no submodules
        return paths
    for name in getattr(package, "__all__", ()):
        if name.isidentifier() and importlib.util.find_spec(f"jurybox.{sub}.{name}") is not None:
            paths[name] = f"{getattr(package, name).__module__}.{name}"
    return paths


def api_index(subpackages: list[str], src: str) -> str:
    """The root's public names (``jurybox.__all__``) grouped by the subpackage documenting them.

    Each name links to its entry on that subpackage's page, with the first paragraph of its
    docstring as griffe (the reader mkdocstrings uses) reads it, attribute docstrings included.

    Args:
        subpackages: the subpackages that have a reference page.
        src: the folder holding the ``jurybox`` package.

    Raises:
        PluginError: a root name that none of ``subpackages`` exports.
    """
    import importlib

    import griffe

    import jurybox

    tree = griffe.load("jurybox", search_paths=[src])
    exports = {sub: set(getattr(importlib.import_module(f"jurybox.{sub}"), "__all__", ()))
               for sub in subpackages}
    groups: dict[str, list[str]] = {sub: [] for sub in subpackages}
    orphans = []
    for name in sorted(n for n in jurybox.__all__ if not n.startswith("_")):
        module = getattr(getattr(jurybox, name), "__module__", "") or ""
        pages = [s for s in subpackages if name in exports[s]]
        home = [s for s in pages
                if module == f"jurybox.{s}" or module.startswith(f"jurybox.{s}.")]
        sub = (home or pages or [None])[0]
        if sub is None:
            orphans.append(name)
            continue
        target = shadowed(sub).get(name, f"jurybox.{sub}.{name}")
        docstring = tree[target.removeprefix("jurybox.")].docstring
        summary = _summary(docstring.value if docstring else "")
        groups[sub].append(f"| [`{name}`][{target}] | {summary} |")
    if orphans:
        raise PluginError(f"{API_PAGE}: root names {orphans} are on no subpackage page")
    parts = []
    for sub, rows in groups.items():
        if rows:
            parts.append(f"## [`jurybox.{sub}`]({sub}.md)\n\n| name | what |\n|---|---|\n"
                         + "\n".join(rows) + "\n")
    return "\n".join(parts)


def _nav_pages(nav: Any) -> list[str]:
    """Every page path in mkdocs.yml's ``nav``, in order."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in _nav_pages(value)]
    if isinstance(nav, list):
        return [p for entry in nav for p in _nav_pages(entry)]
    return []


def on_page_markdown(markdown: str, page: Any, config: Any, **_: Any) -> str:
    """Fill the CLI reference and the Python API index; other pages are left as they are."""
    from pathlib import Path

    uri = page.file.src_uri
    if uri == CLI_PAGE:
        if CLI_MARKER not in markdown:
            raise PluginError(f"{CLI_PAGE}: the marker {CLI_MARKER} is missing")
        return markdown.replace(CLI_MARKER, cli_reference())
    if uri == API_PAGE:
        if API_MARKER not in markdown:
            raise PluginError(f"{API_PAGE}: the marker {API_MARKER} is missing")
        subpackages = [Path(uri).stem for uri in _nav_pages(config["nav"])
                       if uri.startswith(f"{API_DIR}/") and uri != API_PAGE]
        src = str(Path(config["config_file_path"]).parent / "src")
        return markdown.replace(API_MARKER, api_index(subpackages, src))
    if uri.startswith(f"{API_DIR}/"):
        sub = uri.removeprefix(f"{API_DIR}/").removesuffix(".md")
        for path in shadowed(sub).values():
            markdown += f"\n::: {path}\n    options:\n      show_root_heading: true\n"
    return markdown
