"""A live cascade of two judges on 127.0.0.1 whose verdicts are known: the cheap judge is
right and order-consistent on the even items and always names the response shown first on the
odd ones; the strong judge is always right. Every stage's figures are hand-derived."""

import re

import pytest

from jurybox.judging.cascade import cascade_judge
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy
from jurybox.stats.selective import split_items

from ..providers.fake_server import completion, fake_server

ITEMS = [{"id": f"q{i}", "prompt": f"Question {i}?", "candidates": [f"good {i}", f"bad {i}"],
          "gold": 0} for i in range(80)]


def _shown(text: str, label: str) -> str:
    return re.search(rf"\[\[response {label} \w+\]\]\n(.*?)\n\[\[end response {label}", text,
                     re.S).group(1)


def _prefers_good(text: str) -> str:
    return "[[A>B]]" if _shown(text, "A").startswith("good") else "[[B>A]]"


def cheap(request: dict) -> str:
    text = request["messages"][-1]["content"]
    index = int(re.search(r"good (\d+)", text).group(1))
    return completion(_prefers_good(text) if index % 2 == 0 else "[[A>B]]")


def strong(request: dict) -> str:
    return completion(_prefers_good(request["messages"][-1]["content"]))


def _options(tmp_path):
    return RunOptions(structured="off", retry=RetryPolicy(attempts=1, base_s=0),
                      cache_path=tmp_path / "cache.sqlite")


def test_the_cheap_judges_unsure_items_and_only_those_go_to_the_strong_judge(tmp_path):
    with fake_server(cheap) as cheap_url, fake_server(strong) as strong_url:
        result = cascade_judge(
            ITEMS, [{"model": "vllm/m", "name": "cheap", "base_url": cheap_url},
                    {"model": "vllm/m", "name": "strong", "base_url": strong_url}],
            target=0.8, delta=0.1, seed=1, out=tmp_path, protocol="both-orders",
            options=_options(tmp_path))
    cal, test = split_items(80, 0.5, 1)
    even_cal = int((cal % 2 == 0).sum())
    even_test = int((test % 2 == 0).sum())
    # stage 1 at delta 0.05: its even calibration items (both orders agree, right) pass at
    # threshold 1 when there are >= ceil(log 0.05 / log 0.8) = 14 of them; with the odd ones
    # (the orders disagree: a net tie, wrong) it fails
    assert even_cal >= 14
    first, second = result.stages
    assert first.rule.threshold == 1.0 and first.rule.n_accepted == even_cal
    assert (first.asked, first.accepted, first.model_calls) == (80, 40, 160)
    assert (first.test_accepted, first.test_agree) == (even_test, even_test)
    # stage 2 sees only the 40 odd items, is calibrated on the odd calibration ones, and is
    # always right
    assert (second.asked, second.accepted, second.model_calls) == (40, 40, 80)
    assert second.rule.n_calibration == 40 - even_cal
    assert (result.test.n, result.test.n_accepted, result.test.agreement) == (40, 40, 1.0)
    assert result.abstained == 0 and result.n_calibration == 40
    assert first.out == tmp_path / "stage-1-cheap" and (first.out / "report.html").is_file()
    # a later stage's folder names the items it was given
    assert second.out.name.startswith("stage-2-strong-") and (second.out / "run.json").is_file()
    assert (first.failed, second.failed) == (0, 0)


def test_a_rerun_asks_nothing_again(tmp_path):
    stages = [{"model": "vllm/m", "name": "strong"}]
    asked = []

    def counted(request: dict) -> str:
        asked.append(request)
        return strong(request)

    with fake_server(counted) as url:
        stages[0]["base_url"] = url
        first = cascade_judge(ITEMS[:30], stages, target=0.8, out=tmp_path, seed=0,
                              protocol="both-orders", options=_options(tmp_path))
        again = cascade_judge(ITEMS[:30], stages, target=0.8, out=tmp_path, seed=0,
                              protocol="both-orders", options=_options(tmp_path))
    # model_calls counts every session of the stage's run: the rerun added none
    assert len(asked) == 60 and first.stages[0].model_calls == again.stages[0].model_calls == 60
    assert again.test == first.test


@pytest.mark.parametrize("models, message", [
    ([], "one or more judges"), (["sim", "sim"], "different names"),
    ([{"name": "x"}], "a cascade stage is a model spec or a dict with 'model'")])
def test_bad_cascades_are_refused(tmp_path, models, message):
    with pytest.raises(ValueError, match=message):
        cascade_judge(ITEMS, models, target=0.8, out=tmp_path)


def by_model(request: dict) -> str:
    return cheap(request) if request["model"] == "cheap" else strong(request)


