"""``--jury FILE`` and ``--model a,b,c`` on bench and judge: a live run's table, the dry
run's price per judge, and bad jury files refused in one line (exit 2) before any call."""

import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from tests.cli_checks import one_line_error

runner = CliRunner()

JURY = """\
judges:
  - name: primacy
    model: sim
    sim: {bias: primacy, seed: 1}
  - name: recency
    model: sim
    sim: {bias: recency, seed: 2}
  - name: fair
    model: sim
    weight: 2
    sim: {bias: none, seed: 3}
"""


def _file(tmp_path, text, name="jury.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_bench_with_a_jury_prints_each_judge_and_the_jury(tmp_path):
    out = tmp_path / "run"
    result = runner.invoke(app, ["bench", "judgebench", "--jury", _file(tmp_path, JURY),
                                 "--limit", "3", "--protocols", "both-orders", "--no-cache",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    for fragment in ("primacy", "recency", "fair", "mean judge", "JURY",
                     "jury vs best judge", "jury vs mean judge", "Krippendorff's alpha",
                     "pairwise alpha (nominal)", "model calls this run: 36"):
        assert fragment in result.output, fragment
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "jury" and list(summary["judges"]) == ["primacy", "recency",
                                                                     "fair"]
    assert (out / "judges" / "fair" / "calls.jsonl").exists()


def test_judge_with_model_list_is_a_jury_of_equal_weights(tmp_path, sim, monkeypatch):
    from jurybox.datasets import ListwiseItem

    monkeypatch.setenv("JURYBOX_API_KEY", "sk-test")
    known = [ListwiseItem(f"q{i}", f"Q{i}?", (f"a{i}", f"b{i}", f"c{i}"), frozenset({0}))
             for i in range(4)]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{i}", "prompt": f"Q{i}?", "candidates":
                                         [f"a{i}", f"b{i}", f"c{i}"], "gold": 0}) + "\n"
                             for i in range(4)))
    out = tmp_path / "run"
    with sim(known) as server:  # a served judge beside the started one: --base-url is its
        result = runner.invoke(app, ["judge", str(items), "--model", "sim, openai/served",
                                     "--base-url", server.base_url, "--protocol", "pcf",
                                     "--k", "3", "--no-cache", "--out", str(out)])
    assert result.exit_code == 0, result.output
    jury = json.loads((out / "jury.json").read_text())
    assert [(j["name"], j["weight"]) for j in jury["judges"]] == [("sim", 1.0),
                                                                   ("openai/served", 1.0)]
    assert "base_url" not in jury["judges"][0]
    assert "interval on C_i" in result.output


def test_judge_with_a_jury_shows_and_writes_every_items_decisions(tmp_path):
    # judge is run on candidates without gold: the decisions per item are its product
    from jurybox.rundir import read_jsonl

    items = tmp_path / "pairs.jsonl"
    items.write_text("".join(json.dumps({"id": f"p{i}", "prompt": f"Q{i}?",
                                         "candidates": [f"a{i}", f"b{i}"]}) + "\n"
                             for i in range(3)))
    out = tmp_path / "run"
    result = runner.invoke(app, ["judge", str(items), "--jury", _file(tmp_path, JURY),
                                 "--protocol", "both-orders", "--no-cache", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "decisions per item (A, B or tie; failed: no vote)" in result.output
    lines = (out / "judgments.csv").read_text().splitlines()
    assert lines[0] == "item_id,protocol,jury,primacy,recency,fair"
    records = {r["item_id"]: r for r in read_jsonl(out / "items.jsonl")}
    for line in lines[1:]:  # each row is the jury's items.jsonl record, flattened
        item, protocol, jury, *judges = line.split(",")
        r = records[item]
        assert (protocol, jury) == ("both-orders", r["verdict"])
        assert judges == [r["judges"][j]["verdict"] for j in ("primacy", "recency", "fair")]
    assert len(lines) == 4 and "3 decisions: " in result.output
    # alpha over 3 items has no bootstrap interval (resampling 3 items is not one)
    alpha = json.loads((out / "summary.json").read_text())["protocols"]["both-orders"][
        "alpha_nominal"]
    assert alpha["n_units"] == 3 and alpha["confidence_interval"] == [None, None]


def test_dry_run_prices_each_judge_and_makes_no_call(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    jury = _file(tmp_path, "judges:\n  - model: openai/gpt-4o-mini\n  - model: sim\n")
    out = tmp_path / "run"
    result = runner.invoke(app, ["bench", "truthfulqa", "--jury", jury, "--limit", "3",
                                 "--dry-run", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.count("dry run:") == 2
    assert "judge openai/gpt-4o-mini (weight 1):" in result.output
    assert "jury of 2 judges:" in result.output and "USD" in result.output
    assert not out.exists()


@pytest.mark.parametrize("text, fragments", [
    ("judges:\n  - model: sim\n    weigth: 2\n", ["jury.yaml:3", "unknown key 'weigth'"]),
    ("judges:\n  - model: sim\n  - model: sim\n", ["both named 'sim'"]),
    ("judges:\n  - model: sim\n    name: a\n  - model: sim\n    name: b\n",
     ["repeats judge 1", "jury.yaml:4"]),
    ("judges:\n  - model: sim\n    weight: -1\n", ["jury.yaml:3", "finite number >= 0"]),
    ("judges:\n  - model: sim\n    weight: .nan\n", ["finite number >= 0"]),
    ("judges:\n  - model: sim\n    weight: heavy\n", ["finite number >= 0"]),
    ("judges:\n  - {model: sim, weight: 0}\n  - {model: sim/b, weight: 0}\n",
     ["weights are all 0"]),
    ("judges: []\n", ["judges"]),
    ("judge:\n  - model: sim\n", ["'judges' list"]),
    ("judges:\n  - model: sim\n    sim: {bias: sideways}\n", ["judges.0.sim.bias"]),
    ("judges:\n  - model: openai/x\n    sim: {seed: 1}\n", ["'sim' settings are for"]),
])
def test_bad_jury_files_are_one_line_before_any_call(tmp_path, text, fragments):
    out = tmp_path / "run"
    result = runner.invoke(app, ["bench", "judgebench", "--jury", _file(tmp_path, text),
                                 "--limit", "2", "--out", str(out)])
    one_line_error(result, *fragments)
    assert not out.exists()


def test_missing_key_and_unreachable_endpoint_name_the_judge_before_any_call(
        tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    out = tmp_path / "run"
    jury = _file(tmp_path, "judges:\n  - model: sim\n  - model: openai/gpt-4o-mini\n"
                           "    name: gpt\n")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--jury", jury, "--limit", "2",
                                       "--out", str(out)]), "judge 'gpt'", "OPENAI_API_KEY")
    assert not out.exists()
    monkeypatch.setenv("JURYBOX_API_KEY", "sk-test")
    jury = _file(tmp_path, "judges:\n  - model: sim\n  - model: openai/x\n    name: far\n"
                           "    base_url: http://127.0.0.1:9/v1\n")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--jury", jury, "--limit", "2",
                                       "--out", str(out)]), "judge 'far'", "cannot reach")
    assert not out.exists()


def test_jury_and_model_together_and_repeated_model_list_are_refused(tmp_path):
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--jury", _file(tmp_path, JURY),
                                       "--model", "sim", "--out", str(tmp_path / "o")]),
                   "--jury lists the judges")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model", "sim,sim",
                                       "--out", str(tmp_path / "o")]), "both named 'sim'")
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model", "sim,,sim/b",
                                       "--out", str(tmp_path / "o")]), "empty entry")
    assert not (tmp_path / "o").exists()
