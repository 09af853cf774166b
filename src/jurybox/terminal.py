"""Text from data, made safe to print in a terminal.

Dataset text, item ids, judge answers and server-sent names reach the terminal in tables,
``jurybox show`` and error lines. A control character in them would be obeyed, not shown:
``ESC]0;...`` sets the window title, ``ESC[2J`` clears the screen, ``ESC[31m`` colours what
follows, a carriage return overwrites the line, and the bidi overrides U+202A-U+202E and
U+2066-U+2069 reorder what is displayed (Trojan Source). :func:`safe_text` writes each such
character as a visible escape (``\\x1b``, ``\\u202e``), leaving every other character (any
script, emoji, accents) unchanged; :func:`data` wraps the result in a :class:`rich.text.Text`
so that rich markup in data (``[bold]``, ``[/]``) is printed as written too.

Escaped: C0 controls (U+0000-U+001F) except tab and newline where the layout keeps them
(``newlines=True``, multi-line panels), DEL (U+007F), C1 controls (U+0080-U+009F) and the
bidi embedding, override and isolate characters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["data", "safe_text"]

_CONTROLS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
#: One line: every control escaped, tab and newline too.
_ONE_LINE = {c: f"\\x{c:02x}" for c in _CONTROLS} | {c: f"\\u{c:04x}" for c in _BIDI}
#: Multi-line text: tab and newline kept.
_MULTI_LINE = {c: e for c, e in _ONE_LINE.items() if c not in (0x09, 0x0A)}


def safe_text(text: object, *, newlines: bool = False) -> str:
    """``str(text)`` with terminal control characters written as visible escapes.

    Args:
        text: anything printed from data (non-str values are ``str()``-ed).
        newlines: keep tab and newline (multi-line text in a panel); otherwise they are
            escaped too, so the text stays on its one line (table cells, ids, error lines).

    >>> safe_text("\\x1b]0;pwned\\x07 ok \\u202eabc")
    '\\\\x1b]0;pwned\\\\x07 ok \\\\u202eabc'
    >>> safe_text("naïve 日本語 ✓"), safe_text("a\\nb"), safe_text("a\\nb", newlines=True)
    ('naïve 日本語 ✓', 'a\\\\x0ab', 'a\\nb')
    """
    value = text if isinstance(text, str) else str(text)
    if value.isprintable():  # the common case: no control or bidi character (both are
        return value         # unprintable for Python)
    return value.translate(_MULTI_LINE if newlines else _ONE_LINE)


def data(text: object, *, newlines: bool = False, style: str = "") -> Text:
    """:func:`safe_text` as a rich Text (never parsed as markup), for tables and panels."""
    from rich.text import Text

    return Text(safe_text(text, newlines=newlines), style=style)
