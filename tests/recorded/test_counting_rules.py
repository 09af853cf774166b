"""jurybox score's counting rules on recorded judgments: --unparsed (how cons counts an item
with an unparsed order), --decimals, and every order shown when there are more than two.
Figures hand-computed from the lines below."""

import json
import math

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.recorded.jsonl import read_recorded_jsonl
from jurybox.recorded.scoring import score_recording

cli = CliRunner()

# three orders; j: item 1 all A (consistent), 2 A/B/A (not), 3 one unparsed, 4 all B
LINES = [
    {"id": "1", "label": "A", "orders": ["AB", "BA", "AB"], "judges": {"j": ["A", "A", "A"]}},
    {"id": "2", "label": "A", "orders": ["AB", "BA", "AB"], "judges": {"j": ["A", "B", "A"]}},
    {"id": "3", "label": "B", "orders": ["AB", "BA", "AB"], "judges": {"j": ["B", None, "B"]}},
    {"id": "4", "label": "A", "orders": ["AB", "BA", "AB"], "judges": {"j": ["B", "B", "B"]}},
]


def _file(tmp_path):
    path = tmp_path / "three.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    return path


def test_both_consistency_rules_are_computed(tmp_path):
    (s,) = [score_recording(r) for r in read_recorded_jsonl(_file(tmp_path))]
    # excluded: items 1, 2, 4 fully parsed, 1 and 4 consistent = 2/3; inconsistent: 2/4
    assert (s.consistency, s.n_consistency, s.consistency_strict) == (2 / 3, 3, 0.5)
    # order accuracy: o1 right on 1, 2, 3 of 4; o2 on 1 of 3 parsed (item 3 unparsed); o3 3/4
    assert [a.accuracy for a in s.by_order] == [0.75, 1 / 3, 0.75]


def test_every_order_is_a_column_the_rule_is_stated_and_decimals_are_on_request(tmp_path):
    path = _file(tmp_path)
    result = cli.invoke(app, ["score", str(path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "judge o1 o2 o3 both" in out and "j 75.0 33.3 75.0" in out
    assert "66.7" in out and "cons leaves out an item with an unparsed order (the default" in out
    result = cli.invoke(app, ["score", str(path), "--unparsed", "inconsistent", "--decimals",
                              "2"], env={"COLUMNS": "80"})
    out = " ".join(result.output.split())
    assert result.exit_code == 0 and "j 75.00 33.33 75.00" in out and "50.00" in out
    assert "cons counts an item with an unparsed order as inconsistent" in out
    bad = cli.invoke(app, ["score", str(path), "--unparsed", "maybe"])
    assert bad.exit_code == 2 and "--unparsed is excluded or inconsistent" in bad.output


def test_the_counting_options_are_refused_where_they_do_not_apply(tmp_path):
    outputs = tmp_path / "run"
    outputs.mkdir()
    result = cli.invoke(app, ["score", str(outputs), "--unparsed", "inconsistent"])
    assert result.exit_code == 2 and "--unparsed apply to recorded judgments" in result.output


def test_one_order_has_no_consistency_to_report(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"id": "1", "label": "A", "orders": ["AB"],
                                "judges": {"j": ["A"]}}) + "\n")
    (s,) = [score_recording(r) for r in read_recorded_jsonl(path)]
    assert math.isnan(s.consistency) and math.isnan(s.consistency_strict)
    assert s.by_order[0].accuracy == 1.0


def test_a_truncated_gzip_file_is_called_that(tmp_path):
    import gzip

    body = "".join(json.dumps({"id": str(i), "label": "A", "judges": {"j": ["A", "A"]}}) + "\n"
                   for i in range(50)).encode()
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(body)[:60])
    result = cli.invoke(app, ["score", str(path)])
    assert result.exit_code == 2 and "not a readable gzip file" in result.output, result.output
