import json
import math
import signal

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.errors import ConfigError
from jurybox.rundir import read_jsonl
from jurybox.run import RunHooks, RunOptions
from jurybox.runner import RetryPolicy
from jurybox.sim import Faults, SimConfig

FAST = RetryPolicy(attempts=6, base_s=0)
CONFIG = BenchConfig(dataset="truthfulqa", limit=24, k=7, sim=SimConfig(bias="primacy"))


def _bench(tmp_path, name="run", config=CONFIG, **hooks):
    return run_bench(config, tmp_path / name, options=RunOptions(
        cache_path=tmp_path / f"{name}.sqlite", retry=FAST, concurrency=4),
        hooks=RunHooks(**hooks))


def test_run_directory_contents_and_direct_call_is_shared_with_pcf(tmp_path):
    result = _bench(tmp_path)
    out = result.out
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "complete" and manifest["model"]["simulated"] is True
    assert manifest["dataset"]["sha256"].startswith("b8d8ef1e")
    items = read_jsonl(out / "items.jsonl")
    assert len(items) == 48  # 24 items x 2 protocols
    calls = read_jsonl(out / "calls.jsonl")
    planned_pcf = result.summary.protocols["pcf"].calls_planned
    # direct's call is PCF's permutation 0: model calls = PCF's planned calls, not + 24
    assert result.totals.model_calls == planned_pcf == len(calls)
    assert all(c["text"] for c in calls)
    assert json.loads((out / "summary.json").read_text())["n_items"] == 24


def test_rerun_makes_zero_calls_and_new_folder_hits_cache(tmp_path):
    first = _bench(tmp_path)
    again = _bench(tmp_path)
    assert again.totals.model_calls == 0 and again.judged_now == 0
    assert again.summary.protocols == first.summary.protocols
    elsewhere = run_bench(CONFIG, tmp_path / "other",
                          options=RunOptions(cache_path=tmp_path / "run.sqlite", retry=FAST))
    assert elsewhere.totals.model_calls == 0
    assert elsewhere.totals.cache_hits == first.totals.model_calls


