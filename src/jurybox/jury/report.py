"""A jury's report.html and its export tables, from its run directory alone (jury.json,
summary.json, items.jsonl and each judge's calls.jsonl): no model call.

- report.html: one self-contained page (no network): per protocol the judges' and the jury's
  table, the comparison and agreement lines, the judge-agreement heatmap (pairwise
  Krippendorff's alpha, nominal), and an item browser with one column per judge.
- export: ``items.<fmt>``, one row per (item, protocol) with the jury's fields and
  ``<judge>.<field>`` columns per judge (verdict or winners, credit, failed, flipped, ...);
  ``calls.<fmt>``, every judge's calls.jsonl rows with a ``judge`` column first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from ..errors import ConfigError, DataError
from ..reports.charts import heatmap
from ..rundir import iter_records

__all__ = ["MAX_ITEMS", "export_jury", "is_jury_dir", "render_jury_report",
           "write_jury_report"]

#: Items the report's browser shows at most.
MAX_ITEMS = 300
#: Characters of one text (a question, a candidate) the browser shows; the rest is named.
TEXT_CHARS = 2_000


def is_jury_dir(folder: str | Path) -> bool:
    """Whether ``folder`` is a jury's run directory (it holds jury.json)."""
    return (Path(folder) / "jury.json").is_file()


def _load(folder: Path, name: str) -> Any:
    try:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(folder / name, "missing: not a finished jury run (rerun the same "
                        "command to finish it)") from None
    except (OSError, ValueError) as exc:
        raise DataError(folder / name, f"cannot be read: {exc}") from None


def _pct(x: Any) -> str:
    return "&#8211;" if x is None or (isinstance(x, float) and math.isnan(x)) \
        else f"{100 * x:.1f}"


def _acc(a: dict[str, Any] | None) -> str:
    if not a or not a.get("n"):
        return "&#8211;"
    lo, hi = a.get("confidence_interval") or (None, None)
    ci = f" [{_pct(lo)}, {_pct(hi)}]" if lo is not None and hi is not None else ""
    return f"{_pct(a['accuracy'])}{ci}"


def _versus(vs: dict[str, Any] | None, note: str | None) -> str:
    if not vs:
        return str(escape(note or "not compared"))
    p = vs.get("p_value")
    return (f"&Delta; {100 * vs['difference']:+.1f} points on {vs['n']} items, improved/"
            f"regressed {vs['improvements']}/{vs['regressions']}, sign test p "
            f"{'&#8211;' if p is None else format(p, '.3g')}")


def _alpha(a: dict[str, Any] | None, note: str | None) -> str:
    if not a:
        return str(escape(note or "n/a"))
    lo, hi = a.get("confidence_interval") or (None, None)
    value = "undefined" if a.get("alpha") is None else f"{a['alpha']:.3f}"
    ci = f" [{lo:.3f}, {hi:.3f}]" if lo is not None and hi is not None else ""
    return f"{value}{ci} ({a.get('n_units')} units)"


