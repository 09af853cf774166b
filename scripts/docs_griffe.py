"""A griffe extension for the documentation site (``mkdocs.yml``: mkdocstrings ``extensions``).

Two rewrites of every docstring as griffe loads it (the source is left as it is):

- jurybox's docstrings name other objects with Sphinx roles (``:func:`judge```,
  ``:class:`~jurybox.stats.ConfidenceInterval```), which Markdown would show as written; each
  role becomes inline code of the name it gives (``judge``, ``ConfidenceInterval``).
- mkdocstrings-python's summary tables (``summary: true``) show a docstring's first *line*
  (``docstring.value.split("\\n", 1)[0]``), so a first sentence wrapped over two lines was cut
  mid-sentence. The prose lines that open the first paragraph are joined into one line, so the
  summary is the whole first paragraph. The rendered docstring does not change (Markdown reads
  a paragraph's line breaks as spaces), except that a wrapped line opening with ">" (">= 0")
  stays text instead of becoming a quote.
- A doctest outside an examples section (``>>>`` lines at the left margin) would render as
  quotes nested three deep; it becomes a ``pycon`` code block. In a docstring griffe reads as
  numpy style, the sections (a header over a ``----`` line) are left to griffe, whose Examples
  section already shows doctests.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|exc|obj):`(~?)([^`]+)`")
# a line that is not plain paragraph text: a list item, a doctest, a fence, a table row, a
# heading, a reST directive or an admonition. A line opening with ">" (">= 0") is text: Markdown
# would have made it a quote, which no docstring here means
STRUCTURE = re.compile(r"[-*+] |\d+[.)] |>>>|```|~~~|\||#|\.\. |!!!|\?\?\?")
# a Google section header ("Args:", "Raises:"), when an indented line follows (griffe's rule)
HEADER = re.compile(r"[A-Za-z][\w ]*:\s*$")
UNDERLINE = re.compile(r"\s*(-{3,}|={3,})\s*$")  # a numpy-style section header's underline


def plain_roles(text: str) -> str:
    """``:role:`name``` -> ```name```; ``:role:`~a.b.name``` -> ```name``` (Sphinx's tilde).

    >>> plain_roles("see :func:`judge` and :class:`~jurybox.stats.ConfidenceInterval`")
    'see `judge` and `ConfidenceInterval`'
    """
    return ROLE.sub(lambda m: f"`{m[2].rsplit('.', 1)[-1] if m[1] else m[2]}`", text)


def _prose(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` continues the opening paragraph as plain text."""
    line = lines[i]
    if not line.strip() or line[0].isspace() or STRUCTURE.match(line):
        return False
    following = lines[i + 1] if i + 1 < len(lines) else ""
    if UNDERLINE.match(following):
        return False  # a numpy section header ("Parameters" over "----------")
    if HEADER.match(line) and following[:1].isspace() and following.strip():
        return False
    return i == 0 or not lines[i - 1].rstrip().endswith("::")  # after "::" comes a literal


def one_line_summary(text: str) -> str:
    """``text`` with the prose lines that open its first paragraph joined into one line.

    Joining stops at a blank line, an indented line, or a line that starts a structure
    (section header, list item, doctest, fence, table row, heading); what follows is kept
    byte for byte. A docstring whose first line stands alone is returned unchanged.

    >>> one_line_summary("A judge run's summary: accuracy counts\\nand coverage.\\n\\nMore.")
    "A judge run's summary: accuracy counts and coverage.\\n\\nMore."
    >>> one_line_summary("Load a rubric\\nby name.\\nArgs:\\n    name: bundled name")
    'Load a rubric by name.\\nArgs:\\n    name: bundled name'
    """
    lines = text.split("\n")
    n = 0
    while n < len(lines) and _prose(lines, n):
        n += 1
    if n < 2:
        return text
    return "\n".join([" ".join(line.strip() for line in lines[:n]), *lines[n:]])


def fence_doctests(text: str, *, numpy: bool = False) -> str:
    """``text`` with each run of doctest lines at the left margin (``>>>`` up to the next blank
    line) fenced as a ``pycon`` block; fenced code is left as it is, and with ``numpy`` (griffe
    reads the docstring as numpy style) so is everything from the first section header on.

    >>> fence_doctests("Text.\\n\\n>>> 1 + 1\\n2\\n\\nMore.")
    'Text.\\n\\n```pycon\\n>>> 1 + 1\\n2\\n```\\n\\nMore.'
    """
    lines, out, fenced, i = text.split("\n"), [], False, 0
    while i < len(lines):
        line = lines[i]
        if numpy and UNDERLINE.match(lines[i + 1] if i + 1 < len(lines) else ""):
            return "\n".join([*out, *lines[i:]])  # numpy sections: griffe's own parser
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or not line.startswith(">>>"):
            out.append(line)
            i += 1
            continue
        end = next((j for j in range(i, len(lines)) if not lines[j].strip()), len(lines))
        out += [*([""] if out and out[-1].strip() else []), "```pycon", *lines[i:end], "```"]
        i = end
    return "\n".join(out)


class SphinxRolesAsCode(griffe.Extension):
    """Rewrites every docstring griffe loads: Sphinx roles into inline code, the opening
    paragraph into one line (the summary tables show a docstring's first line), and doctests
    outside an examples section into code blocks."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            parser, _ = griffe.infer_docstring_style(obj.docstring)
            text = one_line_summary(plain_roles(obj.docstring.value))
            obj.docstring.value = fence_doctests(text, numpy=parser == griffe.Parser.numpy)
