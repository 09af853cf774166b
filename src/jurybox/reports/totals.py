"""The report's run totals and warnings: what the terminal prints after a run, read back from
what the run recorded, never computed again.

- Totals: run.json's ``totals`` (the sum over sessions of each session's totals, as the
  runner counted them from its call records: :class:`jurybox.runner.Totals`) and, when the
  run was resumed, each session's own line (the terminal prints the session it ran: "model
  calls this run"). Cost: summary.json's ``cost`` (the engine prices every session's tokens
  once, as the terminal's "spent:" line says).
- Warnings: summary.json's ``warnings`` (what the terminal prints as ``warning:`` lines), the
  partial note (summary.json ``failed_units``), protocols without a comparison or a sign test,
  and the structured-output fallbacks each session recorded in run.json.
"""

from __future__ import annotations

import math

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .notes import comparison_notes, jury_spent_note, number, partial_note, spent_note
from .sections import Table, protocol_label

__all__ = ["RunTotals", "jury_totals", "pool_lines", "replicas_table", "run_totals",
           "run_warnings", "when"]

_COLUMNS = ["", "status", "seconds", "model calls", "cache hits", "retries", "re-asks",
            "failed judgments", "tokens", "prefix-cached"]


@dataclass(frozen=True)
class RunTotals:
    """What the report's totals panel shows.

    Attributes:
        figures: (label, value) pairs for the whole run, in the terminal's order: model
            calls, cache hits, retries, re-asks, failed judgments (by kind), tokens, prompt
            tokens the provider's prefix cache served, USD.
        sessions: a row per session when the run was resumed (else None).
        caption: what the figures count, and the price the cost is at.
        replicas: a row per replica of an endpoint pool (:func:`replicas_table`), or None.
    """

    figures: list[tuple[str, str]]
    sessions: Table | None
    caption: str
    replicas: Table | None = None


def _dict(value: Any) -> dict[str, Any]:
    """A JSON object as written, or {} (absent, or not an object: a hand-edited file)."""
    return value if isinstance(value, dict) else {}


def _count(totals: Mapping[str, Any], key: str) -> int:
    """A recorded count; 0 for what no writer of run.json records (not a number, a bool, NaN,
    infinity, a negative number: a hand-edited file)."""
    value = totals.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return int(value) if math.isfinite(value) and value >= 0 else 0


def _failures(totals: Mapping[str, Any]) -> str:
    """``3 (api 1, parse 2)``: failed judgments in all, then by kind (kinds with none left
    out)."""
    kinds = _dict(totals.get("failures"))
    counts = {k: _count(kinds, k) for k in kinds}
    n = sum(counts.values())
    by_kind = ", ".join(f"{k} {v:,}" for k, v in counts.items() if v)
    return f"{n:,} ({by_kind})" if n else "0"


def _seconds(value: Any) -> str:
    secs = number(value)
    return "—" if secs != secs else f"{secs:,.1f}"


def _row(label: str, status: str, seconds: Any, totals: Mapping[str, Any]) -> list[str]:
    return [label, status, _seconds(seconds),
            *(f"{_count(totals, k):,}" for k in ("model_calls", "cache_hits", "retries",
                                                 "reasks")),
            _failures(totals),
            f"{_count(totals, 'prompt_tokens') + _count(totals, 'completion_tokens'):,}",
            f"{_count(totals, 'cached_tokens'):,}"]


def _figures(totals: Mapping[str, Any], usd: float | None) -> list[tuple[str, str]]:
    tokens = _count(totals, "prompt_tokens") + _count(totals, "completion_tokens")
    return [("model calls", f"{_count(totals, 'model_calls'):,}"),
            ("cache hits", f"{_count(totals, 'cache_hits'):,}"),
            ("retries", f"{_count(totals, 'retries'):,}"),
            ("re-asks", f"{_count(totals, 'reasks'):,}"),
            *([("cached failures asked again", f"{asked:,}")]
              if (asked := _count(totals, "cached_failures_asked")) else []),
            ("failed judgments", _failures(totals)),
            ("tokens", f"{tokens:,}"),
            ("prompt tokens", f"{_count(totals, 'prompt_tokens'):,}"),
            ("prefix-cached tokens", f"{_count(totals, 'cached_tokens'):,}"),
            ("USD", "not priced" if usd is None else f"{usd:,.4f}")]


