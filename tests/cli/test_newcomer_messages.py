"""The messages a newcomer meets first: one line each, exit 2, saying the fix."""

import json
import math

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.cli.personalize import error_change
from jurybox.errors import did_you_mean_file
from jurybox.providers.spec import provider_guess

from ..cli_checks import one_line_error

runner = CliRunner()


def test_a_base_url_without_a_scheme_gets_the_url_to_use(tmp_path):
    line = one_line_error(runner.invoke(app, [
        "bench", "truthfulqa", "--model", "vllm/m", "--base-url", "127.0.0.1:8000",
        "--out", str(tmp_path / "o")]))
    assert line == "error: --base-url has no scheme: did you mean http://127.0.0.1:8000/v1?"


@pytest.mark.parametrize("model, expected", [
    ("gpt-4o-mini", "must look like 'provider/model'; did you mean openai/gpt-4o-mini?"),
    ("o3-mini", "did you mean openai/o3-mini?"),
    ("claude-3-5-haiku-latest", "did you mean anthropic/claude-3-5-haiku-latest?"),
    ("llama3", "name its provider, e.g. vllm/llama3 or ollama/llama3 (providers: openai, "),
])
def test_a_model_without_a_provider_gets_one_suggested(tmp_path, model, expected):
    one_line_error(runner.invoke(app, ["bench", "truthfulqa", "--model", model, "--limit", "2",
                                       "--out", str(tmp_path / "o")]),
                   f"model spec {model!r}", expected)
    assert provider_guess("GPT-4") == "openai" and provider_guess("mistral-7b") is None


def test_a_missing_file_gets_the_closest_name_in_its_folder_and_the_bundled_names(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "items.jsonl").write_text("")
    (tmp_path / ".itemz.jsonl").write_text("")  # hidden: never offered
    line = one_line_error(runner.invoke(app, ["judge", str(tmp_path / "itemz.jsonl"),
                                              "--model", "sim"]))
    assert line == (f"error: {tmp_path / 'itemz.jsonl'}: file not found; did you mean "
                    f"{str(tmp_path / 'items.jsonl')!r}? (bundled datasets: judgebench, "
                    f"judgebench-claude, judgebench-gpt, rewardbench2-sample, truthfulqa)")
    # nothing close in the folder: the closest bundled name, then the list
    one_line_error(runner.invoke(app, ["bench", "truthfulq"]),
                   "file not found; did you mean 'truthfulqa'? (bundled datasets: judgebench,")
    (tmp_path / "rubric.yaml").write_text("")
    one_line_error(runner.invoke(app, ["personalize", "squality", "--rubric",
                                       str(tmp_path / "rubrik.yaml")]),
                   f"did you mean {str(tmp_path / 'rubric.yaml')!r}? (bundled: pbig, squality, "
                   f"offensiveness)")
    assert did_you_mean_file(tmp_path / "nothing-like-it") == ""
    assert did_you_mean_file(tmp_path / "no-folder" / "items.jsonl") == ""


def test_judge_takes_one_protocol_and_says_bench_compares_several():
    line = one_line_error(runner.invoke(app, ["judge", "truthfulqa", "--protocol",
                                              "pcf,direct"]))
    assert line == ("error: --protocol takes one protocol, got 'pcf,direct'; to compare "
                    "several, use jurybox bench --protocols pcf,direct")


@pytest.mark.parametrize("args, expected", [
    (["bench", "truthfulqa", "--protocols", "direct,magic"],
     "(choose from apoc, both-orders, direct, keyed, pairwise, pcf, rubric)"),
    (["bench", "truthfulqa", "--sim-bias", "loud"],
     "--sim-bias must be one of none, primacy, recency, got 'loud'"),
    (["bench", "truthfulqa", "--sim-faults", "rate_x=1"],
     "with NAME in first_429, first_500, rate_429,"),
    (["agreement", "squality", "--level", "loud"],
     "--level must be one of nominal, ordinal, interval, ratio, got 'loud'"),
    (["personalize", "squality", "--rubric", "squality", "--judges", "magic"],
     "takes zero-shot, aggregate, personalized and --shots integers >= 0; got magic and 0, 1, "
     "2, 5, 10"),
])
def test_messages_list_choices_without_python_list_reprs(tmp_path, args, expected):
    line = one_line_error(runner.invoke(app, [*args, "--out", str(tmp_path / "o")]), expected)
    assert "[" not in line and "(" + "'" not in line, line


@pytest.mark.parametrize("difference, low, high, expected", [
    (3.5, -0.25, 7.125, "mean |error| lower by 3.500 (95% CI -0.250 to 7.125)"),
    # aggregate closer: said as higher, the CI of the amount turned with it (-7.125..0.25)
    (-3.5, -7.125, 0.25, "mean |error| higher by 3.500 (95% CI -0.250 to 7.125)"),
    (0.0, -1.0, 1.0, "mean |error| the same (95% CI of the difference -1.000 to +1.000)"),
])
def test_personalized_vs_aggregate_is_said_by_its_sign(difference, low, high, expected):
    assert error_change(difference, low, high) == expected


def test_personalize_with_4_raters_says_too_few_raters_for_a_ci(tmp_path):
    result = runner.invoke(app, ["personalize", "squality", "--rubric", "squality",
                                 "--dimensions", "overall", "--limit", "3", "--shots", "0,2",
                                 "--seeds", "1", "--no-cache", "--out", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    assert ("too few raters for a CI: means over 4 raters are shown without one (a CI needs "
            "5 or more)") in result.output
    assert "lower by -" not in result.output and "higher by -" not in result.output
    row = json.loads((tmp_path / "p" / "summary.json").read_text())["alignment"][0]
    assert row["n_raters"] == 4 and row["mae"]["n"] == 4 and row["mae"]["ci"] == [None, None]
    assert not math.isnan(row["mae"]["mean"])


def test_a_list_of_numbers_is_joined_too():
    from jurybox.protocols.listwise import PCFProtocol

    with pytest.raises(ValueError, match=r"^prompt_version must be one of 1, 2, got 9$"):
        PCFProtocol(prompt_version=9)
