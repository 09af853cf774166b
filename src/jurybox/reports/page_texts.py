"""Each distinct text of a report page stored once.

Every call's prompt repeats the item's question and all its candidates (K orders of the same
texts), so writing each prompt out in full made a page of long candidates about seven times
the size of its texts. :class:`PageTexts` keeps one table of distinct texts for the page;
a prompt message becomes a list of indices into it, which the page script joins into the
message when its call is opened (setting ``textContent``: text, never markup).

How a message is cut: the contents of the delimited blocks (question, candidates,
responses: :mod:`jurybox.protocols.prompts`) are whole entries, and the rest is cut into
lines, so instructions shared by every call are stored once as well and a per-request tag
costs only its own line. A text shown in the page anyway (an item's question and candidates)
is not stored again: its entry is ``null`` and the page script reads it from the element that
shows it (``data-t``). That is done only where the browser keeps the text exactly (HTML
drops a ``<pre>``'s first newline, turns CR into LF and drops NUL); elsewhere the table holds
it too.

The table is written as JSON in an attribute (``data-texts``), so the page's autoescaping
applies: a text cannot close the element or start markup.
"""

from __future__ import annotations

import json
import re

from ..protocols.pairwise_prompts import RESPONSE_BLOCK
from ..protocols.prompts import CANDIDATE_BLOCK, QUESTION_BLOCK

__all__ = ["PageTexts", "dom_safe"]

#: (pattern, group of the block's text) for every block a prompt may hold.
_BLOCKS = ((QUESTION_BLOCK, 2), (CANDIDATE_BLOCK, 3), (RESPONSE_BLOCK, 3))
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def dom_safe(text: str) -> bool:
    """Whether a ``<pre>`` holding ``text`` gives it back unchanged as its ``textContent``
    (the HTML parser drops a leading newline and NUL characters, and turns CR into LF)."""
    return not text.startswith("\n") and "\r" not in text and "\x00" not in text


class PageTexts:
    """The page's table of distinct texts, filled while the page is rendered.

    Use :meth:`shown` for a text the page shows in an element (before the prompts that hold
    it, so they can refer to it), :meth:`segments` for a prompt message, and :meth:`to_json`
    for the table, written after both.
    """

    def __init__(self) -> None:
        self._texts: list[str | None] = []
        self._index: dict[str, int] = {}
        self._in_page: set[int] = set()

    def _add(self, text: str) -> int:
        i = self._index.get(text)
        if i is None:
            i = self._index[text] = len(self._texts)
            self._texts.append(text)
        return i

    def shown(self, text: str) -> str:
        """The ``data-t`` value for an element that shows ``text`` exactly: its index, or
        ``""`` when the browser would not give the text back unchanged (it is then stored in
        the table if a prompt holds it)."""
        if not text or not dom_safe(text):
            return ""
        i = self._add(text)
        self._in_page.add(i)
        return str(i)

    def segments(self, content: str) -> str:
        """``content`` (a prompt message) as space-separated table indices, in order."""
        spans = sorted((m.start(group), m.end(group)) for pattern, group in _BLOCKS
                       for m in pattern.finditer(content))
        out: list[int] = []
        at = 0
        for start, end in spans:
            if start < at:  # blocks do not nest; a stray overlap stays literal text
                continue
            out += self._lines(content[at:start])
            if end > start:
                out.append(self._add(content[start:end]))
            at = end
        out += self._lines(content[at:])
        return " ".join(map(str, out))

    def _lines(self, text: str) -> list[int]:
        return [self._add(line) for line in _LINE.findall(text)]

    def to_json(self) -> str:
        """The table as JSON: a list of texts, ``null`` where the page shows the text in an
        element marked ``data-t`` with that index."""
        return json.dumps([None if i in self._in_page else t for i, t in enumerate(self._texts)],
                          ensure_ascii=False, separators=(",", ":"))

    def __len__(self) -> int:
        return len(self._texts)
