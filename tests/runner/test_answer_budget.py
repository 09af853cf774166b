"""The answer budget (``--max-answer-chars``, issue 29): a judge's answer over it is a
recorded parse failure naming the budget and the answer's length; a larger budget reads the
same answer (from the cache: a failure is read again, never served as one); run.json
records the budget and ``score`` replays with it; a re-ask quotes a long answer shortened."""

import json

from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.rundir import read_jsonl
from jurybox.runner.runner import REASK_ECHO_CHARS

from ..providers.fake_server import completion, fake_server, listwise_answer

cli = CliRunner()
PREFIX = "The first response is better. " * 50_000  # 1,500,000 characters of prose
ANSWER = PREFIX + listwise_answer()
FLAGS = {"major_factual_error": False, "hallucinated_specificity": False,
         "calibrated_uncertainty": False}
# for the four candidates of a rewardbench2-sample item
ANSWER4 = PREFIX + json.dumps({"candidates": {lab: {"score": s, **FLAGS} for lab, s in zip(
    "ABCD", (90, 20, 30, 40))}, "ranking": ["A", "D", "C", "B"], "rationale": "A is right."})


class Judge:
    """Answers every request with ``text``; keeps each request's messages."""

    def __init__(self, text: str = ANSWER) -> None:
        self.text, self.requests = text, []

    def __call__(self, request: dict) -> str:
        self.requests.append(request["messages"])
        return completion(self.text)


def _run(tmp_path, url, out, *extra, command="judge", exit_code=0):
    items = tmp_path / "two.jsonl"
    items.write_text(json.dumps({"id": "q1", "prompt": "Capital of France?",
                                 "candidates": ["Paris", "Lyon"]}) + "\n")
    target = ([str(items), "--protocol", "direct"] if command == "judge" else
              ["rewardbench2-sample", "--limit", "1", "--protocols", "direct"])
    result = cli.invoke(app, [command, *target, "--model", "vllm/m", "--base-url", url,
                              "--structured", "off", "--attempts", "1",
                              "--cache", str(tmp_path / "c.sqlite"), "--out",
                              str(tmp_path / out), *extra])
    assert result.exit_code == exit_code, result.output
    return result.output, json.loads((tmp_path / out / "run.json").read_text())


def test_an_answer_over_the_budget_fails_naming_it_and_a_larger_budget_reads_it(tmp_path):
    judge = Judge()
    with fake_server(judge) as url:
        _, manifest = _run(tmp_path, url, "small", exit_code=1)  # 1: no item was judged
        assert manifest["options"]["max_answer_chars"] == 1_000_000
        calls = read_jsonl(tmp_path / "small" / "calls.jsonl")
        message = (f"the answer is {len(ANSWER):,} characters long, over the answer budget of "
                   f"1,000,000 characters (--max-answer-chars): answer briefly")
        assert [c["parse_error"] for c in calls] == [message, message]  # asked, re-asked
        # the re-ask quoted the 1.5 MB answer as its start and end, not whole
        echoed = judge.requests[1][-2]
        assert echoed["role"] == "assistant"
        half = REASK_ECHO_CHARS // 2
        left_out = len(ANSWER) - 2 * half
        assert echoed["content"] == (f"{ANSWER[:half]}\n[... {left_out:,} characters of this "
                                     f"reply left out ...]\n{ANSWER[-half:]}")
        assert judge.requests[1][-1]["content"].startswith(
            f"Your reply could not be used: {message}.")

        # the same cache with a budget that holds the answer: the cached answer is read
        # again (no call) and the item decided
        out, manifest = _run(tmp_path, url, "large", "--max-answer-chars", "2000000")
        assert len(judge.requests) == 2
        assert manifest["options"]["max_answer_chars"] == 2_000_000
        totals = manifest["sessions"][-1]["totals"]
        assert (totals["model_calls"], totals["cache_hits"]) == (0, 1)
        assert totals["failures"] == {"api": 0, "parse": 0, "refusal": 0}
        (item,) = read_jsonl(tmp_path / "large" / "items.jsonl")
        assert not item["failed"]


def test_score_replays_with_the_runs_budget(tmp_path, monkeypatch):
    with fake_server(Judge(ANSWER4)) as url:
        _run(tmp_path, url, "bench", "--max-answer-chars", "2000000", command="bench")
        # resumed (nothing left to do) without the flag: this session's budget is the
        # default, but the answers were read with 2,000,000, and a replay must read them so
        _, manifest = _run(tmp_path, url, "bench", command="bench")
    assert [s["max_answer_chars"] for s in manifest["sessions"]] == [2_000_000, 1_000_000]
    assert manifest["options"]["max_answer_chars"] == 1_000_000
    result = cli.invoke(app, ["score", str(tmp_path / "bench"), "--out",
                              str(tmp_path / "rescored")])
    assert result.exit_code == 0, result.output
    rescored = json.loads((tmp_path / "rescored" / "run.json").read_text())
    assert rescored["options"]["max_answer_chars"] == 2_000_000
    assert rescored["sessions"][-1]["totals"]["failures"]["parse"] == 0
    # a run.json whose budget is not a budget: one line naming the file and field (the
    # value as JSON writes it), exit 2
    path = tmp_path / "bench" / "run.json"
    for value, shown in (("lots", '"lots"'), (None, "null"), (1e400, "Infinity")):
        manifest = json.loads(path.read_text())
        manifest["sessions"][0]["max_answer_chars"] = value
        path.write_text(json.dumps(manifest))
        result = cli.invoke(app, ["score", str(tmp_path / "bench"), "--out",
                                  str(tmp_path / "again")])
        assert result.exit_code == 2
        assert (f"{path}: field 'sessions[0].max_answer_chars' must be a whole number from 1 "
                f"to 33,554,432, got {shown}") in result.output.replace("\n", "")


def test_the_budget_is_checked_like_every_option(tmp_path, monkeypatch):
    monkeypatch.setenv("JURYBOX_MAX_ANSWER_CHARS", "0")
    result = cli.invoke(app, ["judge", str(tmp_path / "none.jsonl"), "--model", "sim"])
    assert result.exit_code == 2
    assert "Invalid value for '--max-answer-chars' (from JURYBOX_MAX_ANSWER_CHARS='0')" in (
        result.output)
    for bad in ("1_000", "\uff11\uff10\uff10", "1e6", " "):  # underscore, full-width digits
        monkeypatch.setenv("JURYBOX_MAX_ANSWER_CHARS", bad)
        result = cli.invoke(app, ["judge", str(tmp_path / "none.jsonl"), "--model", "sim"])
        assert result.exit_code == 2
        assert "is not a whole number (digits 0-9 only)" in result.output, result.output
