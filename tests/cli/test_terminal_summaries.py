"""What a judge run's terminal summary says beyond its table: the pairwise first-shown rate."""

import json

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.cli._tables import first_shown_line
from jurybox.compare.summary import ProtocolSummary
from jurybox.stats import accuracy

runner = CliRunner()
PAIRS = [{"id": "p1", "prompt": "2+2?", "candidates": ["4", "5"], "gold": 0},
         {"id": "p2", "prompt": "Capital of France?", "candidates": ["Lyon", "Paris"],
          "gold": 1},
         {"id": "p3", "prompt": "Largest planet?", "candidates": ["Jupiter", "Mars"]}]


def _summary(rate, n):
    return ProtocolSummary(accuracy=accuracy([1.0]), calls_planned=n, calls_failed={},
                           items_failed=0, first_shown_win_rate=rate, n_decisive_calls=n)


def test_first_shown_line_has_the_count_wilson_ci_and_binomial_p():
    # 4 of 6: Wilson (z = 1.96): centre (4/6 + z^2/12) / (1 + z^2/6) = 0.6016, half-width
    # z / 1.6403 * sqrt((4/6)(2/6)/6 + z^2/144) = 0.3016 -> 30.0 to 90.3; exact two-sided
    # binomial p of 4 of 6 at 0.5: (1 + 6 + 15 + 15 + 6 + 1 - 20) / 64 = 44/64 = 0.688
    assert first_shown_line(_summary(4 / 6, 6)) == (
        "first-shown rate: 4 of 6 decisive verdicts picked the response shown first: 66.7% "
        "(95% CI 30.0 to 90.3; 50% without position bias; p 0.688)")
    assert first_shown_line(_summary(None, 0)) == (
        "first-shown rate: no decisive verdict (every call was a tie or failed)")


def test_a_pairwise_judge_run_prints_its_first_shown_rate(tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(p) + "\n" for p in PAIRS))
    result = runner.invoke(app, ["judge", str(data), "--model", "sim", "--protocol",
                                 "both-orders", "--out", str(tmp_path / "run"), "--no-cache"],
                           env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    # per call, in candidate terms (the table): p1 A A, p2 A B, p3 B B; the first call shows
    # candidate 0 first, the second candidate 1: first shown picked in p1 1, p2 2, p3 1 = 4/6
    assert "│ p1   │ A       │ A A " in result.output
    assert "│ p2   │ tie     │ A B " in result.output
    assert "│ p3   │ B       │ B B " in result.output
    assert ("first-shown rate: 4 of 6 decisive verdicts picked the response shown first: "
            "66.7% (95% CI 30.0 to 90.3;") in result.output


def test_a_listwise_jury_table_shows_the_jury_c_i_it_picked_from(tmp_path):
    data = tmp_path / "two.jsonl"
    data.write_text(
        '{"id": "q1", "prompt": "What is 2+2?", "candidates": ["4", "5", "22"]}\n'
        '{"id": "q2", "prompt": "Capital of France?", "candidates": ["Paris", "Lyon"], '
        '"gold": 0}\n')
    jury = tmp_path / "jury.yaml"
    jury.write_text("judges:\n  - model: sim\n    name: primacy\n    sim: {bias: primacy, "
                    "seed: 1}\n  - model: sim\n    name: recency\n    sim: {bias: recency, "
                    "seed: 2}\n")
    out = tmp_path / "run"
    result = runner.invoke(app, ["judge", str(data), "--jury", str(jury), "--k", "3",
                                 "--out", str(out), "--no-cache"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    records = {r["item_id"]: r for r in map(json.loads, (out / "items.jsonl").open())}
    q1 = records["q1"]
    # the jury's C_i is the mean of its two judges' (weights 1 and 1), candidate by candidate
    for i, c in enumerate(q1["combined"]):
        judges = q1["judges"]
        assert abs(c - (judges["primacy"]["combined"][i]
                        + judges["recency"]["combined"][i]) / 2) < 1e-3
    shown = " ".join(f"{c:.1f}" for c in q1["combined"])
    assert f"│ q1   │ pcf      │ 2    │ {shown} " in result.output
    assert ("JURY: the weighted mean of the judges' C_i (weights: primacy 1, recency 1), "
            "winners within the tolerance of the best") in result.output


def test_the_jury_report_shows_each_items_question_and_candidates(tmp_path):
    data = tmp_path / "two.jsonl"
    data.write_text(
        '{"id": "q1", "prompt": "What is <2+2>?", "candidates": ["4", "5", "22"]}\n'
        '{"id": "q2", "prompt": "Capital of France?", "candidates": ["Paris", "Lyon"], '
        '"gold": 0}\n')
    out = tmp_path / "run"
    jury = tmp_path / "jury.yaml"
    jury.write_text("judges:\n  - {model: sim, name: a, sim: {seed: 1}}\n"
                    "  - {model: sim, name: b, sim: {seed: 2}}\n")
    result = runner.invoke(app, ["judge", str(data), "--jury", str(jury), "--k", "3",
                                 "--out", str(out), "--no-cache"])
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    # the question escaped, each candidate's text in the items browser
    assert "<summary>What is &lt;2+2&gt;?</summary>" in page
    for text in ("4", "5", "22", "Paris", "Lyon"):
        assert f"<pre class='text'>{text}</pre>" in page