def _protocol_section(name: str, p: dict[str, Any], judges: dict[str, Any], task: str) -> str:
    rows = []
    for judge, row in p["judges"].items():
        t = judges.get(judge, {})
        usd = "&#8211;" if t.get("usd") is None else f"{t['usd']:.4f}"
        rows.append(
            f"<tr><td>{escape(judge)}</td><td>{row['weight']:g}</td><td>{_acc(row['accuracy'])}"
            f"</td><td>{row['items_failed']}</td><td>{_pct(row.get('first_shown_rate'))}</td>"
            f"<td>{_pct((row.get('length_bias') or {}).get('observed'))}</td>"
            f"<td>{_pct(row.get('flip_rate'))}</td><td>{_pct(row.get('disagreement'))}</td>"
            f"<td>{t.get('model_calls', 0):,}</td>"
            f"<td>{t.get('prompt_tokens', 0) + t.get('completion_tokens', 0):,}</td>"
            f"<td>{usd}</td></tr>")
    rows.append(f"<tr><td>mean judge</td><td></td><td>{_acc(p.get('mean_judge'))}</td>"
                + "<td></td>" * 8 + "</tr>")
    rows.append(f"<tr class='jury'><td>JURY</td><td></td><td>{_acc(p.get('jury'))}</td>"
                f"<td>{p.get('jury_items_failed', 0)}</td><td></td>"
                f"<td>{_pct((p.get('length_bias') or {}).get('observed'))}</td>"
                + "<td></td>" * 5 + "</tr>")
    notes = p.get("notes") or {}
    m = p.get("pairwise_alpha") or {}
    raters = m.get("raters") or []
    values = {(i, j): m["matrix"][i][j] for i in range(len(raters)) for j in range(len(raters))}
    chart = heatmap(raters, values, title=f"pairwise Krippendorff's alpha (nominal), {name}",
                    lo=0.0, hi=1.0) if len(raters) > 1 else Markup("")
    most = p.get("most_disagreeing")
    lines = [
        f"jury vs best judge ({escape(p.get('best_judge') or '-')}): "
        f"{_versus(p.get('vs_best'), notes.get('vs_best'))}",
        f"jury vs mean judge: {_versus(p.get('vs_mean'), notes.get('vs_mean'))}",
        f"Krippendorff's alpha, nominal on {'verdicts' if task == 'pairwise' else 'winner sets'}"
        f": {_alpha(p.get('alpha_nominal'), notes.get('alpha_nominal'))}",
    ]
    if task == "listwise":
        lines.append(f"Krippendorff's alpha, interval on C_i: "
                     f"{_alpha(p.get('alpha_interval'), notes.get('alpha_interval'))}")
    if (b := p.get("length_bias")) and b.get("n"):
        what = ("the longer response won {} of {} decisive verdicts" if task == "pairwise"
                else "the pick was the longest candidate for {} of {} decided items")
        lines.append(f"jury length bias: {what.format(_pct(b.get('observed')) + '%', b['n'])} "
                     f"(unbiased {_pct(b.get('expected'))}%, gold {_pct(b.get('gold'))}%; "
                     f"longest %: the same per judge)")
    if most:
        lines.append(f"disagrees with the jury most: {escape(most)} "
                     f"({_pct(p['judges'][most].get('disagreement'))}%)")
    return (f"<h2>protocol {escape(name)}</h2><table><tr><th>judge</th><th>weight</th>"
            f"<th>acc % [95% CI]</th><th>failed</th><th>first-shown %</th><th>longest %</th>"
            f"<th>flip %</th>"
            f"<th>&ne; jury %</th><th>calls</th><th>tokens</th><th>USD</th></tr>"
            f"{''.join(rows)}</table><ul>{''.join(f'<li>{x}</li>' for x in lines)}</ul>"
            f"<div class='chart'>{chart}</div>")


def _decision(view: dict[str, Any], task: str) -> str:
    if view.get("failed"):
        return "FAILED"
    if task == "pairwise":
        return str(view.get("verdict"))
    return ",".join(map(str, view.get("winners") or [])) or "&#8211;"


def _item_texts(folder: Path, jury: dict[str, Any], item_ids: list[str]
                ) -> dict[str, tuple[str, tuple[str, ...]]]:
    """(question, candidate texts) per item, read from the first judge's run directory as its
    own report reads them (:class:`~jurybox.reports.reader.RunReader`: the dataset file while
    unchanged, else a recorded prompt); {} when no judge's run can be read."""
    from ..errors import JuryboxError
    from ..reports.reader import RunReader

    for j in jury.get("judges") or ():
        try:
            reader = RunReader(folder / str(j.get("out", "")))
            known = set(reader.item_ids)
            wanted = [i for i in item_ids if i in known]
            return {v.item_id: (v.question, v.candidates)
                    for v in reader.iter_items(wanted, texts=True) if v.candidates}
        except (JuryboxError, OSError, ValueError, KeyError):
            continue
    return {}


def _shown_text(text: str) -> str:
    more = len(text) - TEXT_CHARS
    cut = f"\n… ({more:,} more characters: jurybox show)" if more > 0 else ""
    return f"<pre class='text'>{escape(text[:TEXT_CHARS] + cut)}</pre>"


def _texts_cell(found: tuple[str, tuple[str, ...]] | None, task: str) -> str:
    """The browser's texts cell: the question and each candidate, folded in a details."""
    if found is None:
        return "<td class='left'>&#8211;</td>"
    question, candidates = found
    label = (lambda i: "AB"[i] if i < 2 else str(i)) if task == "pairwise" else str
    items = "".join(f"<li><b>{escape(label(i))}</b>{_shown_text(c)}</li>"
                    for i, c in enumerate(candidates))
    summary = escape(question[:80] + ("…" if len(question) > 80 else ""))
    return (f"<td class='left'><details><summary>{summary}</summary>{_shown_text(question)}"
            f"<ul class='cands'>{items}</ul></details></td>")


