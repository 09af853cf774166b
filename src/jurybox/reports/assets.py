"""The files the pages inline from ``reports/templates`` (CSS and scripts): read once per
page, never linked, so every page stays self-contained. A light module: no templates engine,
no statistics."""

from __future__ import annotations

__all__ = ["asset", "page_script"]


def asset(name: str) -> str:
    """The text of ``templates/<name>`` (UTF-8), from the installed package."""
    from importlib.resources import files

    return (files("jurybox.reports") / "templates" / name).read_text(encoding="utf-8")


def page_script(name: str) -> str:
    """A page's script: the shared error display (``errors.js``) and then ``name``."""
    return asset("errors.js") + asset(name)
