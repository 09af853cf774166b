"""Length bias end to end on simulated runs: items.jsonl records each candidate's length, and
summary.json, the terminal and the report show the figure computed from those records (here
recomputed independently, without jurybox.stats)."""

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.datasets import load_dataset

runner = CliRunner()


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _by_hand(records: list[dict], task: str) -> dict:
    """Observed, expected and gold rates and the counts, from items.jsonl records alone."""
    hits = expected = gold = Fraction(0)
    n = n_gold = failed = tied = equal = 0
    for r in records:
        lengths = r["lengths"]
        if task == "pairwise":
            if r["verdict"] == "tie":
                tied += 1
                continue
            picked = {"A": {0}, "B": {1}}.get(r["verdict"], set())
            golden = {"A>B": {0}, "B>A": {1}}.get(r["label"], set())
        else:
            picked, golden = set(r["winners"]), set(r["gold"])
        if not picked:
            failed += 1
            continue
        longest = {j for j, length in enumerate(lengths) if length == max(lengths)}
        if len(longest) == len(lengths):
            equal += 1
            continue
        n += 1
        hits += Fraction(len(longest & picked), len(picked))
        expected += Fraction(len(longest), len(lengths))
        if golden:
            n_gold += 1
            gold += Fraction(len(longest & golden), len(golden))
    return {"n": n, "observed": float(hits / n), "expected": float(expected / n),
            "gold": float(gold / n_gold) if n_gold else None, "n_gold": n_gold,
            "n_failed": failed, "n_tied": tied, "n_equal_length": equal}


def _check_run(out, protocols, task, output, labels=None):
    summary = json.loads((out / "summary.json").read_text())
    records = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    lines = [" ".join(line.split()) for line in output.splitlines()]
    for name in protocols:
        b = summary["protocols"][name]["length_bias"]
        mine = _by_hand([r for r in records if r["protocol"] == name], task)
        for key, value in mine.items():
            assert b[key] == (pytest.approx(value) if isinstance(value, float) else value), (
                name, key)
        low, high = b["confidence_interval"]
        row = (f"│ {(labels or {}).get(name, name)} │ {b['n']} │ {_pct(b['observed'])} "
               f"[{_pct(low)}, {_pct(high)}] │ {_pct(b['expected'])} │ {_pct(b['gold'])} │")
        assert any(line.startswith(row) for line in lines), (row, output)
    html = (out / "report.html").read_text()
    assert '<section id="length-bias">' in html and "arXiv 2404.04475" in html
    return summary