def test_judge_cascade_from_the_command_line_gives_the_same_stages(tmp_path):
    import json

    from typer.testing import CliRunner

    from jurybox.cli import app

    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in ITEMS))
    with fake_server(by_model) as url:
        result = CliRunner().invoke(app, [
            "judge", str(path), "--cascade", "vllm/cheap,vllm/strong", "--base-url", url,
            "--protocol", "both-orders", "--structured", "off", "--attempts", "1",
            "--no-cache", "--target-agreement", "0.8", "--split-seed", "1",
            "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "out" / "cascade.json").read_text())["cascade"]
    cal, test = split_items(80, 0.5, 1)
    even_test = int((test % 2 == 0).sum())
    assert [(s["model"], s["asked"], s["accepted"], s["model_calls"])
            for s in record["stages"]] == [("vllm/cheap", 80, 40, 160),
                                           ("vllm/strong", 40, 40, 80)]
    assert record["stages"][0]["test_accepted"] == even_test
    assert (record["test"]["n_accepted"], record["test"]["agreement"]) == (40, 1.0)
    out = " ".join(result.output.split())
    assert "test items: 40 of 40 accepted (100.0%), 100.0% agree" in out
    assert "verdicts accepted on vllm/cheap then vllm/strong agree" in out
    # 160 + 80 calls for the 80 items accepted; no USD: vllm has no price
    assert "Per accepted verdict: 3.00 calls. " in out


@pytest.mark.parametrize("args, message", [
    (["--cascade", "sim"], "give --target-agreement"),
    (["--cascade", "sim", "--target-agreement", "0.8", "--model", "sim"],
     "give it instead of --model or --jury"),
    (["--cascade", "sim", "--target-agreement", "0.8", "--dry-run"], "--dry-run prices one"),
    (["--cascade", "sim,sim", "--target-agreement", "0.8"], "one or more different judges"),
    # every stage's key before the first stage runs (it was found after stage 1's calls)
    (["--cascade", "sim,openai/gpt-4o-mini", "--target-agreement", "0.8"],
     "openai/gpt-4o-mini needs an API key"),
])
def test_judge_cascade_refuses_before_any_call(tmp_path, monkeypatch, args, message):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("JURYBOX_API_KEY", raising=False)
    from typer.testing import CliRunner

    from jurybox.cli import app

    result = CliRunner().invoke(app, ["judge", "truthfulqa", "--limit", "4",
                                      "--out", str(tmp_path / "out"), *args])
    assert result.exit_code == 2 and message in " ".join(result.output.split())
    assert not (tmp_path / "out").exists()


def test_pairs_of_identical_responses_are_refused_before_any_call(tmp_path):
    # the bundled JudgeBench holds pairs whose two responses are the same text
    from typer.testing import CliRunner

    from jurybox.cli import app

    result = CliRunner().invoke(app, ["judge", "judgebench", "--cascade", "sim",
                                      "--protocol", "both-orders", "--target-agreement", "0.8",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "have identical candidates" in " ".join(result.output.split())
    assert not (tmp_path / "out").exists()


def test_bench_cascade_judges_the_datasets_pairs_with_both_orders(tmp_path):
    # the same 80 pairs as JudgeBench lines (its label the gold): bench's default protocol
    # for pairwise data is both-orders, so the stages are the judge command's
    import json

    from typer.testing import CliRunner

    from jurybox.cli import app

    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps({
        "pair_id": item["id"], "question": item["prompt"], "response_A": item["candidates"][0],
        "response_B": item["candidates"][1], "label": "A>B", "source": "mmlu-pro-law"}) + "\n"
        for item in ITEMS))
    with fake_server(by_model) as url:
        result = CliRunner().invoke(app, [
            "bench", str(path), "--cascade", "vllm/cheap,vllm/strong", "--base-url", url,
            "--structured", "off", "--attempts", "1", "--no-cache",
            "--target-agreement", "0.8", "--split-seed", "1", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "out" / "cascade.json").read_text())["cascade"]
    assert [(s["model"], s["asked"], s["accepted"], s["model_calls"])
            for s in record["stages"]] == [("vllm/cheap", 80, 40, 160),
                                           ("vllm/strong", 40, 40, 80)]
    assert (record["test"]["n_accepted"], record["test"]["agreement"]) == (40, 1.0)
    run = json.loads((tmp_path / "out" / "stage-1-vllm-cheap" / "run.json").read_text())
    assert run["config"]["protocol"] == "both-orders"


@pytest.mark.parametrize("args, message", [
    (["--protocols", "pcf,direct"], "--cascade judges with one protocol"),
    (["--protocols", "both-orders"], "protocol 'both-orders' judges pairwise items"),
    (["--model", "sim"], "give it instead of --model or --jury"),
])
def test_bench_cascade_refuses_before_any_call(tmp_path, args, message):
    from typer.testing import CliRunner

    from jurybox.cli import app

    result = CliRunner().invoke(app, ["bench", "truthfulqa", "--limit", "4", "--cascade",
                                      "sim", "--target-agreement", "0.8",
                                      "--out", str(tmp_path / "out"), *args])
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert not (tmp_path / "out").exists()
