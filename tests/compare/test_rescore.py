import json
import re

import pytest

from jurybox.compare import BenchConfig, rescore_run, run_bench, score_outputs
from jurybox.datasets import BUNDLED_OUTPUTS, bundled_path, load_judgebench_outputs
from jurybox.run import RunOptions
from jurybox.runner import RetryPolicy


def test_haiku_recording_reproduces_judgebench_figure():
    # JudgeBench's rule over the recording's own decision fields: 87 correct, 79 incorrect,
    # 104 tied of 270 (32.22%). Parsing the raw texts with Arena-Hard's rule must match.
    pairs = load_judgebench_outputs(bundled_path(BUNDLED_OUTPUTS["arena-hard-haiku"]))
    s = score_outputs(pairs, rule="unanimous")
    assert (s.counts.correct, s.counts.incorrect, s.counts.tie) == (87, 79, 104)
    assert round(100 * s.counts.accuracy, 2) == 32.22
    assert s.differences == [] and s.no_verdict == 13


def test_last_token_parse_lists_every_difference_with_its_reason():
    pairs = load_judgebench_outputs(bundled_path(BUNDLED_OUTPUTS["arena-hard-haiku"]))
    s = score_outputs(pairs, rule="last")
    assert len(s.differences) == 13
    assert all(d.recorded is None and "verdict tokens that disagree" in d.reason
               for d in s.differences)
    assert (s.counts.correct, s.counts.incorrect, s.counts.tie) == (87, 77, 106)


def test_rescoring_a_run_replays_every_answer_without_calls(tmp_path):
    config = BenchConfig(dataset="judgebench", protocols=("pairwise", "both-orders", "apoc"),
                         limit=10)
    ran = run_bench(config, tmp_path / "run",
                    options=RunOptions(retry=RetryPolicy(attempts=3, base_s=0)))
    again = rescore_run(tmp_path / "run", tmp_path / "rescored")
    assert again.summary.replayed is True and again.simulated is True
    assert again.summary.protocols == ran.summary.protocols
    assert json.loads((tmp_path / "rescored" / "run.json").read_text())["status"] == "complete"


def test_rescoring_twice_reparses_the_recording_each_time(tmp_path):
    from jurybox.errors import DataError

    config = BenchConfig(dataset="judgebench-claude", protocols=("pairwise",), limit=6)
    run_bench(config, tmp_path / "run")
    first = rescore_run(tmp_path / "run", tmp_path / "re")
    assert first.totals.model_calls == 0 and first.totals.cache_hits == 6
    calls = tmp_path / "run" / "calls.jsonl"
    lines = [json.loads(line) for line in calls.read_text().splitlines()]
    swap = {"A": "B", "B": "A"}
    for record in lines:  # the judge "said" the opposite everywhere: [[A>B]] -> [[B>A]]
        record["text"] = re.sub(r"\[\[([AB])(>>|>|=)([AB])\]\]",
                                lambda m: f"[[{swap[m[1]]}{m[2]}{swap[m[3]]}]]", record["text"])
    calls.write_text("".join(json.dumps(r) + "\n" for r in lines))
    second = rescore_run(tmp_path / "run", tmp_path / "re")
    before, after = (r.summary.protocols["pairwise"].accuracy for r in (first, second))
    assert after.n == before.n == 6  # every answer still parses
    assert after.accuracy == pytest.approx(1 - before.accuracy)  # verdicts flipped
    calls.unlink()
    with pytest.raises(DataError, match="calls.jsonl: file not found"):
        rescore_run(tmp_path / "run", tmp_path / "re")
    (tmp_path / "run" / "run.json").write_text("{oops")
    with pytest.raises(DataError, match="run.json: not a readable run manifest"):
        rescore_run(tmp_path / "run", tmp_path / "re")


def test_a_judgebench_format_file_gets_pairwise_protocols_by_default(tmp_path):
    row = {"pair_id": "p1", "question": "2+2?", "response_A": "4", "response_B": "5",
           "source": "mmlu-pro-math", "label": "A>B"}
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "pair_id": "p2"}) + "\n")
    result = run_bench(BenchConfig(dataset=str(path), model="sim"), tmp_path / "run")
    assert list(result.summary.protocols) == ["pairwise", "both-orders", "apoc"]


