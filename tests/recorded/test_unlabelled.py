"""Unlabelled pairwise recordings (no label, or null): position figures and the judges'
agreement, no accuracy. Every figure hand-computed from the four lines below (orders AB, BA:
the response shown first is A in AB and B in BA)."""

import json
import math

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.recorded.jsonl import read_recorded_jsonl
from jurybox.recorded.jury import judges_agreement
from jurybox.recorded.scoring import score_recording

LINES = [
    {"id": "1", "judges": {"x": ["A", "A"], "y": ["A", None]}},
    {"id": "2", "judges": {"x": ["A", "B"], "y": ["B", "A"]}},
    {"id": "3", "label": None, "judges": {"x": [None, None], "y": ["B", "B"]}},
    {"id": "4", "judges": {"x": ["B", "B"], "y": ["A", "A"]}},
]


def _file(tmp_path, lines=LINES):
    path = tmp_path / "unl.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_position_figures_count_every_pair_and_no_accuracy_is_made_up(tmp_path):
    x, y = (score_recording(r) for r in read_recorded_jsonl(_file(tmp_path)))
    # x: pairs 1 and 4 agree across orders, 2 does not, 3 is unparsed: cons 2/3; its 6
    # decisive verdicts pick the first shown 4 times (1 AB, 2 AB, 2 BA, 4 BA)
    assert (x.consistency, x.n_consistency) == (2 / 3, 3)
    assert (x.first_shown_rate, x.n_decisive, x.parse_failures) == (4 / 6, 6, 2)
    # y: pairs 3 and 4 agree, 2 does not, 1 has an unparsed order: cons 2/3; 3 of its 7
    # decisive verdicts pick the first shown (1 AB, 3 BA, 4 AB)
    assert (y.consistency, y.first_shown_rate, y.parse_failures) == (2 / 3, 3 / 7, 1)
    for s in (x, y):
        assert s.n == 4 and s.n_labelled == 0
        assert all(a.n == 0 and math.isnan(a.accuracy)
                   for a in (*s.by_order, s.net, s.strict, s.agree_only))


def test_the_judges_agreement_and_a_partly_labelled_file(tmp_path):
    recs = read_recorded_jsonl(_file(tmp_path))
    # net decisions: x 1 A, 2 tie, 4 B; y 1 A, 2 tie, 3 B, 4 A: shared 1, 2, 4, agreeing on 2
    assert judges_agreement(recs) == [("x", "y", 2, 3)]
    labelled = [{**LINES[0], "label": "A"}, *LINES[1:]]
    x = score_recording(read_recorded_jsonl(_file(tmp_path, labelled))[0])
    # only pair 1 is labelled: x is right on it in both orders; consistency still counts all
    assert x.n_labelled == 1 and (x.by_order[0].accuracy, x.by_order[0].n) == (1.0, 1)
    assert x.net.n == 1 and x.agree_only.coverage == 1.0 and x.consistency == 2 / 3


def test_the_command_line_says_why_accuracies_are_missing_and_refuses_calibration(tmp_path):
    path = _file(tmp_path)
    result = CliRunner().invoke(app, ["score", str(path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "x — — — 66.7 66.7" in out and "y — — — 66.7 42.9" in out
    assert "no label on any pair: accuracies not shown" in out
    assert "judges' net decisions agree: x~y 66.7 (n 3)" in out
    detail = CliRunner().invoke(app, ["score", str(path), "--detail"])
    assert detail.exit_code == 0 and "jury on" not in detail.output  # no labels, no jury
    refused = CliRunner().invoke(app, ["score", str(path), "--target-agreement", "0.8"])
    assert refused.exit_code == 2 and "has no label" in refused.output
