"""print_table on small tables whose layouts are derived by hand: printed as built when the
table fits, transposed when that fits, else in column groups, and folded (never cut) when a
single value is wider than the console."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from jurybox.cli._fit import natural_width, print_table, table_parts


def _console(width: int) -> Console:
    return Console(width=width, record=True, file=io.StringIO(), color_system=None)


def _printed(table: Table, width: int, key_columns: int = 1) -> list[str]:
    console = _console(width)
    print_table(table, key_columns=key_columns, console=console)
    return [line.rstrip() for line in console.export_text().splitlines()]


def _protocols() -> Table:
    """Two protocols, five measures; the title and caption as the bench tables have them."""
    table = Table(title="T", title_justify="left", caption="C", caption_justify="left")
    for name in ("protocol", "n", "cover %", "acc % [95% CI]", "sign p", "calls"):
        table.add_column(name, justify="left" if name == "protocol" else "right")
    table.add_row("direct", "200", "100.0", "65.5 [59.0, 72.0]", "—", "200")
    table.add_row("pcf", "200", "100.0", "85.8 [81.0, 90.2]", "1.6e-07", "1354")
    return table


# Widths, each column's widest cell plus 2 of padding, plus one border per column and one:
# as built: protocol 8+2, n 3+2, cover % 7+2, acc 17+2, sign p 7+2, calls 5+2 = 59, +7 = 66;
# transposed: label ("acc % [95% CI]") 14+2, direct 17+2, pcf 17+2 = 54, +4 = 58.
def test_natural_width_is_the_widest_cells_plus_padding_and_borders():
    console = _console(200)
    table = _protocols()
    assert natural_width(table, console) == 66
    assert natural_width(table_parts(table, width=60, console=console)[1], console) == 58


def test_a_table_that_fits_is_printed_as_rich_prints_it():
    for width in (66, 120):  # 66: exactly its width
        twin = _console(width)
        twin.print(_protocols())
        assert _printed(_protocols(), width) == [
            line.rstrip() for line in twin.export_text().splitlines()]
    assert table_parts(_protocols(), width=66, console=_console(66))[0].columns[0].header \
        == "protocol"


def test_too_wide_by_one_column_it_is_transposed():
    assert _printed(_protocols(), 65) == _printed(_protocols(), 58) == [
        "T",
        "┏━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓",
        "┃ protocol       ┃            direct ┃               pcf ┃",
        "┡━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩",
        "│ n              │               200 │               200 │",
        "│ cover %        │             100.0 │             100.0 │",
        "│ acc % [95% CI] │ 65.5 [59.0, 72.0] │ 85.8 [81.0, 90.2] │",
        "│ sign p         │                 — │           1.6e-07 │",
        "│ calls          │               200 │              1354 │",
        "└────────────────┴───────────────────┴───────────────────┘",
        "C",
    ]


# At 45 columns neither fits: groups of "protocol" plus the next columns while they fit:
# protocol+n+cover = 10+5+9 +4 = 28 (adding acc: 47+5 = 52 > 45); protocol+acc+sign p =
# 10+19+9 +4 = 42 (adding calls: 49+5 = 54 > 45); protocol+calls = 10+7 +3 = 20.
def test_when_neither_fits_the_columns_go_in_groups_that_repeat_the_key():
    assert _printed(_protocols(), 45) == [
        "T",
        "┏━━━━━━━━━━┳━━━━━┳━━━━━━━━━┓",
        "┃ protocol ┃   n ┃ cover % ┃",
        "┡━━━━━━━━━━╇━━━━━╇━━━━━━━━━┩",
        "│ direct   │ 200 │   100.0 │",
        "│ pcf      │ 200 │   100.0 │",
        "└──────────┴─────┴─────────┘",
        "",
        "┏━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━┓",
        "┃ protocol ┃    acc % [95% CI] ┃  sign p ┃",
        "┡━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━┩",
        "│ direct   │ 65.5 [59.0, 72.0] │       — │",
        "│ pcf      │ 85.8 [81.0, 90.2] │ 1.6e-07 │",
        "└──────────┴───────────────────┴─────────┘",
        "",
        "┏━━━━━━━━━━┳━━━━━━━┓",
        "┃ protocol ┃ calls ┃",
        "┡━━━━━━━━━━╇━━━━━━━┩",
        "│ direct   │   200 │",
        "│ pcf      │  1354 │",
        "└──────────┴───────┘",
        "C",
    ]


def test_a_value_wider_than_the_console_is_folded_not_cut():
    table = Table(title="a long title " * 4, title_justify="left")
    table.add_column("group")
    table.add_column("note", no_wrap=True)
    table.add_row("overall", "x" * 50 + " 0.722 [0.670, 0.765]")
    rich_alone = _console(30)
    rich_alone.print(table)  # the group column squeezed out, the note cut: what we avoid
    cut = rich_alone.export_text()
    assert "overall" not in cut and "xxxxxxxxxxxxxxxxxxxxxxxx…" in cut
    # "note" gets 30 - 9 (group) - 3 (borders) - 2 (padding) = 16 columns per line
    assert _printed(table, 30) == [
        "a long title a long title a",
        "long title a long title",
        "┏━━━━━━━━━┳━━━━━━━━━━━━━━━━━━┓",
        "┃ group   ┃ note             ┃",
        "┡━━━━━━━━━╇━━━━━━━━━━━━━━━━━━┩",
        "│ overall │ xxxxxxxxxxxxxxxx │",
        "│         │ xxxxxxxxxxxxxxxx │",
        "│         │ xxxxxxxxxxxxxxxx │",
        "│         │ xx 0.722 [0.670, │",
        "│         │ 0.765]           │",
        "└─────────┴──────────────────┘",
    ]


def test_two_key_columns_head_each_transposed_column_and_row_styles_carry_over():
    table = Table()
    for name in ("condition", "dimension", "alpha (n)", "MAE", "exact %", "units", "cover %"):
        table.add_column(name)
    table.add_row("aggregate@2", "overall", "0.83 (4)", "10.13", "4.3", "120", "97.5")
    table.add_row("JURY", "overall", "0.88 (4)", "8.63", "5.2", "120", "97.5", style="bold")
    assert natural_width(table, _console(200)) == 75  # 13+11+11+7+9+7+9 + 8 borders
    console = _console(70)
    flipped = table_parts(table, width=70, console=console, key_columns=2)[0]
    assert [c.style for c in flipped.columns] == ["table.header", "", "bold"]
    assert _printed(table, 70, key_columns=2) == [
        "┏━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━┓",
        "┃ condition ┃ aggregate@2 ┃     JURY ┃",
        "┃ dimension ┃     overall ┃  overall ┃",
        "┡━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━┩",
        "│ alpha (n) │ 0.83 (4)    │ 0.88 (4) │",
        "│ MAE       │ 10.13       │ 8.63     │",
        "│ exact %   │ 4.3         │ 5.2      │",
        "│ units     │ 120         │ 120      │",
        "│ cover %   │ 97.5        │ 97.5     │",
        "└───────────┴─────────────┴──────────┘",
    ]