def when(started: Any) -> str:
    """``2026-12-01T15:14:39.983553+00:00`` -> ``2026-12-01 15:14:39 UTC`` (else as given)."""
    try:
        moment = datetime.fromisoformat(str(started))
    except ValueError:
        return str(started or "")
    if moment.utcoffset() is not None and not moment.utcoffset():
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return moment.isoformat(sep=" ", timespec="seconds")


def run_totals(manifest: Mapping[str, Any], summary: Mapping[str, Any]) -> RunTotals | None:
    """The run's totals (run.json: every session) and cost (summary.json), with a row per
    session when there were several; None when run.json has no totals."""
    totals = manifest.get("totals")
    if not isinstance(totals, dict):
        return None
    sessions = [s for s in manifest.get("sessions") or () if isinstance(s, dict)]
    table = None
    if len(sessions) > 1:
        rows = []
        for i, s in enumerate(sessions, start=1):
            started = when(s.get("started")).removesuffix(" UTC")  # the caption says UTC
            rows.append(_row(f"session {i}, {started}" if started else f"session {i}",
                             str(s.get("status") or ""), s.get("seconds"),
                             _dict(s.get("totals"))))
        rows.append(_row("run", str(manifest.get("status") or ""),
                         sum(number(s.get("seconds")) for s in sessions), totals))
        table = Table(_COLUMNS, rows, "The run was resumed: each session (its start, UTC) "
                      "is what the terminal printed at its end (\"model calls this run\"; a "
                      "session interrupted by Ctrl-C or SIGTERM printed no such line, and its "
                      "row is what it had done); the run line is their sum (run.json).")
    cost = _dict(summary.get("cost"))
    usd = number(cost.get("usd"))
    simulated = bool(_dict(manifest.get("model")).get("simulated"))
    figures = _figures(totals, None if usd != usd else usd)
    if usd != usd and simulated:
        figures[-1] = ("USD", "0 (simulated)")
    return RunTotals(figures, table, _caption(totals, cost, simulated),
                     replicas_table(sessions))


