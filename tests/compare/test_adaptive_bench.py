"""Adaptive PCF through the bench: same winners as fixed K (exact), fewer calls, recorded
stops, resume, rescoring and cache overlap."""

import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.compare import BenchConfig, rescore_run, run_bench
from jurybox.errors import ConfigError
from jurybox.rundir import read_jsonl
from jurybox.run import RunOptions
from jurybox.sim import SimConfig

PRIMACY = SimConfig(bias="primacy")


def _run(tmp_path, name, cache, **extra):
    config = BenchConfig(dataset="truthfulqa", protocols=("pcf",), k=7, limit=60, sim=PRIMACY,
                         **extra)
    return run_bench(config, tmp_path / name, options=RunOptions(cache_path=tmp_path / cache))


def _winners(out):
    return {r["item_id"]: r["winners"] for r in read_jsonl(out / "items.jsonl")}


def test_exact_gives_fixed_k_winners_with_fewer_calls_and_records_why(tmp_path):
    fixed = _run(tmp_path, "fixed", "fixed.sqlite")
    exact = _run(tmp_path, "exact", "exact.sqlite", adaptive="exact")
    assert _winners(exact.out) == _winners(fixed.out)
    assert exact.totals.model_calls < fixed.totals.model_calls
    records = read_jsonl(exact.out / "items.jsonl")
    assert {r["stop"] for r in records} == {"all", "settled"}
    for r in records:
        assert r["k"] in (2, 6, 7)  # 7 orders, or all n! of 2- and 3-candidate items
        # a settled item asked more than half its orders (the rule cannot stop sooner)
        assert r["n_calls"] == r["k"] if r["stop"] == "all" else r["k"] // 2 < r["n_calls"] < r["k"]
    s = exact.summary.protocols["pcf"]
    assert sum(s.calls_per_item["distribution"].values()) == 60
    assert s.calls_per_item["mean"] == sum(r["n_calls"] for r in records) / 60
    assert s.stops["settled"] == sum(r["stop"] == "settled" for r in records)
    assert exact.summary.label("pcf") == "pcf (exact)"
    manifest = json.loads((exact.out / "run.json").read_text())
    assert manifest["protocols"][0]["params"]["adaptive"] == "exact"
    assert manifest["config"]["adaptive"] == "exact"
    # a fixed-K rerun on the adaptive run's cache asks only the orders it skipped
    again = _run(tmp_path, "fixed-again", "exact.sqlite")
    assert again.totals.model_calls == fixed.totals.model_calls - exact.totals.model_calls
    assert again.totals.cache_hits == exact.totals.model_calls
    # rescoring replays the adaptive rule from the recorded calls: the same decisions
    rescored = rescore_run(exact.out, tmp_path / "rescored")
    assert _winners(rescored.out) == _winners(exact.out)
    assert rescored.totals.model_calls == 0


def test_sequential_asks_at_least_min_k_and_is_labelled(tmp_path):
    seq = _run(tmp_path, "seq", "c.sqlite", adaptive="sequential", confidence=0.9, min_k=3)
    records = read_jsonl(seq.out / "items.jsonl")
    assert all(r["n_calls"] >= min(3, r["k"]) for r in records)
    assert any(r["stop"] == "sequential" for r in records)
    assert seq.summary.label("pcf") == "pcf (sequential)"
    params = json.loads((seq.out / "run.json").read_text())["protocols"][0]["params"]
    assert (params["adaptive"], params["confidence"], params["min_k"]) == ("sequential", 0.9, 3)


@pytest.mark.parametrize("extra, match", [
    (dict(adaptive="greedy"), r"adaptive must be one of off, exact, sequential, got 'greedy'"),
    (dict(adaptive="sequential", confidence=1.0), r"confidence must be in \(0, 1\)"),
    (dict(adaptive="sequential", min_k=0), r"min_k must be >= 1"),
    (dict(confidence=0.9), r"--confidence and --min-k set the sequential rule"),
    (dict(adaptive="exact", min_k=2), r"--confidence and --min-k set the sequential rule"),
])
def test_bad_adaptive_settings_are_refused_before_any_call(tmp_path, extra, match):
    with pytest.raises(ConfigError, match=match):
        _run(tmp_path, "bad", "c.sqlite", **extra)
    assert not (tmp_path / "bad").exists()


def test_adaptive_without_pcf_is_refused_on_the_command_line(tmp_path):
    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--model", "sim", "--protocols",
                                      "direct", "--adaptive", "exact", "--out",
                                      str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "--adaptive 'exact' applies to pcf" in result.output
