"""Flat tables of a ranking folder (``jurybox rank``'s OUT): one row per system, one per pair.

:func:`export_ranking` reads ``OUT/summary.json`` (``kind: "rank"``, as
:func:`jurybox.leaderboard.run.write_ranking` writes it) and writes to ``out``:

- ``systems.<ext>``: one row per system, best first: the columns of
  :func:`system_rows` (summary.json's ``systems`` keys, each CI as ``<name>_low`` and
  ``<name>_high``); the same columns as ``OUT/leaderboard.csv``.
- ``pairs.<ext>``: one row per pair of systems compared: ``a``, ``b`` (sorted names),
  ``a_win_rate`` (percent of ``a``'s verdicts against ``b``, ties half), ``n`` (comparisons),
  then the judge's order effects on the pair (``n_orders``, ``flip_rate``, ``flip_low``,
  ``flip_high``, ``first_shown_rate``, ...; empty where the pair was judged in one order or
  recorded without orders). The first row, ``a = b = "*"``, pools every pair.

Values as :mod:`jurybox.reports.export` writes them (csv, jsonl, parquet).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError
from .export import check_export_format, make_export_folder, write_table

__all__ = ["RankExport", "SYSTEM_COLUMNS", "export_ranking", "is_rank_dir", "pair_rows",
           "system_rows"]

#: The systems table's columns (and leaderboard.csv's), in order.
SYSTEM_COLUMNS = ("rank", "rank_low", "rank_high", "name", "n", "win_rate", "win_rate_low",
                  "win_rate_high", "lc_win_rate", "lc_win_rate_low", "lc_win_rate_high", "bt",
                  "bt_low", "bt_high", "bt_style", "bt_style_low", "bt_style_high",
                  "bt_adjusted", "bt_adjusted_low", "bt_adjusted_high")
_PAIR_FIRST = ("a", "b", "a_win_rate", "n")


@dataclass(frozen=True)
class RankExport:
    """What :func:`export_ranking` wrote: the two tables and their rows."""

    systems: Path
    pairs: Path
    n_systems: int
    n_pairs: int


def _flat(record: dict[str, Any]) -> dict[str, Any]:
    """``x_ci: [lo, hi]`` as ``x_low``, ``x_high`` (None: both empty); other keys as they are."""
    row: dict[str, Any] = {}
    for key, value in record.items():
        if key.endswith("_ci"):
            lo, hi = value if value is not None else (None, None)
            row[f"{key[:-3]}_low"], row[f"{key[:-3]}_high"] = lo, hi
        else:
            row[key] = value
    return row


def system_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per system of a ranking's summary, with exactly :data:`SYSTEM_COLUMNS`."""
    return [{c: flat.get(c) for c in SYSTEM_COLUMNS}
            for flat in map(_flat, summary["systems"])]


def pair_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per compared pair (module docstring), the pooled row first."""
    matrix = summary.get("matrix") or {"systems": [], "win_rate": [], "n": []}
    index = {name: i for i, name in enumerate(matrix["systems"])}
    order = {(o["a"], o["b"]): _flat({k: v for k, v in o.items() if k not in ("a", "b", "n")})
             for o in summary.get("order") or []}
    rows: list[dict[str, Any]] = []
    if ("*", "*") in order:
        rows.append({"a": "*", "b": "*", "a_win_rate": None,
                     "n": summary.get("n_comparisons"), **order[("*", "*")]})
    names = matrix["systems"]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            n = matrix["n"][i][index[b]]
            if not n:
                continue
            rows.append({"a": a, "b": b, "a_win_rate": matrix["win_rate"][i][index[b]], "n": n,
                         **order.get((a, b), {})})
    return rows


def is_rank_dir(path: Path) -> bool:
    """Whether ``path`` is a ranking folder (a summary.json of ``kind: "rank"``, no run.json)."""
    summary = path / "summary.json"
    if (path / "run.json").exists() or not summary.is_file():
        return False
    try:
        return json.loads(summary.read_text(encoding="utf-8")).get("kind") == "rank"
    except (OSError, ValueError, AttributeError):
        return False


def export_ranking(folder: str | Path, *, format: str = "csv",
                   out: str | Path | None = None) -> RankExport:
    """Write a ranking folder's systems and pairs tables (module docstring).

    Args:
        folder: ``jurybox rank``'s OUT (holding summary.json).
        format: ``csv``, ``parquet`` (needs ``pip install 'jurybox[parquet]'``) or ``jsonl``.
        out: folder for ``systems.<format>`` and ``pairs.<format>`` (default
            ``folder/export``; created).

    Raises:
        ConfigError: an unknown format, pyarrow missing for parquet, an ``out`` that cannot
            be created.
        DataError: summary.json missing, not JSON, or not a ranking's.
        RunWriteError: a table cannot be written.
    """
    check_export_format(format)
    folder = Path(folder)
    path = folder / "summary.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(path, f"cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise DataError(path, f"not JSON: {exc}") from None
    if not isinstance(summary, dict) or summary.get("kind") != "rank":
        raise DataError(path, "not a ranking's summary (kind 'rank'; jurybox rank writes it)",
                        field="kind")
    target = make_export_folder(Path(out) if out is not None else folder / "export")
    systems, pairs = target / f"systems.{format}", target / f"pairs.{format}"
    rows = system_rows(summary)
    n_systems = write_table(systems, format, SYSTEM_COLUMNS, lambda: iter(rows))
    prows = pair_rows(summary)
    n_pairs = write_table(pairs, format, _PAIR_FIRST, lambda: iter(prows))
    return RankExport(systems, pairs, n_systems, n_pairs)
