"""Result tables that fit the terminal, with no value cut.

rich fits a table that is wider than the console by cutting cells short with "…"; in a table
of results that shows a wrong number (``65.5 [59.0, 7…``) or hides one (an ``n`` column
squeezed to nothing). :func:`print_table` is the one door every result table goes through:

1. the table fits the console: printed as built (the same bytes as ``console.print``);
2. else the table transposed fits: one row per column header, one column per original row
   (``protocol | direct | pcf``), so a few protocols' many measures fit 80 columns;
3. else the columns in groups that each fit, the key columns (the row's name) repeated in
   every group.

In 2 and 3 the title and caption are paragraphs of their own above and below, wrapped at the
console's width, and every column wraps at spaces and folds a word longer than its width
(rich's ``overflow="fold"``): a value too long even for a group of its own is shown on several
lines, never cut.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from rich.console import Console, Group, JustifyMethod, RenderableType
from rich.measure import Measurement
from rich.style import Style, StyleType
from rich.table import Column, Table
from rich.text import Text

__all__ = ["column_groups", "natural_width", "print_table", "table_parts", "transposed"]

#: A width no table reaches: measuring within it gives a table's unwrapped width.
_UNBOUNDED = 1_000_000


def natural_width(table: Table, console: Console) -> int:
    """Columns (terminal cells) the table takes with no cell wrapped or cut: its columns' widest
    cells (headers included), padding and borders. The title and caption do not count (rich
    wraps them to the table's width)."""
    return Measurement.get(console, console.options.update_width(_UNBOUNDED), table).maximum


def print_table(table: Table, *, key_columns: int = 1, console: Console | None = None) -> None:
    """Print a result table so that every value is shown whole at the console's width.

    Args:
        table: a rich Table whose cells are strings or :class:`~rich.text.Text` (other
            renderables are kept, but cannot be justified when transposed).
        key_columns: how many leading columns name a row (``protocol``; ``judge, strategy``):
            repeated in every group, and the header of each column when transposed.
        console: where to print (default: the CLI's stdout console).
    """
    if console is None:
        from ._common import console as stdout

        console = stdout
    for part in table_parts(table, width=console.width, console=console,
                            key_columns=key_columns):
        console.print(part)


def table_parts(table: Table, *, width: int, console: Console,
                key_columns: int = 1) -> list[RenderableType]:
    """What :func:`print_table` prints at ``width`` columns: ``[table]`` when it fits, else
    the title, the table transposed when that fits (else its column groups) and the caption.
    Apart from a table that fits, title and caption are lines of their own that wrap at
    ``width`` (not at the narrower table's width)."""
    if natural_width(table, console) <= width:
        return [table]
    keys = max(0, min(key_columns, len(table.columns) - 1))
    flipped = transposed(table, console=console, key_columns=keys)
    tables = ([flipped] if natural_width(flipped, console) <= width else
              column_groups(table, width=width, console=console, key_columns=keys))
    title = _annotation(table.title, table.title_style, "table.title", table.title_justify,
                        console)
    caption = _annotation(table.caption, table.caption_style, "table.caption",
                          table.caption_justify, console)
    spaced: list[RenderableType] = []
    for part in tables:
        part.title = part.caption = None
        spaced += [Text(), part] if spaced else [part]  # a blank line between groups
    return [*title, *spaced, *caption]


def _annotation(text: str | Text | None, style: StyleType | None, default: str,
                justify: JustifyMethod, console: Console) -> list[Text]:
    """A table's title or caption as rich draws it (a string styled, a Text as it is), as a
    paragraph of its own: ``[]`` when there is none."""
    if not text:
        return []
    line = (console.render_str(text, style=Style.pick_first(style, default), highlight=False)
            if isinstance(text, str) else text.copy())
    line.justify = line.justify or justify
    return [line]


def _empty_like(table: Table) -> Table:
    """The same box, padding, styles, title and caption, with no columns and no rows."""
    blank = copy.copy(table)
    blank.columns, blank.rows = [], []
    return blank


def _folding(column: Column, index: int) -> Column:
    """A copy of ``column`` (cells included) that wraps and folds instead of cutting."""
    return replace(column, _index=index, _cells=list(column.cells), no_wrap=False,
                   overflow="fold")


def column_groups(table: Table, *, width: int, console: Console,
                  key_columns: int = 1) -> list[Table]:
    """The table split into tables of the key columns plus as many of the other columns, in
    order, as fit ``width`` (at least one each; one too wide for ``width`` wraps)."""
    keys, rest = table.columns[:key_columns], table.columns[key_columns:]
    groups: list[list[Column]] = []
    for column in rest:
        if groups and natural_width(_with(table, keys + groups[-1] + [column]),
                                    console) <= width:
            groups[-1].append(column)
        else:
            groups.append([column])
    return [_with(table, keys + group) for group in groups] or [_with(table, keys)]


def _with(table: Table, columns: list[Column]) -> Table:
    part = _empty_like(table)
    part.columns = [_folding(column, i) for i, column in enumerate(columns)]
    part.rows = list(table.rows)
    return part


def transposed(table: Table, *, console: Console, key_columns: int = 1) -> Table:
    """One row per non-key column (its header first), one column per original row headed by
    that row's key cells; each cell keeps its original column's justification and each
    original row's style becomes its column's style."""
    keys, rest = table.columns[:key_columns], table.columns[key_columns:]
    key_cells = [list(column.cells) for column in keys]
    flipped = _empty_like(table)
    flipped.add_column(_stacked([c.header for c in keys]), style=table.header_style,
                       overflow="fold")
    for i, row in enumerate(table.rows):
        flipped.add_column(_stacked([cells[i] for cells in key_cells]), justify="right",
                           style=row.style or "", overflow="fold")
    for column in rest:
        flipped.add_row(column.header, *(_justified(cell, column.justify, table, console)
                                          for cell in column.cells), style=column.style or None)
    return flipped


def _stacked(parts: list[RenderableType]) -> RenderableType:
    """Key cells one above the other (a table with no key column: an empty header)."""
    if len(parts) == 1:
        return parts[0]
    return Group(*parts) if parts else ""


def _justified(cell: RenderableType, justify: JustifyMethod, table: Table,
               console: Console) -> RenderableType:
    """The cell as rich renders it in ``table`` (a string is markup), justified on its own."""
    if isinstance(cell, str):
        cell = console.render_str(cell, highlight=table.highlight)
    if isinstance(cell, Text):
        cell = cell.copy()
        cell.justify = justify
    return cell