def _browser(records: list[dict[str, Any]], names: list[str], task: str,
             texts: dict[str, tuple[str, tuple[str, ...]]] | None = None) -> str:
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    rows = []
    texts = texts or {}
    for r in records[:MAX_ITEMS]:
        gold = r.get("label") if task == "pairwise" else ",".join(map(str, r.get("gold") or []))
        cells = "".join(f"<td>{escape(_decision(r['judges'][n], task))}</td>"
                        if "FAILED" != _decision(r["judges"][n], task) else
                        "<td class='failed'>FAILED</td>" for n in names)
        jury = "FAILED" if r.get("failed") else (
            str(r.get("verdict")) if task == "pairwise"
            else ",".join(map(str, r.get("winners") or [])))
        rows.append(f"<tr><td>{escape(r['item_id'])}</td><td>{escape(r['protocol'])}</td>"
                    f"<td>{escape(gold or '')}</td><td><b>{escape(jury)}</b></td>{cells}"
                    f"{_texts_cell(texts.get(str(r['item_id'])), task)}</tr>")
    more = (f"<p>first {MAX_ITEMS} of {len(records)} shown (all are in items.jsonl)</p>"
            if len(records) > MAX_ITEMS else "")
    return (f"<h2>items</h2>{more}<table><tr><th>item</th><th>protocol</th><th>gold</th>"
            f"<th>jury</th>{head}<th class='left'>question and candidates</th></tr>"
            f"{''.join(rows)}</table>")


def _totals_section(folder: Path, jury: dict[str, Any], summary: dict[str, Any]) -> str:
    """Calls, cache hits, retries, re-asks, failed judgments, tokens and cost over the judges
    (each judge's run.json: every session), a row per judge, and what the terminal warned
    about: items without a jury decision, each judge's warnings."""
    from ..reports.notes import jury_partial_note
    from ..rundir import read_manifest
    from ..reports.totals import jury_totals

    judges, warnings = [], []
    for j in jury.get("judges") or ():
        try:
            manifest = read_manifest(folder / str(j.get("out", "")) / "run.json") or {}
            judge_summary = json.loads((folder / str(j.get("out", "")) / "summary.json")
                                       .read_text(encoding="utf-8"))
        except (DataError, OSError, ValueError):
            manifest, judge_summary = {}, {}
        judges.append((str(j.get("name")), manifest))
        if isinstance(judge_summary, dict):
            warnings += [f"warning ({j.get('name')}): {w}"
                         for w in judge_summary.get("warnings") or () if isinstance(w, str)]
    failed = {name: p.get("jury_items_failed") for name, p in
              (summary.get("protocols") or {}).items() if p.get("jury_items_failed")}
    if failed:
        warnings.insert(0, jury_partial_note(failed))
    usd = {name: t.get("usd") for name, t in (summary.get("judges") or {}).items()}
    totals = jury_totals(judges, usd, simulated=bool(summary.get("simulated")))
    if totals is None:
        return "".join(f"<p class='warn'>{escape(w)}</p>" for w in warnings)
    figures = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>"
                      for k, v in totals.figures)
    table = ""
    if totals.sessions is not None:
        head = "".join(f"<th>{escape(c)}</th>" for c in totals.sessions.columns)
        rows = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                       for row in totals.sessions.rows)
        table = f"<table><tr>{head}</tr>{rows}</table>"
    return ("".join(f"<p class='warn'>{escape(w)}</p>" for w in warnings)
            + f"<h2>totals</h2><dl class='figures'>{figures}</dl>{table}"
            f"<p class='caption'>{escape(totals.caption)}</p>")


_STYLE = ("body{font-family:system-ui,sans-serif;margin:2em;color:#111827}"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #e5e7eb;"
          "padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
          "tr.jury{font-weight:bold}td.failed{color:#b91c1c}.tick{font-size:11px}"
          ".cell{font-size:11px}.warn{background:#fef2f2;border:1px solid #fecaca;"
          "color:#7f1d1d;padding:6px 10px;border-radius:6px}.figures{display:flex;"
          "flex-wrap:wrap;gap:8px}.figures div{border:1px solid #e5e7eb;border-radius:6px;"
          "padding:4px 12px;background:#f9fafb}.figures dt{color:#6b7280;font-size:12px}"
          ".figures dd{margin:0;font-size:16px}.caption{color:#6b7280;font-size:12.5px;"
          "max-width:900px}td.left,th.left{text-align:left}pre.text{white-space:pre-wrap;"
          "max-width:60em;margin:2px 0;font-size:12.5px}ul.cands{margin:4px 0;padding-left:"
          "1.2em}summary{cursor:pointer}")


