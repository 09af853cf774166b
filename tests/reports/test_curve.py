"""Accuracy on the first k orders from the run's records: PCF's ``winners_by_k`` by hand, the
bench summary's curve equal to the one computed from the recorded calls, and a report that
builds views only for the items it shows."""

from __future__ import annotations

import json

import pytest

from jurybox.compare import BenchConfig, run_bench
from jurybox.datasets import ListwiseItem
from jurybox.parsing import parse_listwise
from jurybox.protocols.listwise import PCFProtocol
from jurybox.reports import PermutationCurve, RunReader, permutation_curve, render_report
from jurybox.runner import Failure, Outcome, RetryPolicy
from jurybox.run import RunOptions
from jurybox.sim import SimConfig
from jurybox.sim.config import Faults


def _answer(by_candidate: tuple[int, ...], order: tuple[int, ...], labels: tuple[str, ...]):
    """A parsed judgment giving candidate i the score ``by_candidate[i]``, ranked by score."""
    scores = {lab: by_candidate[order[j]] for j, lab in enumerate(labels)}
    text = json.dumps({"candidates": {lab: {"score": s, "major_factual_error": False,
                                            "hallucinated_specificity": False,
                                            "calibrated_uncertainty": False}
                                      for lab, s in scores.items()},
                       "ranking": sorted(scores, key=lambda lab: -scores[lab]),
                       "rationale": "by hand"})
    return parse_listwise(text, labels=labels)


@pytest.mark.parametrize("middle_fails, expected", [
    # k=1: run 1 alone: #0 (80) wins. k=2, runs 1 and 2: mean #0 = #1 = 75, Borda both
    # 100/(2*2) * (2 + 1) = 75, vote both 1/2: C = 0.5*75 + 0.25*75 + 0.2*50 = 66.25 each,
    # a tie -> winners #0 and #1
    (False, [[0], [0, 1]]),
    # the second call failed: k=2 has run 1 only -> #0
    (True, [[0], [0]]),
])
def test_winners_by_k_by_hand(middle_fails, expected):
    item = ListwiseItem("q", "Which?", ("a", "b", "c"), frozenset({0}))
    protocol = PCFProtocol(k=3)
    calls = protocol.plan(item)
    runs = [(80, 60, 40), (70, 90, 50), (85, 30, 65)]  # scores by candidate index
    outcomes = [Outcome(_answer(r, c.order, c.labels), None, "") for r, c in zip(runs, calls)]
    if middle_fails:
        outcomes[1] = Outcome(None, Failure("parse", "no JSON object"), "")
    record = protocol.decide(item, calls, outcomes).to_record()
    assert record["winners_by_k"] == tuple(tuple(w) for w in expected)
    # k = 3 is the decision itself; the direct protocol (one call) records no field
    assert "winners_by_k" not in protocol.decide(item, calls[:1], outcomes[:1]).to_record()


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("curve") / "run"
    # 4-candidate items, K = 5; one attempt per call and 25% injected 500s, so that some
    # calls fail and some prefixes (and some items) have no answer
    run_bench(BenchConfig(dataset="truthfulqa", model="sim", limit=30, k=5,
                          sim=SimConfig(bias="primacy", faults=Faults(rate_500=0.25))),
              out, options=RunOptions(cache_path=None, concurrency=4,
                                      retry=RetryPolicy(attempts=1, base_s=0.0)))
    return out


def test_the_summary_curve_is_the_curve_of_the_recorded_calls(sim_run):
    reader = RunReader(sim_run)
    stored = PermutationCurve.from_json(reader.summary["protocols"]["pcf"]["curve"])
    weights, tolerance = reader.pcf_settings
    from_calls = permutation_curve(reader.iter_items(), k=5, weights=weights,
                                   tolerance=tolerance)
    assert stored is not None and len(stored.points) == 5
    for a, b in zip(stored.points, from_calls.points):
        assert (a.k, a.agreement, a.n_agree) == (b.k, b.agreement, b.n_agree)
        assert (a.accuracy.accuracy, a.accuracy.n, a.accuracy.n_total) == (
            b.accuracy.accuracy, b.accuracy.n, b.accuracy.n_total)
        assert list(a.accuracy.confidence_interval) == list(b.accuracy.confidence_interval)
    # k = K is PCF's accuracy in the summary, CI included; k = 1 the direct judgment's
    pcf, direct = (reader.summary["protocols"][p]["accuracy"] for p in ("pcf", "direct"))
    assert stored.points[-1].accuracy.accuracy == pcf["accuracy"]
    assert list(stored.points[-1].accuracy.confidence_interval) == pcf["confidence_interval"]
    assert stored.points[0].accuracy.accuracy == direct["accuracy"]


def test_the_report_builds_views_only_for_the_items_it_shows(sim_run, monkeypatch):
    from jurybox.reports import reader as reader_module

    built: list[str] = []
    real = reader_module.build_item

    def counting(item_id, *args, **kwargs):
        built.append(item_id)
        return real(item_id, *args, **kwargs)

    monkeypatch.setattr(reader_module, "build_item", counting)
    page = render_report(sim_run, max_items=3)
    assert len(built) == 3 and page.count('<article class="item"') == 3
    # the filter counts are over all 30 items all the same
    vs = json.loads((sim_run / "summary.json").read_text())["protocols"]["pcf"]["vs_baseline"]
    assert f'value="fixed:pcf"> fixed: pcf <span class="count">({vs["improvements"]})' in page