def test_listwise_bench_records_lengths_and_reports_the_figure(tmp_path):
    out = tmp_path / "tq"
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--protocols",
                                 "direct,pcf", "--limit", "12", "--k", "3", "--out", str(out),
                                 "--cache", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 0, result.output
    assert "length bias: how often the pick is the longest candidate" in result.output
    _check_run(out, ["direct", "pcf"], "listwise", result.output)
    # the recorded lengths are the candidates' characters, in dataset order
    texts = {i.item_id: i.candidates for i in load_dataset("truthfulqa").iter_items()}
    for line in (out / "items.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert r["lengths"] == [len(c) for c in texts[r["item_id"]]]


def test_pairwise_bench_reports_the_longer_responses_win_rate(tmp_path):
    out = tmp_path / "jb"
    result = runner.invoke(app, ["bench", "judgebench", "--model", "sim", "--protocols",
                                 "pairwise,both-orders", "--limit", "6", "--out", str(out),
                                 "--cache", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 0, result.output
    assert "length bias: how often the longer response wins" in result.output
    summary = _check_run(out, ["pairwise", "both-orders"], "pairwise", result.output,
                         {"both-orders": "both-orders (net)"})
    assert {b["expected"] for b in (summary["protocols"][p]["length_bias"]
                                    for p in ("pairwise", "both-orders"))} == {0.5}


def test_judge_prints_the_length_line(tmp_path):
    data = tmp_path / "three.jsonl"
    data.write_text("\n".join(json.dumps(row) for row in [
        {"id": "q1", "prompt": "2+2?", "candidates": ["4", "four", "22"], "gold": [0]},
        {"id": "q2", "prompt": "Capital of France?", "candidates": ["Paris", "Lyon, France"]},
        {"id": "q3", "prompt": "Colour of the sky?", "candidates": ["blue", "grey"]},
    ]) + "\n")
    out = tmp_path / "j"
    result = runner.invoke(app, ["judge", str(data), "--model", "sim", "--out", str(out),
                                 "--no-cache"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    mine = _by_hand(records, "listwise")
    assert mine["n_equal_length"] == 1 and mine["n"] == 2  # q3: "blue" and "grey", 4 each
    b = json.loads((out / "summary.json").read_text())["protocols"]["pcf"]["length_bias"]
    low, high = b["confidence_interval"]
    assert (f"length bias: the pick was the longest candidate for {_pct(mine['observed'])}% "
            f"of 2 decided items (95% CI {_pct(low)} to {_pct(high)}; unbiased "
            f"{_pct(mine['expected'])}%, gold {_pct(mine['gold'])}%; p ") in " ".join(
                result.output.split())


JURY = """\
judges:
  - name: primacy
    model: sim
    sim: {bias: primacy, seed: 1}
  - name: fair
    model: sim
    sim: {bias: none, seed: 3}
"""


def test_a_jury_reports_each_judges_and_its_own_length_bias(tmp_path):
    jury = tmp_path / "jury.yaml"
    jury.write_text(JURY)
    out = tmp_path / "run"
    result = runner.invoke(app, ["bench", "truthfulqa", "--jury", str(jury), "--limit", "8",
                                 "--k", "2", "--protocols", "pcf", "--no-cache", "--out",
                                 str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    p = json.loads((out / "summary.json").read_text())["protocols"]["pcf"]
    mine = _by_hand(records, "listwise")
    assert p["length_bias"]["observed"] == pytest.approx(mine["observed"])
    assert p["length_bias"]["n"] == mine["n"]
    for judge in ("primacy", "fair"):
        views = [{**r["judges"][judge], "lengths": r["lengths"], "gold": r["gold"]}
                 for r in records]
        b = p["judges"][judge]["length_bias"]
        assert b["observed"] == pytest.approx(_by_hand(views, "listwise")["observed"])
    assert "longest %" in result.output
    said = (f"jury length bias: the pick was the longest candidate for "
            f"{_pct(mine['observed'])}% of {mine['n']} decided items")
    assert said in result.output and said in (out / "report.html").read_text()


def test_the_figure_catches_a_simulated_judge_that_favours_length(tmp_path):
    """The same items, a simulated judge without and with 40 points for the longest candidate
    (SimConfig.length_bias): the biased judge's longest-share is above the gold's rate and
    significantly above an unbiased judge's; the unbiased one is not (the test fails if the
    figure does not move with the judge's preference)."""
    from jurybox.compare import BenchConfig, run_bench
    from jurybox.run import RunOptions
    from jurybox.sim import SimConfig

    shares = {}
    for points in (0.0, 40.0):
        config = BenchConfig(dataset="truthfulqa", protocols=("direct",), limit=120, model="sim",
                             sim=SimConfig(length_bias=points, bias="none"))
        result = run_bench(config, tmp_path / f"len{points:g}",
                           options=RunOptions(cache_path=None))
        shares[points] = result.summary.protocols["direct"].length_bias
    plain, biased = shares[0.0], shares[40.0]
    assert plain.n == biased.n > 100 and plain.gold == biased.gold
    assert biased.observed > biased.gold > biased.expected
    assert biased.p_value < 1e-6 and biased.confidence_interval[0] > biased.gold
    assert plain.observed < biased.observed - 0.2
    assert plain.confidence_interval[0] <= plain.gold  # the gold rate explains the unbiased judge


def test_length_bias_0_keeps_the_simulated_judges_cache_keys_and_run_json():
    from jurybox.sim import SimConfig

    assert "length_bias" not in SimConfig().identity()
    assert "length_bias" not in SimConfig().settings()
    assert SimConfig(length_bias=5).identity()["length_bias"] == 5
