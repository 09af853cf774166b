"""``jurybox --help``, drawn with rich's panels and tables alone.

typer's own help renderer (``typer.rich_utils``) imports rich's Markdown (and markdown-it) and
Traceback at load: most of what ``jurybox --help`` took beyond importing typer. The root's help
is a usage line, one sentence, two options, the command list and the environment epilog, so
it is drawn here in typer's layout and styles; each command's own ``--help`` stays typer's.
The help strings use a markdown subset: ``**bold**`` and ``` `code` ``` (shown plain).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

__all__ = ["markdown_text", "print_root_help"]

_BOLD = re.compile(r"\*\*(.+?)\*\*")


def markdown_text(text: str, style: str = "") -> Text:
    """``text`` with ``**bold**`` in bold and the backticks of ``` `code` ``` dropped, as
    typer's markdown mode shows them.

    >>> markdown_text("**Environment**: `JURYBOX_OUT`, x").plain
    'Environment: JURYBOX_OUT, x'
    """
    out = Text(style=style)
    start = 0
    for match in _BOLD.finditer(text):
        out.append(text[start:match.start()].replace("`", ""))
        out.append(match.group(1).replace("`", ""), style="bold")
        start = match.end()
    out.append(text[start:].replace("`", ""))
    return out


def _panel(title: str, rows: Iterable[tuple[Text, ...]]) -> Panel:
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1),
                  highlight=False)
    for row in rows:
        table.add_row(*row)
    return Panel(table, title=title, title_align="left", border_style="dim",
                 box=box.ROUNDED)


def print_root_help(group: Any, ctx: Any, commands: Iterable[tuple[str, str]],
                    console: Console | None = None) -> None:
    """Print the root group's help to stdout (typer's layout: usage, help, an Options panel,
    a Commands panel, the epilog).

    Args:
        group: the root click group (its usage, help, parameters and epilog).
        ctx: its click context.
        commands: (name, one-line summary) per command, in listing order.
        console: where to print (default: a new stdout console, as typer makes one: as
            wide as ``TERMINAL_WIDTH`` says when set).
    """
    if console is None:
        width = os.environ.get("TERMINAL_WIDTH", "")
        console = Console(width=int(width) if width.isdigit() and int(width) > 0 else None)
    console.print(Padding(Text.assemble(("Usage:", "yellow"), " ", group.get_usage(ctx)
                                        .removeprefix("Usage:").strip(), style="bold"), 1))
    if group.help:
        console.print(Padding(markdown_text(group.help), (0, 1, 1, 1)))
    options = []
    for param in group.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        long = [o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")]
        short = [o for o in (*param.opts, *param.secondary_opts) if not o.startswith("--")]
        options.append((Text(",".join(long), style="bold cyan"),
                        Text(",".join(short), style="bold green"),
                        markdown_text(getattr(param, "help", None) or "")))
    console.print(_panel("Options", options))
    console.print(_panel("Commands", ((Text(name, style="bold cyan"), markdown_text(summary))
                                      for name, summary in commands)))
    if group.epilog:
        console.print(Padding(markdown_text(group.epilog), 1))
