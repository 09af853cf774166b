"""Printing one :class:`~jurybox.reports.ItemView` with rich (``jurybox show``).

Dataset and model text goes into rich through :func:`jurybox.terminal.data`: a Text, never
markup, so a candidate containing ``[bold]`` or ``[/]`` prints as written, with terminal
control characters (``ESC``, bidi overrides) shown as escapes, never obeyed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from ..terminal import data
from ._fit import print_table

if TYPE_CHECKING:
    from ..reports import CallView, ItemView, ProtocolView


def _letter(j: int) -> str:
    return chr(ord("A") + j)


def _score(v: float | None) -> str:
    return "—" if v is None else f"{v:g}"


def _decision(item: ItemView, p: ProtocolView) -> str:
    if p.failed:
        return f"no decision (failures: {', '.join(p.record.get('failures') or ()) or '?'})"
    if item.task == "listwise":
        won = ", ".join(f"#{w}" for w in p.winners)
        extra = f"  k {p.record.get('k')}  stop {p.record.get('stop')}" \
            if p.protocol != "direct" and p.record.get("k") else ""
        mark = "" if p.credit is None or not item.gold else f"  credit {p.credit:g}"
        return f"winners {won}{mark}{extra}"
    mark = "" if p.credit is None or not item.label else f"  credit {p.credit:g}"
    consistent = p.record.get("consistent")
    return f"verdict {p.verdict}{mark}" + (
        "" if consistent is None else f"  consistent {str(consistent).lower()}")


def _calls_table(item: ItemView) -> Table:
    table = Table(title="calls", title_justify="left", show_lines=False)
    for col in ("call", "protocols", "shown order"):
        table.add_column(col, overflow="fold")
    n = len(item.candidates) or max((len(c.order) for c in item.calls), default=0)
    if item.task == "listwise":
        for i in range(n):
            table.add_column(f"#{i}", justify="right", overflow="fold")
        table.add_column("ranking", overflow="fold")
        table.add_column("top", justify="right", overflow="fold")
    else:
        table.add_column("shown verdict", overflow="fold")
        table.add_column("verdict", overflow="fold")
    table.add_column("result", overflow="fold")
    for c in item.calls:
        order = " ".join(f"{_letter(j)}=#{cand}" for j, cand in enumerate(c.order))
        cells = [data(c.call_id), data(", ".join(c.protocols)), data(order)]
        if item.task == "listwise":
            cells += [data(_score(c.run.scores[i] if c.run else None)) for i in range(n)]
            cells += [data(" > ".join(f"#{x}" for x in c.ranking)),
                      data("" if c.top is None else f"#{c.top}")]
        else:
            cells += [data(c.shown_verdict or ""), data(c.verdict or "")]
        cells.append(data("ok") if c.ok else data(f"{c.failure}: {c.failure_message}",
                                                  style="red"))
        table.add_row(*cells)
    return table


def _raw(console: Console, c: CallView, prompts: bool) -> None:
    for k, a in enumerate(c.attempts, start=1):
        head = f"{c.call_id} record {k}" + (" (re-ask)" if a.reask else "") + (
            ", cached" if a.cached else "") + f": outcome {a.outcome or 'none (another follows)'}"
        if a.error:
            head += f"; API error: {a.error}"
        if a.parse_error:
            head += f"; unusable: {a.parse_error}"
        if prompts:
            for role, content in a.messages:
                console.print(Panel(data(content, newlines=True),
                                    title=data(f"{c.call_id} · {role}"), title_align="left",
                                    border_style="dim"))
        console.print(Panel(data(a.text or "(no text)", newlines=True), title=data(head),
                            title_align="left",
                            border_style="cyan" if a.outcome == "ok" else "red"))


def print_item(console: Console, item: ItemView, *, prompts: bool = False) -> None:
    """The item: texts, candidates with C_i and gold, per-call table, decisions, raw texts."""
    console.print(data(f"item {item.item_id} ({item.task})", style="bold"),
                  data("  " + " ".join(item.flags.names()), style="yellow"))
    if item.text_source == "prompt":
        console.print("texts read back from the recorded prompt (the dataset file is missing "
                      "or changed), as the judge saw them", style="dim")
    console.print(Panel(data(item.question or "(not recorded)", newlines=True),
                        title="question", title_align="left"))
    cands = Table(title="candidates" if item.task == "listwise" else "responses",
                  title_justify="left")
    cands.add_column("#", overflow="fold")
    cands.add_column("text", overflow="fold")
    for p in item.protocols:
        if item.task == "listwise":
            cands.add_column(f"{p.protocol} C_i", justify="right", overflow="fold")
    for i, text in enumerate(item.candidates):
        gold = (i in item.gold) if item.task == "listwise" else bool(
            item.label and item.label[0] == _letter(i))
        name = (f"#{i}" if item.task == "listwise" else _letter(i)) + (" gold" if gold else "")
        row = [data(name, style="green" if gold else ""), data(text, newlines=True)]
        for p in item.protocols if item.task == "listwise" else ():
            comb = p.record.get("combined")
            row.append(data(("—" if not comb else f"{comb[i]:.1f}") +
                            (" *" if i in p.winners else "")))
        cands.add_row(*row)
    console.print(cands)
    print_table(_calls_table(item), console=console)
    for p in item.protocols:
        console.print(data(f"{p.protocol}: {_decision(item, p)}"))
    if item.direct_credit is not None and item.protocol("pcf") is not None:
        console.print(data(f"direct judgment (PCF's first order): credit "
                           f"{item.direct_credit:g}"))
    for c in item.calls:
        _raw(console, c, prompts)
