"""A live jury of simulated judges with different biases and seeds: the jury's decisions
are the jury rules applied to the judges' own items.jsonl, a weight-0 judge moves nothing, a
failed judge call is never a vote, a judge failing every call stops the run naming it, and a
killed jury run resumes paying for no call twice."""

import json
import signal

import pytest

import jurybox
from jurybox.compare import BenchConfig
from jurybox.errors import ProviderError
from jurybox.jury import jury_listwise, jury_of, jury_pairwise, run_jury
from jurybox.rundir import read_jsonl
from jurybox.run import RunHooks, RunOptions
from jurybox.runner import RetryPolicy

FAST = RetryPolicy(attempts=3, base_s=0)
JUDGES = [{"name": "primacy", "model": "sim", "sim": {"bias": "primacy", "seed": 1}},
          {"name": "recency", "model": "sim", "sim": {"bias": "recency", "seed": 2}},
          {"name": "fair", "model": "sim", "weight": 2, "sim": {"bias": "none", "seed": 3}}]
PAIRWISE = BenchConfig(dataset="judgebench", protocols=("pairwise", "both-orders"), limit=6)
LISTWISE = BenchConfig(dataset="truthfulqa", protocols=("direct", "pcf"), limit=8, k=3)


def _options(tmp_path, **kw):
    return RunOptions(cache_path=tmp_path / "cache.sqlite", retry=FAST, concurrency=4, **kw)


def _own_records(out, name):
    """A judge's decisions as its own run wrote them (its items.jsonl, last record wins)."""
    return {(r["item_id"], r["protocol"]): r
            for r in read_jsonl(out / "judges" / name / "items.jsonl")}


@pytest.mark.parametrize("config", [PAIRWISE, LISTWISE], ids=["pairwise", "listwise"])
def test_jury_decision_is_the_rules_over_each_judges_own_records(tmp_path, config):
    result = run_jury(config, jury_of(JUDGES), tmp_path / "run", options=_options(tmp_path))
    out = result.out
    names = ["primacy", "recency", "fair"]
    own = {n: _own_records(out, n) for n in names}
    records = read_jsonl(out / "items.jsonl")
    assert len(records) == result.n_units * 2 and records == result.records
    pairwise = config is PAIRWISE
    for r in records:
        key = (r["item_id"], r["protocol"])
        if pairwise:
            verdicts = [own[n][key]["verdict"] for n in names]
            assert [r["judges"][n]["verdict"] for n in names] == verdicts
            assert r["verdict"] == jury_pairwise(verdicts, [1, 1, 2]).decision
        else:
            scores = [own[n][key]["combined"] for n in names]
            mean, winners = jury_listwise(scores, [1, 1, 2], tolerance=0.5)
            assert r["winners"] == list(winners)
            assert r["combined"] == pytest.approx(list(mean), abs=1e-4)
    # the judges really differ (a jury of clones would test nothing)
    assert any(len({str(r["judges"][n].get("verdict") or r["judges"][n]["winners"])
                    for n in names}) > 1 for r in records)
    summary = json.loads((out / "summary.json").read_text())
    for n in names:  # each judge's accuracy is its own run's
        mine = json.loads((out / "judges" / n / "summary.json").read_text())
        for p in config.protocols:
            assert summary["protocols"][p]["judges"][n]["accuracy"]["accuracy"] == \
                pytest.approx(mine["protocols"][p]["accuracy"]["accuracy"])
    for p in config.protocols:
        s = summary["protocols"][p]
        credits = [r["credit"] for r in records if r["protocol"] == p]
        assert s["jury"]["accuracy"] == pytest.approx(sum(credits) / len(credits))
        assert -1 <= s["alpha_nominal"]["alpha"] <= 1
        assert s["pairwise_alpha"]["raters"] == names
    assert summary["judges"]["fair"]["model_calls"] == result.judges["fair"].totals.model_calls


def test_a_zero_weight_judge_changes_no_decision(tmp_path):
    two = run_jury(PAIRWISE, jury_of(JUDGES[:2]), tmp_path / "two", options=_options(tmp_path))
    zero = [*JUDGES[:2], {**JUDGES[2], "weight": 0}]
    three = run_jury(PAIRWISE, jury_of(zero), tmp_path / "three", options=_options(tmp_path))
    assert [r["verdict"] for r in three.records] == [r["verdict"] for r in two.records]
    assert three.model_calls == three.judges["fair"].totals.model_calls  # the others cached
    # and it disagrees with the two somewhere, so a vote of its own would have counted
    with_vote = run_jury(PAIRWISE, jury_of(JUDGES), tmp_path / "voting",
                         options=_options(tmp_path))
    assert with_vote.model_calls == 0
    assert [r["verdict"] for r in with_vote.records] != [r["verdict"] for r in two.records]


