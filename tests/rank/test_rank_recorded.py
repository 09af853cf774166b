"""jurybox rank on recorded pairwise judgments that name their systems (the generic recorded
format with "systems" and "lengths"): no model call, hand-computed figures."""

import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.leaderboard.recorded import recorded_comparisons

cli = CliRunner()


def _lines(tmp_path, rows):
    path = tmp_path / "rec.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# x beats base in both orders on p1 and p2, ties it on p3 (A then B), loses on p4;
# y's only line failed in both orders (null verdicts)
ROWS = [
    {"id": "p1", "systems": ["x", "base"], "lengths": [10, 8], "judges": {"j": ["A", "A"]}},
    {"id": "p2", "systems": ["base", "x"], "lengths": [8, 12], "judges": {"j": ["B", "B"]}},
    {"id": "p3", "systems": ["x", "base"], "judges": {"j": ["A", "B"]}},
    {"id": "p4", "systems": ["x", "base"], "judges": {"j": ["B", "B"]}},
    {"id": "p5", "systems": ["y", "base"], "judges": {"j": [None, None]}},
    {"id": "p6", "systems": ["y", "base"], "judges": {"j": ["A", None]}},
]


def test_recorded_lines_become_comparisons(tmp_path):
    found = recorded_comparisons(_lines(tmp_path, ROWS))
    assert found.judge == "j" and found.failed == 1
    assert [(c.prompt, c.a, c.b, c.outcome) for c in found] == [
        ("p1", "x", "base", 1.0), ("p2", "base", "x", 0.0), ("p3", "x", "base", 0.5),
        ("p4", "x", "base", 0.0), ("p6", "y", "base", 1.0)]
    assert (found[0].length_a, found[0].length_b) == (10, 8)
    # p3: A shown first won the first order, B shown first the second
    assert [(o.first, o.outcome) for o in found[2].orders] == [("x", 1.0), ("base", 0.0)]


def test_rank_a_recording(tmp_path):
    out = tmp_path / "r"
    result = cli.invoke(app, ["rank", str(_lines(tmp_path, ROWS)), "--baseline", "base",
                              "--rounds", "100", "--out", str(out)])
    assert result.exit_code == 0, result.output
    s = json.loads((out / "summary.json").read_text())
    rows = {r["name"]: r for r in s["systems"]}
    # x: 1 + 1 + 0.5 + 0 over 4 = 62.5%; y: its one decided order, 100%
    assert rows["x"]["win_rate"] == 62.5 and rows["y"]["win_rate"] == 100.0
    assert s["n_failed"] == 1 and s["n_comparisons"] == 5 and s["judge"] == "j"
    # lengths are missing on some lines: no LC win rate, said once
    assert rows["x"]["lc_win_rate"] is None
    assert any("lengths are not known" in n for n in s["notes"])


@pytest.mark.parametrize("row, message", [
    ({"id": "p1", "judges": {"j": ["A", "A"]}}, "missing 'systems'"),
    ({"id": "p1", "systems": ["x"], "judges": {"j": ["A", "A"]}}, "must be the two systems"),
    ({"id": "p1", "systems": ["x", "x"], "judges": {"j": ["A", "A"]}}, "names one system twice"),
    ({"id": "p1", "systems": ["x", "b"], "lengths": [1, -1], "judges": {"j": ["A", "A"]}},
     "lengths in characters"),
])
def test_bad_recorded_lines_name_the_line_and_field(tmp_path, row, message):
    result = cli.invoke(app, ["rank", str(_lines(tmp_path, [row]))])
    assert result.exit_code == 2
    assert ":1: field '" in result.output and message in result.output, result.output


def test_several_judges_need_one_named(tmp_path):
    rows = [{"id": "p1", "systems": ["x", "b"], "judges": {"j": ["A", "A"], "k": ["B", "B"]}}]
    result = cli.invoke(app, ["rank", str(_lines(tmp_path, rows)), "--baseline", "b"])
    assert result.exit_code == 2 and "say which to rank with --judge NAME" in result.output
    result = cli.invoke(app, ["rank", str(_lines(tmp_path, rows)), "--baseline", "b",
                              "--judge", "k", "--rounds", "10", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert {r["name"]: r["win_rate"] for r in s["systems"]}["x"] == 0.0


def test_the_example_systems_file_is_the_simulated_systems():
    from pathlib import Path

    from jurybox.leaderboard.simulated import truthfulqa_systems

    path = Path(__file__).parents[2] / "examples" / "systems.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines == truthfulqa_systems(24)
    # truthful is right on all 24, sometimes on the 12 even-numbered, misled on none
    assert [sum(s in r["correct"] for r in lines) for s in ("truthful", "sometimes", "misled")
            ] == [24, 12, 0]
