"""`jurybox export` of a ranking folder: the systems and pairs tables from summary.json."""

import csv
import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.errors import DataError
from jurybox.reports.export_rank import SYSTEM_COLUMNS, export_ranking, is_rank_dir

# a hand-written ranking of three systems against "base": "x" beat base 3 of 4 times (75%),
# "y" 1 of 4 (25%); x and y never met
SUMMARY = {
    "kind": "rank", "baseline": "base", "n_comparisons": 8,
    "systems": [
        {"name": "x", "n": 4, "win_rate": 75.0, "win_rate_ci": [50.0, 100.0],
         "lc_win_rate": None, "lc_win_rate_ci": None, "bt": 1190.8, "bt_ci": [1100.0, 1300.0],
         "rank": 1, "rank_ci": [1, 2], "bt_style": None, "bt_style_ci": None},
        {"name": "base", "n": 8, "win_rate": None, "win_rate_ci": None, "lc_win_rate": None,
         "lc_win_rate_ci": None, "bt": 1000.0, "bt_ci": None, "rank": 2, "rank_ci": [1, 3],
         "bt_style": None, "bt_style_ci": None},
        {"name": "y", "n": 4, "win_rate": 25.0, "win_rate_ci": [0.0, 50.0],
         "lc_win_rate": None, "lc_win_rate_ci": None, "bt": 809.2, "bt_ci": [700.0, 900.0],
         "rank": 3, "rank_ci": [2, 3], "bt_style": None, "bt_style_ci": None}],
    "matrix": {"systems": ["base", "x", "y"],
               "win_rate": [[None, 25.0, 75.0], [75.0, None, None], [25.0, None, None]],
               "n": [[0, 4, 4], [4, 0, 0], [4, 0, 0]]},
    "order": [{"a": "*", "b": "*", "n": 8, "n_orders": 8, "flip_rate": 50.0,
               "flip_ci": [21.5, 78.5]},
              {"a": "base", "b": "x", "n": 4, "n_orders": 4, "flip_rate": 25.0,
               "flip_ci": [4.6, 69.9]}],
}


def _folder(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "summary.json").write_text(json.dumps(SUMMARY), encoding="utf-8")
    return tmp_path


def _rows(path):
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_rankings_systems_and_pairs_tables(tmp_path):
    folder = _folder(tmp_path)
    assert is_rank_dir(folder)
    result = export_ranking(folder)
    assert (result.n_systems, result.n_pairs) == (3, 3)
    systems = _rows(result.systems)
    assert tuple(systems[0]) == SYSTEM_COLUMNS
    assert [(r["name"], r["win_rate"], r["win_rate_low"], r["win_rate_high"], r["rank_low"])
            for r in systems] == [("x", "75.0", "50.0", "100.0", "1"),
                                  ("base", "", "", "", "1"), ("y", "25.0", "0.0", "50.0", "2")]
    pairs = _rows(result.pairs)
    # the pooled row, then base-x (base won 25% against x) with its order effects, then
    # base-y (no order effects recorded: empty); x-y never met: no row
    assert [(r["a"], r["b"], r["a_win_rate"], r["n"], r["flip_rate"], r["flip_low"])
            for r in pairs] == [("*", "*", "", "8", "50.0", "21.5"),
                                ("base", "x", "25.0", "4", "25.0", "4.6"),
                                ("base", "y", "75.0", "4", "", "")]


def test_the_export_command_takes_a_ranking_folder(tmp_path):
    folder = _folder(tmp_path / "rank")
    result = CliRunner().invoke(app, ["export", str(folder), "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    lines = (folder / "export" / "systems.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["bt"] for line in lines] == [1190.8, 1000.0, 809.2]


def test_a_summary_of_another_kind_is_refused(tmp_path):
    (tmp_path / "summary.json").write_text('{"kind": "score"}', encoding="utf-8")
    assert not is_rank_dir(tmp_path)
    with pytest.raises(DataError, match="not a ranking's summary"):
        export_ranking(tmp_path)