def test_recorded_answers_skip_unreadable_lines_and_say_which(tmp_path):
    from jurybox.compare import RecordedAnswers

    calls = tmp_path / "calls.jsonl"
    good = json.dumps({"key": "k1", "text": "[[A>B]]", "error": None})
    calls.write_bytes(b"\n".join([
        good.encode(),                                           # 1: an answer
        json.dumps({"key": "k2", "text": None, "error": "timeout"}).encode(),  # 2: a failure
        b'{"key": "k3", "te',                                    # 3: cut short
        b"[1, 2]",                                               # 4: JSON, not a record
        b"",                                                     # 5: blank: ignored
        b'{"key": "k4", "text": "caf\xe9"}',                     # 6: not UTF-8
        json.dumps({"text": "no key"}).encode(),                 # 7: no key
        b"[" * 100_000,                                          # 8: nested too deeply
    ]) + b"\n")
    answers = RecordedAnswers(calls)
    assert len(answers) == 1 and answers.get("k1").text == "[[A>B]]"
    assert answers.skipped == [3, 4, 6, 8] and answers.unusable == 1
    assert answers.problems() == (
        f"{calls}: skipped 4 line(s) that are not JSON records (line 3, 4, 6, 8) and 1 answer "
        f"record(s) without a text key and text; the calls they recorded are failures in the "
        f"rescore")


def test_rescore_run_warns_about_skipped_lines(tmp_path):
    from jurybox.compare import SkippedLinesWarning

    config = BenchConfig(dataset="rewardbench2-sample", protocols=("direct",), limit=2)
    run_bench(config, tmp_path / "run", options=RunOptions(retry=RetryPolicy(attempts=1)))
    calls = tmp_path / "run" / "calls.jsonl"
    calls.write_text(calls.read_text() + '{"cut short\n')  # 2 items x 1 call, then line 3
    with pytest.warns(SkippedLinesWarning, match=r"skipped 1 line\(s\) .* \(line 3\)"):
        again = rescore_run(tmp_path / "run", tmp_path / "rescored")
    assert again.summary.protocols["direct"].accuracy.n == 2  # both answers were still read


def test_a_calls_jsonl_that_is_a_directory_is_a_data_error(tmp_path):
    from jurybox.errors import DataError

    config = BenchConfig(dataset="rewardbench2-sample", protocols=("direct",), limit=1)
    run_bench(config, tmp_path / "run", options=RunOptions(retry=RetryPolicy(attempts=1)))
    (tmp_path / "run" / "calls.jsonl").unlink()
    (tmp_path / "run" / "calls.jsonl").mkdir()  # an IsADirectoryError traceback before
    with pytest.raises(DataError, match=r"calls\.jsonl: not a file"):
        rescore_run(tmp_path / "run", tmp_path / "rescored")


def test_runs_from_before_prompt_layout_2_rescore_with_layout_1_and_refuse_to_resume(tmp_path):
    import json as _json

    from jurybox.compare import BenchConfig, rescore_run, run_bench
    from jurybox.errors import ConfigError
    from jurybox.rundir import read_jsonl
    from jurybox.run import RunOptions

    old = BenchConfig(dataset="truthfulqa", limit=8, k=3, listwise_prompt=1)
    first = run_bench(old, tmp_path / "old", options=RunOptions(cache_path=None))
    manifest = _json.loads((tmp_path / "old" / "run.json").read_text())
    assert manifest["config"]["listwise_prompt"] == 1
    del manifest["config"]["listwise_prompt"]  # what a run written before layout 2 holds
    (tmp_path / "old" / "run.json").write_text(_json.dumps(manifest))
    rescored = rescore_run(tmp_path / "old", tmp_path / "rescored")
    winners = {(r["item_id"], r["protocol"]): r["winners"]
               for r in read_jsonl(tmp_path / "rescored" / "items.jsonl")}
    assert winners == {(r["item_id"], r["protocol"]): r["winners"]
                       for r in read_jsonl(first.out / "items.jsonl")}
    assert sum(rescored.totals.failures.values()) == 0  # every request found its answer
    with pytest.raises(ConfigError, match=r"differs in \['listwise_prompt'\]"):
        run_bench(BenchConfig(dataset="truthfulqa", limit=8, k=3), tmp_path / "old",
                  options=RunOptions(cache_path=None))
