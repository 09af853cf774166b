"""Items without gold and the simulated judge: serve-sim takes them, as jurybox judge does, and
both say, every time, that the simulated judge's verdicts on them are position-biased noise."""

import json

import pytest
from typer.testing import CliRunner

import jurybox.sim
from jurybox.cli import app
from jurybox.datasets import load_dataset
from jurybox.sim import SimConfig, SimJudge, SimServer

runner = CliRunner()

NOISE = ("the simulated judge's verdicts on unlabelled items are position-biased noise (it is "
         "told the gold answers and scores candidates without one alike), for trying the "
         "tool, not a measurement")
TWO = ('{"id": "q1", "prompt": "What is 2+2?", "candidates": ["4", "5", "22"]}\n'
       '{"id": "q2", "prompt": "Capital of France?", "candidates": ["Paris", "Lyon"], '
       '"gold": 0}\n')


def _flat(text: str) -> str:
    """Output with rich's line wrapping undone (the console is 176 columns in tests)."""
    return " ".join(text.split())


def _file(tmp_path, text=TWO, name="two.jsonl"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _serve_sim(monkeypatch, *args):
    """Run ``jurybox serve-sim`` up to serving: its output and the judge it would serve."""
    served = []
    monkeypatch.setattr(jurybox.sim, "serve_forever", lambda judge, **kw: served.append(judge))
    result = runner.invoke(app, ["serve-sim", *args])
    assert result.exit_code == 0, result.output
    return _flat(result.output), served[0]


def test_serve_sim_takes_a_file_without_gold_and_says_its_verdicts_are_noise(monkeypatch,
                                                                            tmp_path):
    shown, judge = _serve_sim(monkeypatch, "--dataset", str(_file(tmp_path)), "--port", "9")
    assert shown == ("simulated judge on http://127.0.0.1:9/v1 (model 'judge', 2 items, bias "
                     "primacy); Ctrl-C stops it; 1 of the 2 items has no gold: " + NOISE)
    assert judge.stats.known_items == 2
    # q1's candidates are known and unlabelled: scored as a judge that knows nothing scores
    # them (midway between the gold and the other level, plus each candidate's fixed offset);
    # q2's gold candidate gets gold_quality - midway more than that
    blind, cfg = SimJudge(), SimConfig()
    for text in ("4", "5", "22"):
        assert judge.quality("What is 2+2?", text) == blind.quality("What is 2+2?", text)
    lift = cfg.gold_quality - (cfg.gold_quality + cfg.other_quality) / 2
    assert judge.quality("Capital of France?", "Paris") == pytest.approx(
        blind.quality("Capital of France?", "Paris") + lift)
    assert lift > 0


def test_serve_sim_start_line_when_every_item_or_the_only_one_lacks_gold(monkeypatch,
                                                                         tmp_path):
    one = _file(tmp_path, TWO.splitlines()[0] + "\n", "one.jsonl")
    shown, _ = _serve_sim(monkeypatch, "--dataset", str(one), "--port", "9")
    assert shown == ("simulated judge on http://127.0.0.1:9/v1 (model 'judge', 1 item, bias "
                     "primacy); Ctrl-C stops it; the item has no gold: " + NOISE)
    both = _file(tmp_path, TWO.replace(', "gold": 0', ""), "both.jsonl")
    shown, _ = _serve_sim(monkeypatch, "--dataset", str(both), "--port", "9")
    assert shown.endswith("Ctrl-C stops it; the 2 items have no gold: " + NOISE)


def test_serve_sim_with_labelled_items_says_nothing_of_noise(monkeypatch):
    shown, judge = _serve_sim(monkeypatch, "--dataset", "rewardbench2-sample", "--port", "9")
    assert shown == ("simulated judge on http://127.0.0.1:9/v1 (model 'judge', 8 items, bias "
                     "primacy); Ctrl-C stops it")
    assert judge.stats.known_items == 8


def _judge(tmp_path, path, out, *more):
    return runner.invoke(app, ["judge", str(path), "--model", "sim", "--k", "3", "--out",
                               str(tmp_path / out), "--cache", str(tmp_path / "cache.sqlite"),
                               *more])


def test_a_simulated_judge_run_says_so_every_time(tmp_path):
    path = _file(tmp_path)
    expected = "warning: 1 of the 2 items has no gold: " + NOISE
    first = _judge(tmp_path, path, "run")
    assert first.exit_code == 0, first.output
    assert expected in _flat(first.output)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["warnings"] == [expected.removeprefix("warning: ")]
    again = _judge(tmp_path, path, "run")  # resumed: nothing left to judge
    assert "model calls this run: 0" in again.output and expected in _flat(again.output)
    cached = _judge(tmp_path, path, "other")  # a new run directory, every answer cached
    assert "cache hits: 5" in cached.output and expected in _flat(cached.output)
    assert "did not know" not in first.output


def test_no_noise_warning_for_labelled_items(tmp_path):
    result = _judge(tmp_path, _file(tmp_path, TWO.splitlines()[1] + "\n"), "run")
    assert result.exit_code == 0, result.output
    # (2 candidates under --k 3 give the --k above n! warning: not a noise warning)
    assert "unlabelled items are position-biased noise" not in result.output
    assert "warnings" not in json.loads((tmp_path / "run" / "summary.json").read_text())


def test_serve_sim_started_with_the_runs_file_warns_of_noise_only(tmp_path):
    path = _file(tmp_path)
    # what `jurybox serve-sim --dataset two.jsonl` serves
    with SimServer(SimJudge(load_dataset(str(path), labelled=False).items)) as server:
        result = runner.invoke(app, ["judge", str(path), "--model", "vllm/judge", "--base-url",
                                     server.base_url, "--k", "3", "--no-cache", "--out",
                                     str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    shown = _flat(result.output)
    assert "warning: 1 of the 2 items has no gold: " + NOISE in shown
    assert "did not know" not in shown  # it knows them: unlabelled, not unknown


def test_a_jury_of_simulated_judges_names_each_judge(tmp_path):
    jury = tmp_path / "jury.yaml"
    jury.write_text("judges:\n  - {model: sim, name: a}\n  - {model: sim, name: b, sim: "
                    "{seed: 1}}\n")
    result = runner.invoke(app, ["judge", str(_file(tmp_path)), "--jury", str(jury), "--k",
                                 "3", "--no-cache", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    shown = _flat(result.output)
    for name in "ab":
        assert f"warning: judge {name}: 1 of the 2 items has no gold: " + NOISE in shown