def test_a_failed_judge_call_is_no_vote(tmp_path):
    flaky = {"name": "flaky", "model": "sim",
             "sim": {"bias": "recency", "seed": 5, "faults": {"rate_malformed": 0.5}}}
    judges = [JUDGES[0], flaky]
    result = run_jury(BenchConfig(dataset="judgebench", protocols=("pairwise",), limit=10),
                      jury_of(judges), tmp_path / "run", options=_options(tmp_path))
    failed = [r for r in result.records if r["judges"]["flaky"]["failed"]]
    assert failed, "the faults must fail some items"
    for r in failed:
        assert r["voters"] == 1
        assert r["verdict"] == r["judges"]["primacy"]["verdict"]  # the only vote
        assert r["votes"][r["verdict"]] == 1.0 and sum(r["votes"].values()) == 1.0
    row = result.summary.protocols["pairwise"].judges["flaky"]
    assert row.items_failed == len(failed) and row.accuracy.n == 20 - len(failed)


@pytest.mark.parametrize("faults", [{"rate_malformed": 1.0}, {"rate_500": 1.0}])
def test_a_judge_failing_every_call_stops_the_run_naming_it(tmp_path, faults):
    broken = {"name": "broken", "model": "sim", "sim": {"faults": faults}}
    with pytest.raises(ProviderError, match="judge 'broken'"):
        run_jury(BenchConfig(dataset="judgebench", protocols=("both-orders",), limit=10),
                 jury_of([JUDGES[0], broken]), tmp_path / "run",
                 options=_options(tmp_path, abort_after=5))
    assert not (tmp_path / "run" / "items.jsonl").exists()  # no jury pretends it decided
    assert (tmp_path / "run" / "judges" / "primacy" / "items.jsonl").exists()  # kept


def test_killed_jury_run_resumes_paying_no_call_twice(tmp_path):
    seen = []

    def interrupt(item):  # a real Ctrl-C in the second judge's run
        seen.append(item.item_id)
        if len(seen) == 6 + 3:
            signal.raise_signal(signal.SIGINT)

    options = RunOptions(cache_path=tmp_path / "cache.sqlite", retry=FAST, concurrency=1)
    with pytest.raises(KeyboardInterrupt):
        run_jury(LISTWISE, jury_of(JUDGES), tmp_path / "run", options=options,
                 hooks=RunHooks(on_item=interrupt))
    first = sum(json.loads((tmp_path / "run" / "judges" / n / "run.json").read_text())
                ["totals"]["model_calls"] for n in ("primacy", "recency"))
    resumed = run_jury(LISTWISE, jury_of(JUDGES), tmp_path / "run", options=options)
    clean = run_jury(LISTWISE, jury_of(JUDGES), tmp_path / "clean",
                     options=RunOptions(retry=FAST))
    assert first > 0 and first + resumed.model_calls == clean.model_calls
    assert resumed.records == clean.records
    for n in ("primacy", "recency", "fair"):  # every request asked once
        asked = [c["key"] for c in read_jsonl(tmp_path / "run" / "judges" / n /
                                                       "calls.jsonl") if not c["cached"]]
        assert len(asked) == len(set(asked))
    assert run_jury(LISTWISE, jury_of(JUDGES), tmp_path / "run", options=options
                    ).model_calls == 0


def test_python_judge_with_a_jury_and_its_rerun(tmp_path):
    items = [{"id": f"q{i}", "prompt": f"Question {i}?",
              "candidates": [f"right {i}", f"wrong {i}", f"other {i}"], "gold": 0}
             for i in range(5)]
    result = jurybox.judge(items, jury=JUDGES, protocol="pcf", k=3, out=tmp_path / "j")
    assert [r["item_id"] for r in result.records] == [f"q{i}" for i in range(5)]
    assert set(result.judges) == {"primacy", "recency", "fair"}
    assert (tmp_path / "j" / "input.jsonl").exists()
    again = jurybox.judge(items, jury=JUDGES, protocol="pcf", k=3, out=tmp_path / "j")
    assert again.model_calls == 0 and again.records == result.records
    with pytest.raises(jurybox.ConfigError, match="not both"):
        jurybox.judge(items, model="sim", jury=JUDGES, out=tmp_path / "x")
