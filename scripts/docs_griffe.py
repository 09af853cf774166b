"""A griffe extension for the documentation site (``mkdocs.yml``: mkdocstrings ``extensions``).

jurybox's docstrings name other objects with Sphinx roles (``:func:`judge```,
``:class:`~jurybox.stats.ConfidenceInterval```), which Markdown would show as written. This
extension turns each role into inline code of the name it gives (``judge``,
``ConfidenceInterval``) as griffe loads the docstring; the source is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|exc|obj):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    """``:role:`name``` -> ```name```; ``:role:`~a.b.name``` -> ```name``` (Sphinx's tilde).

    >>> plain_roles("see :func:`judge` and :class:`~jurybox.stats.ConfidenceInterval`")
    'see `judge` and `ConfidenceInterval`'
    """
    return ROLE.sub(lambda m: f"`{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}`", text)


class SphinxRolesAsCode(griffe.Extension):
    """Rewrites Sphinx roles in every docstring griffe loads into inline code."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