def test_resume_after_interrupt(tmp_path):
    seen = []

    def interrupt_after_five(item):  # a real Ctrl-C: SIGINT to this process
        seen.append(item.item_id)
        if len(seen) == 5:
            signal.raise_signal(signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        _bench(tmp_path, on_item=interrupt_after_five)
    out = tmp_path / "run"
    assert json.loads((out / "run.json").read_text())["status"] == "interrupted"
    done = {r["item_id"] for r in read_jsonl(out / "items.jsonl")}
    assert len(done) >= 5
    # then a crash mid-write: a cut-short last line must be dropped, not merged with the next
    with (out / "items.jsonl").open("a") as fh:
        fh.write('{"item_id": "tqa-')
    resumed = _bench(tmp_path)
    assert resumed.judged_now == 24 - len(done)
    uninterrupted = _bench(tmp_path, name="clean")
    assert resumed.summary.protocols == uninterrupted.summary.protocols
    assert _bench(tmp_path).totals.model_calls == 0


def test_changed_config_in_same_folder_is_refused(tmp_path):
    _bench(tmp_path)
    with pytest.raises(ConfigError, match=r"differs in \['k'\]"):
        _bench(tmp_path, config=BenchConfig(dataset="truthfulqa", limit=24, k=3))


def test_pcf_beats_direct_under_primacy_bias(tmp_path):
    config = BenchConfig(dataset="truthfulqa", limit=120, k=7, sim=SimConfig(bias="primacy"))
    s = _bench(tmp_path, config=config).summary.protocols
    assert s["pcf"].accuracy.accuracy > s["direct"].accuracy.accuracy
    assert s["pcf"].vs_baseline.improvements > s["pcf"].vs_baseline.regressions
    # the primacy-biased judge picks position A far above the 1/4 an unbiased judge would
    assert s["direct"].order.win_rate_by_position[4][0] > 0.35


def test_failures_are_counted_never_scored(tmp_path):
    config = BenchConfig(dataset="truthfulqa", limit=10, k=3,
                         sim=SimConfig(faults=Faults(rate_refusal=1.0)))
    result = _bench(tmp_path, config=config)
    s = result.summary.protocols
    assert s["pcf"].accuracy.n == 0 and s["pcf"].accuracy.coverage == 0
    assert s["pcf"].items_failed == 10 and s["pcf"].calls_failed["refusal"] == 30
    items = read_jsonl(result.out / "items.jsonl")
    assert all(r["credit"] is None and r["winners"] == [] for r in items)


def test_changed_dataset_bytes_in_same_folder_are_refused(tmp_path):
    data = tmp_path / "d.jsonl"
    rows = [{"id": f"i{j}", "prompt": f"Q{j}?", "candidates": ["yes", "no"], "gold": 0}
            for j in range(3)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = BenchConfig(dataset=str(data), model="sim", k=2)
    _bench(tmp_path, config=config)
    data.write_text("".join(json.dumps({**r, "gold": 1}) + "\n" for r in rows))
    with pytest.raises(ConfigError, match=r"differs in \['dataset_sha256'\]"):
        _bench(tmp_path, config=config)


def test_api_failures_are_judged_again_on_resume_and_totals_add_up(tmp_path):
    config = BenchConfig(dataset="truthfulqa", limit=12, k=3,
                         sim=SimConfig(faults=Faults(rate_500=0.2)))
    flaky = run_bench(config, tmp_path / "run", options=RunOptions(
        cache_path=tmp_path / "c.sqlite", retry=RetryPolicy(attempts=1, base_s=0)))
    failed_before = flaky.summary.protocols["pcf"].calls_failed.get("api", 0)
    assert failed_before > 0
    fixed = run_bench(config, tmp_path / "run", options=RunOptions(
        cache_path=tmp_path / "c.sqlite", retry=RetryPolicy(attempts=10, base_s=0)))
    assert 0 < fixed.judged_now < 12
    s = fixed.summary.protocols
    assert s["pcf"].calls_failed == {} and s["pcf"].accuracy.n == 12
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert [x["status"] for x in manifest["sessions"]] == ["partial", "complete"]
    assert manifest["totals"]["model_calls"] == (flaky.totals.model_calls
                                                 + fixed.totals.model_calls)


def test_pairwise_bench_end_to_end_and_rerun(tmp_path):
    config = BenchConfig(dataset="judgebench", protocols=("pairwise", "both-orders", "apoc"),
                         limit=20)
    first = _bench(tmp_path, config=config)
    s = first.summary
    assert s.task == "pairwise" and s.n_items == 40  # 20 per split
    assert set(s.protocols["pairwise"].buckets.by_bucket) <= {
        "mmlu-pro", "livebench-reasoning", "livebench-math", "livecodebench"}
    # planned: pairwise 1, both-orders 2 (1 shared), apoc 4 (1 shared): 1 + 1 + 3 = 5 unique
    assert first.totals.model_calls == 40 * 5
    jb = s.protocols["both-orders"].judgebench_rule
    assert jb.correct + jb.incorrect + jb.tie == 40
    # a primacy-biased judge picks the first-shown response more often than half the time
    assert s.protocols["pairwise"].first_shown_win_rate > 0.5
    assert _bench(tmp_path, config=config).totals.model_calls == 0


def test_protocol_must_suit_the_dataset(tmp_path):
    with pytest.raises(ConfigError, match="protocol 'pcf' judges listwise items"):
        _bench(tmp_path, config=BenchConfig(dataset="judgebench", protocols=("pcf",)))


def test_summary_does_not_depend_on_the_order_items_finished():
    from jurybox.compare import summarize

    records = [{"item_id": f"i{j}", "protocol": "pairwise", "credit": (j * 37 % 100) / 100,
                "n_calls": 1, "failures": [], "bucket": "mmlu-pro", "split": "s",
                "shown_first": [0], "shown_verdicts": ["A"], "call_verdicts": ["A"],
                "label": "A>B"} for j in range(30)]
    forward = summarize(records, ["pairwise"], item_ids=[r["item_id"] for r in records],
                        task="pairwise")
    backward = summarize(records[::-1], ["pairwise"], item_ids=[r["item_id"] for r in records],
                         task="pairwise")
    assert forward == backward


def test_judgebench_rule_leaves_failed_items_out():
    from jurybox.compare import summarize

    base = {"protocol": "both-orders", "n_calls": 2, "bucket": "mmlu-pro", "split": "s",
            "shown_first": [0, 1], "label": "A>B", "consistent": True}
    records = [{**base, "item_id": "ok", "credit": 1.0, "failures": [],
                "call_verdicts": ["A", "A"], "shown_verdicts": ["A", "B"]},
               {**base, "item_id": "failed", "credit": None, "failures": ["api", "api"],
                "call_verdicts": [None, None], "shown_verdicts": [None, None],
                "consistent": None}]
    s = summarize(records, ["both-orders"], item_ids=["ok", "failed"], task="pairwise")
    rule = s.protocols["both-orders"].judgebench_rule
    assert (rule.correct, rule.tie, rule.n, rule.items_failed) == (1, 0, 1, 1)


def test_json_verdicts_end_to_end(tmp_path):
    config = BenchConfig(dataset="judgebench-gpt", protocols=("pairwise", "keyed"), limit=8,
                         verdict_format="json")
    result = _bench(tmp_path, config=config)
    assert result.summary.protocols["keyed"].accuracy.n == 8
    calls = read_jsonl(result.out / "calls.jsonl")
    assert all('"verdict"' in c["text"] for c in calls)


def test_strict_pairwise_rule_end_to_end_lands_in_the_manifest(tmp_path):
    from jurybox.protocols import net_verdict, strict_verdict

    config = BenchConfig(dataset="judgebench", protocols=("pairwise", "both-orders"), limit=20,
                         pairwise_rule="strict")
    result = _bench(tmp_path, config=config)
    manifest = json.loads((result.out / "run.json").read_text())
    params = {p["name"]: p["params"] for p in manifest["protocols"]}
    assert params["both-orders"]["rule"] == "strict" and "rule" not in params["pairwise"]
    assert manifest["config"]["pairwise_rule"] == "strict"
    assert result.summary.label("both-orders") == "both-orders (strict)"
    assert result.summary.label("pairwise") == "pairwise"
    both = [r for r in read_jsonl(result.out / "items.jsonl") if r["protocol"] == "both-orders"]
    assert len(both) == 40
    for r in both:  # every decision is the strict rule over its two recorded verdicts
        assert r["verdict"] == strict_verdict(*r["call_verdicts"])
    # the simulated judge has position bias: some items get one win and one tie, or two
    # different winners; strict never names a winner the orders disagree on
    assert all(r["verdict"] == "tie" for r in both if not r["consistent"])
    # the same items under the net rule: the rule changes no request, so the simulated judge
    # (seeded by the request) gives the same verdicts
    net = _bench(tmp_path, "net", config=BenchConfig(
        dataset="judgebench", protocols=("pairwise", "both-orders"), limit=20))
    assert "pairwise_rule" not in json.loads((net.out / "run.json").read_text())["config"]
    assert net.summary.label("both-orders") == "both-orders (net)"
    net_items = {r["item_id"]: r for r in read_jsonl(net.out / "items.jsonl")
                 if r["protocol"] == "both-orders"}
    for r in both:
        assert net_items[r["item_id"]]["call_verdicts"] == r["call_verdicts"]
        assert net_items[r["item_id"]]["verdict"] == net_verdict(r["call_verdicts"])
    differ = [r for r in both if net_items[r["item_id"]]["verdict"] != r["verdict"]]
    # only a win paired with a tie separates the rules (A/B is a tie under both)
    assert differ and all(sorted(r["call_verdicts"], key=str) in (["A", "tie"], ["B", "tie"])
               for r in differ)


@pytest.mark.parametrize("config, message", [
    (BenchConfig(dataset="truthfulqa", pairwise_rule="strict"),
     "--pairwise-rule is for pairwise protocols; 'direct' is listwise"),
    (BenchConfig(dataset="judgebench", protocols=("pairwise", "apoc"), pairwise_rule="strict"),
     r"--pairwise-rule 'strict' applies to both-orders, which the protocols judged "
     r"\(pairwise, apoc\) do not include"),
    (BenchConfig(dataset="judgebench", pairwise_rule="lenient"),
     "protocol 'both-orders': rule must be one of"),
])
def test_pairwise_rule_is_checked_before_any_call(tmp_path, config, message):
    with pytest.raises(ConfigError, match=message):
        _bench(tmp_path, config=config)
    assert not (tmp_path / "run").exists()


def _pairwise_record(item, protocol, credit):
    return {"item_id": item, "protocol": protocol, "credit": credit, "n_calls": 1,
            "failures": [] if credit is not None else ["api"], "bucket": "mmlu-pro",
            "split": "s", "shown_first": [0], "shown_verdicts": ["A" if credit else None],
            "call_verdicts": ["A" if credit else None], "label": "A>B"}


def test_a_protocol_without_judged_items_gets_no_comparison_row():
    from jurybox.compare import summarize

    # keyed failed on both items; pairwise judged both (credits 1, 0)
    records = [_pairwise_record("x", "pairwise", 1.0), _pairwise_record("y", "pairwise", 0.0),
               _pairwise_record("x", "keyed", None), _pairwise_record("y", "keyed", None)]
    s = summarize(records, ["pairwise", "keyed"], item_ids=["x", "y"], task="pairwise")
    keyed = s.protocols["keyed"]
    assert keyed.vs_baseline is None and keyed.accuracy.n == 0
    assert keyed.vs_baseline_skipped == ("no item judged by both 'pairwise' and 'keyed' "
                                         "(judged: 2 and 0)")
    assert keyed.to_json()["vs_baseline_skipped"] == keyed.vs_baseline_skipped
    assert s.protocols["pairwise"].vs_baseline_skipped is None  # the baseline itself
    # and the other way round: the baseline judged nothing
    s = summarize(records, ["keyed", "pairwise"], item_ids=["x", "y"], task="pairwise")
    assert "(judged: 0 and 2)" in s.protocols["pairwise"].vs_baseline_skipped


def test_all_tied_comparison_says_why_there_is_no_test():
    from jurybox.compare import summarize

    records = [_pairwise_record(i, p, 1.0) for i in "xyz" for p in ("pairwise", "keyed")]
    vs = summarize(records, ["pairwise", "keyed"], task="pairwise").protocols["keyed"].vs_baseline
    assert (vs.n, vs.ties, vs.difference) == (3, 3, 0.0)
    assert math.isnan(vs.p_value) and vs.reason == "no discordant pairs: no test possible"
    assert tuple(vs.confidence_interval) == (0.0, 0.0) and vs.confidence_interval.degenerate
