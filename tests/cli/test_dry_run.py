"""--dry-run: no model call, no run directory, and the calls it predicts are the calls a run
makes."""

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.compare import BenchConfig, run_bench
from jurybox.cost import Price, resolve_price, token_counter
from jurybox.errors import ConfigError
from jurybox.run import RunOptions

runner = CliRunner()


def _lines(output):
    return {ln.split(":")[0].strip(): ln for ln in output.splitlines() if ":" in ln}


def test_dry_run_predicts_the_calls_a_run_makes_and_makes_none(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "openai/gpt-4o-mini",
                                 "--protocols", "direct,pcf", "--k", "5", "--limit", "30",
                                 "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "no model call was made" in result.output and not (tmp_path / "runs").exists()
    # no key needed for a dry run; the bundled price table knows the model
    assert "bundled list price as of 2025-06" in result.output
    assert "ESTIMATED" in result.output and "estimate: 4 characters a token" in result.output
    # the same bench on the simulated judge: direct's call is PCF's first, so the distinct
    # calls are PCF's; the dry run's count must equal what the run asked
    real = run_bench(BenchConfig(dataset="truthfulqa", protocols=("direct", "pcf"), k=5,
                                 limit=30), tmp_path / "run", options=RunOptions(cache_path=None))
    calls = real.summary.protocols["pcf"].calls_planned
    assert f"calls: {calls:,} (re-asks" in result.output
    assert real.totals.model_calls == calls


def test_dry_run_of_adaptive_pcf_gives_a_range_and_usd_from_given_prices(tmp_path):
    result = runner.invoke(app, ["bench", "truthfulqa", "--model", "vllm/m", "--protocols",
                                 "pcf", "--k", "7", "--limit", "10", "--adaptive", "exact",
                                 "--dry-run", "--price-in", "1", "--price-out", "2"])
    assert result.exit_code == 0, result.output
    assert "at least" in _lines(result.output)["units"]
    assert "given (--price-in, --price-out)" in result.output


def test_bad_input_is_still_an_error_in_a_dry_run(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "prompt": "Q?", "candidates": ["x"], "gold": 0}\n')
    result = runner.invoke(app, ["bench", str(bad), "--model", "sim", "--dry-run"])
    assert result.exit_code == 2 and "at least 2" in result.output


def test_prices_and_token_counts():
    with pytest.raises(ConfigError, match="--price-in and --price-out go together"):
        resolve_price("openai/gpt-4o", 1.0, None)
    with pytest.raises(ConfigError, match="a number from 0 to 10,000"):
        resolve_price("openai/gpt-4o", -1.0, 2.0)
    assert resolve_price("vllm/unknown", None, None) is None
    # 1,000 input and 500 output tokens at 2.50 / 10.00 per million: 0.0025 + 0.005 USD
    assert Price(2.5, 10.0, "t").usd(1000, 500) == pytest.approx(0.0075)
    counter = token_counter("vllm/m")
    assert not counter.exact and counter.count("x" * 400) == 100  # 4 characters a token


def test_tiktoken_is_used_for_openai_models_when_it_can_load(monkeypatch):
    import sys
    import types

    fake = types.ModuleType("tiktoken")

    class Encoding:
        name = "fake_base"

        def encode(self, text, disallowed_special=()):
            return text.split()

    fake.encoding_for_model = lambda name: Encoding()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tiktoken", fake)
    counter = token_counter("openai/gpt-4o")
    assert counter.exact and counter.name == "tiktoken fake_base"
    assert counter.count("three word text") == 3


def test_a_run_with_prices_reports_usd_spent_over_all_sessions(tmp_path):
    import json

    args = ["bench", "truthfulqa", "--model", "sim", "--limit", "4", "--k", "2", "--out",
            str(tmp_path / "run"), "--no-cache", "--price-in", "1", "--price-out", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0 and "spent:" in result.output
    totals = json.loads((tmp_path / "run" / "run.json").read_text())["totals"]
    cost = json.loads((tmp_path / "run" / "summary.json").read_text())["cost"]
    # 1 USD per million prompt tokens, 2 per million completion tokens
    expected = (totals["prompt_tokens"] * 1 + totals["completion_tokens"] * 2) / 1e6
    assert cost["usd"] == pytest.approx(expected, abs=1e-6)
    assert f"spent: {expected:,.4f} USD" in result.output


def test_personalize_dry_run_counts_the_distinct_calls_a_run_makes(tmp_path):
    from jurybox.personalize import PersonalizeConfig, run_personalize

    args = ["personalize", "squality", "--rubric", "squality", "--dimensions", "overall",
            "--raters", "2", "--limit", "4", "--shots", "0,2", "--seeds", "2"]
    result = runner.invoke(app, [*args, "--model", "sim", "--dry-run"])
    assert result.exit_code == 0, result.output
    config = PersonalizeConfig(ratings="squality", items="squality", rubric="squality",
                               dimensions=("overall",), raters=2, limit=4, shots=(0, 2),
                               seeds=2, group_field="passage_id")
    real = run_personalize(config, tmp_path / "run", options=RunOptions(cache_path=None))
    # "overall" has no gate: every planned call is asked; identical zero-shot prompts of
    # different raters are one call (the second is served in flight or from the log)
    distinct = real.totals.model_calls
    assert f"calls: {distinct:,} (re-asks" in result.output