def _replicas(session: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [r for r in session.get("replicas") or () if isinstance(r, dict)]


def _affinity(items: int, on_one: int) -> str:
    return (f"{on_one:,} of {items:,} items ({100 * on_one / items:.1f}%) kept every call on "
            f"one replica" if items else "")


def pool_lines(session: Mapping[str, Any]) -> list[str]:
    """The terminal's lines for a session judged through an endpoint pool (run.json's
    ``replicas``, ``items``, ``items_on_one_replica``): [] for one endpoint."""
    replicas = _replicas(session)
    if not replicas:
        return []
    affinity = _affinity(_count(session, "items"), _count(session, "items_on_one_replica"))
    lines = [f"endpoint pool: {len(replicas)} replicas" + (f"; {affinity}" if affinity else "")]
    for r in replicas:
        latency = number(r.get("mean_latency_s"))
        share = number(r.get("share"))
        lines.append(
            f"  {r.get('url')}: {_count(r, 'calls'):,} calls"
            + ("" if share != share else f" ({100 * share:.0f}%)")
            + f", {_count(r, 'failures'):,} failed"
            + ("" if latency != latency else f", mean latency {1000 * latency:,.0f} ms")
            + (f", cooled down {_count(r, 'cooldowns'):,}x" if _count(r, "cooldowns") else "")
            + (", its server exited" if r.get("gone") is True else ""))
    return lines


def replicas_table(sessions: Sequence[Mapping[str, Any]]) -> Table | None:
    """Each replica's calls, share, failures, mean latency and cooldowns over every session
    judged through an endpoint pool (a replica is its URL as recorded); None when no session
    was."""
    rows: dict[str, list[float]] = {}  # url -> calls, failures, latency sum, cooldowns
    items = on_one = 0
    for s in sessions:
        for r in _replicas(s):
            row = rows.setdefault(str(r.get("url")), [0, 0, 0.0, 0])
            calls, failures = _count(r, "calls"), _count(r, "failures")
            latency = number(r.get("mean_latency_s"))
            row[0] += calls
            row[1] += failures
            row[2] += 0.0 if latency != latency else latency * (calls - failures)
            row[3] += _count(r, "cooldowns")
        items += _count(s, "items")
        on_one += _count(s, "items_on_one_replica")
    if not rows:
        return None
    total = sum(row[0] for row in rows.values())
    body = [[url, f"{int(c):,}", f"{100 * c / total:.1f}%" if total else "—", f"{int(f):,}",
             f"{1000 * lat / (c - f):,.0f}" if c > f else "—", f"{int(cool):,}"]
            for url, (c, f, lat, cool) in rows.items()]
    affinity = _affinity(items, on_one)
    return Table(["replica", "calls", "share", "failed", "mean latency (ms)", "cooldowns"],
                 body, "The endpoint pool: model calls sent to each replica over the run's "
                 "sessions (failed: calls that raised; a failed call is retried, usually on "
                 "another replica)" + (f"; {affinity}." if affinity else "."))


def _caption(totals: Mapping[str, Any], cost: Mapping[str, Any], simulated: bool) -> str:
    parts = ["Over every session of the run (run.json). model calls: HTTP attempts made "
             "(retries included; none for cache hits). failed judgments: judgments that ended "
             "without a usable answer, by kind, never a score. prefix-cached tokens: prompt "
             "tokens the provider's prefix cache served, when it reports them."]
    if _count(totals, "invalid_usage"):
        parts.append(f"{_count(totals, 'invalid_usage'):,} calls reported a token usage that "
                     f"is not a count; their tokens are left out.")
    usd = number(cost.get("usd"))
    if usd == usd:
        price = cost.get("usd_per_million")
        at = (f"; price {number(price[0]):g} in / {number(price[1]):g} out USD per million "
              f"tokens: {cost.get('price_source') or 'given'}"
              if isinstance(price, list) and len(price) == 2 else "")
        batch = number(cost.get("batch_usd"))
        parts.append(spent_note(usd, batch if batch == batch else None) + at + ".")
    elif simulated:
        parts.append("USD: the simulated judge runs on this machine.")
    else:
        parts.append("USD: no price was given or known for this model (--price-in, "
                     "--price-out).")
    return " ".join(parts)


def run_warnings(manifest: Mapping[str, Any], summary: Mapping[str, Any],
                 params: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What the terminal warned about after the run, one sentence each."""
    out = [f"warning: {w}" for w in summary.get("warnings") or () if isinstance(w, str)]
    failed = summary.get("failed_units")
    if isinstance(failed, dict) and _count(failed, "units"):
        n_units = summary.get("n_units", summary.get("n_items"))
        out.append(partial_note(_count(failed, "units"), _count(failed, "api"),
                                int(n_units) if isinstance(n_units, int) else None))
    labels = {name: protocol_label(name, dict(p)) for name, p in params.items()}
    out += comparison_notes(summary, labels)
    for s in manifest.get("sessions") or ():
        structured = s.get("structured") if isinstance(s, dict) else None
        for f in (structured or {}).get("fallbacks") or () if isinstance(
                structured, dict) else ():
            if isinstance(f, dict):
                out.append(f"the endpoint refused structured output ({f.get('from')}); the "
                           f"rest of that session asked for "
                           f"{'free text (off)' if f.get('to') == 'off' else f.get('to')}")
    return out


def jury_totals(judges: Sequence[tuple[str, Mapping[str, Any]]],
                usd: Mapping[str, Any], *, simulated: bool = False) -> RunTotals | None:
    """A jury's totals: the sum over its judges (each judge's own run.json: every session),
    and a row per judge; ``usd``: judge -> what its run cost (None: not priced);
    ``simulated``: every judge is the simulated one (no cost)."""
    from ..rundir.writer import add_totals

    if not judges:
        return None
    rows = [_row(name, str(m.get("status") or ""),
                 sum(number(s.get("seconds")) for s in m.get("sessions") or ()
                     if isinstance(s, dict)), _dict(m.get("totals")))
            for name, m in judges]
    total = add_totals([{"totals": _dict(m.get("totals"))} for _, m in judges])
    spent = [number(v) for v in usd.values() if v is not None]
    cost = (jury_spent_note(sum(spent)) + "." if spent else
            "USD: the simulated judges run on this machine." if simulated else
            "USD: no price was given or known for these models.")
    figures = _figures(total, sum(spent) if spent else None)
    if not spent and simulated:
        figures[-1] = ("USD", "0 (simulated)")
    return RunTotals(figures,
                     Table(_COLUMNS, rows, "Each judge's own run (judges/<name>/run.json, "
                           "every session)."),
                     "Over every judge's sessions. model calls: HTTP attempts made (retries "
                     "included; none for cache hits); failed judgments by kind, never a score. "
                     + cost)