def render_jury_report(folder: str | Path) -> str:
    """The jury's report page as HTML text.

    Raises:
        DataError: jury.json or summary.json missing or unreadable.
    """
    folder = Path(folder)
    jury = _load(folder, "jury.json")
    summary = _load(folder, "summary.json")
    records = list(iter_records(folder / "items.jsonl"))
    task = summary.get("task", "listwise")
    names = list(summary.get("judges") or {})
    sim = " (SIMULATED judges)" if summary.get("simulated") else ""
    texts = _item_texts(folder, jury, [str(r["item_id"]) for r in records[:MAX_ITEMS]])
    sections = "".join(_protocol_section(name, p, summary["judges"], task)
                       for name, p in summary.get("protocols", {}).items())
    judges = "".join(f"<li>{escape(j['name'])}: {escape(j['model'])}, weight "
                     f"{j.get('weight', 1):g} (its own run: {escape(j.get('out', ''))}/)</li>"
                     for j in jury.get("judges", []))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>jury report: "
            f"{escape(summary.get('dataset', ''))}</title><style>{_STYLE}</style></head><body>"
            f"<h1>jury of {len(names)}{sim}: {escape(summary.get('dataset', ''))}, "
            f"{summary.get('n_items')} items</h1><ul>{judges}</ul>"
            f"<p>The jury's decision: pairwise, the weighted vote of the judges' decisions (a "
            f"tie when the top weight is shared); listwise, the weighted mean of C_i, winners "
            f"within the tolerance. A judge that failed an item has no vote on it.</p>"
            f"{_totals_section(folder, jury, summary)}"
            f"{sections}{_browser(records, names, task, texts)}</body></html>")


def write_jury_report(folder: str | Path) -> Path:
    """Write ``folder/report.html`` (via a temp file and rename) and return its path.

    Raises:
        RunWriteError: the file cannot be written; no temporary file is left.
    """
    from ..rundir import write_text_atomic

    path = Path(folder) / "report.html"
    write_text_atomic(path, render_jury_report(Path(folder)))
    return path


def _item_rows(folder: Path) -> Iterator[dict[str, Any]]:
    for r in iter_records(folder / "items.jsonl"):
        row = {k: v for k, v in r.items() if k not in ("schema", "judges")}
        for judge, view in (r.get("judges") or {}).items():
            row.update({f"{judge}.{k}": v for k, v in view.items()})
        yield row


def export_jury(folder: str | Path, *, format: str = "csv", out: str | Path | None = None
                ) -> tuple[Path, Path, int, int]:
    """Write ``items.<format>`` and ``calls.<format>`` of a jury run (see the module
    docstring) to ``out`` (default ``folder/export``): (items path, calls path, item rows,
    call rows).

    Raises:
        ConfigError: an unknown format, pyarrow missing for parquet, ``out`` unusable.
        RunWriteError: a table cannot be written.
    """
    from ..reports.export import (CALL_COLUMNS_FIRST, call_row, check_export_format,
                                  make_export_folder, write_table)

    check_export_format(format)
    folder = Path(folder)
    jury = _load(folder, "jury.json")
    target = make_export_folder(Path(out) if out is not None else folder / "export")
    items, calls = target / f"items.{format}", target / f"calls.{format}"
    if items.resolve() == (folder / "items.jsonl").resolve():
        raise ConfigError(f"--out {str(target)!r} would overwrite the jury's items.jsonl; "
                          f"choose another folder (default: RUN/export)")
    n_items = write_table(items, format, ("item_id", "protocol", "task", "failed", "credit",
                                     "verdict", "winners", "label", "gold", "voters"),
                     lambda: _item_rows(folder))

    def call_rows() -> Iterator[dict[str, Any]]:
        for j in jury.get("judges", []):
            for r in iter_records(folder / j["out"] / "calls.jsonl"):
                yield {"judge": j["name"], **call_row(r)}

    n_calls = write_table(calls, format, ("judge", *CALL_COLUMNS_FIRST), call_rows)
    return items, calls, n_items, n_calls
