"""The bundled LLMBar judgments reproduce LLMBar's statistics.json; recorded juries by hand;
JudgeBench outputs read into the same model."""

import pytest

from jurybox.compare import score_outputs
from jurybox.datasets import BUNDLED_OUTPUTS, bundled_path, load_judgebench_outputs
from jurybox.recorded.bundle import load_bundled
from jurybox.recorded.judgebench import read_judgebench_outputs
from jurybox.recorded.jury import jury_groups, score_jury
from jurybox.recorded.llmbar_stats import llmbar_statistics
from jurybox.recorded.model import RecordedItem, Recording
from jurybox.recorded.pool import pool_subsets
from jurybox.recorded.scoring import score_recording


@pytest.fixture(scope="module")
def bundled():
    return load_bundled("llmbar")


def test_every_bundled_file_reproduces_llmbar_statistics(bundled):
    assert len(bundled) == 499
    assert all(r.reference is not None for r in bundled)
    bad = [(r.key, llmbar_statistics(r).mismatches(r.reference)) for r in bundled
           if llmbar_statistics(r).mismatches(r.reference)]
    assert bad == []
    # a value from the release, by hand: GPT-4 Swap on Natural (statistics.json)
    rec = next(r for r in bundled if r.key == ("LLMBar/Natural", "GPT-4", "Swap"))
    assert rec.reference["correct_both"] == "93 / 100 = 93.0%"
    assert llmbar_statistics(rec).correct_both == 93


def test_pooled_adversarial_is_319_pairs(bundled):
    adversarial = [r for r in bundled if r.subset.startswith("LLMBar/Adversarial/")]
    pooled = pool_subsets(adversarial)
    gpt4 = next(r for r in pooled if (r.judge, r.strategy) == ("GPT-4", "Vanilla"))
    assert gpt4.subset == "LLMBar/Adversarial (pooled)" and gpt4.n == 319
    assert gpt4.items[0].item_id == "GPTInst/0"


def test_mt_bench_jury_judges(bundled):
    groups = jury_groups([r for r in bundled if r.subset == "Processed/MT-Bench"])
    assert sorted(groups) == [("Processed/MT-Bench", "Metrics_Reference"),
                              ("Processed/MT-Bench", "Vanilla_NoRules")]
    assert [r.judge for r in groups[("Processed/MT-Bench", "Vanilla_NoRules")]] == [
        "ChatGPT", "GPT-4", "LLaMA2", "PaLM2"]


def _rec(judge, rows):
    return Recording("s", judge, "v", ("AB", "BA"), tuple(
        RecordedItem(f"i{k}", label, tuple(v)) for k, (label, v) in enumerate(rows)))


def test_jury_by_hand():
    # decisions (net rule): j1: A, B, tie(A/B), A ; j2: A, A, B, None ; j3: B, B, B, A
    j1 = _rec("j1", [("A", ["A", "A"]), ("A", ["B", "B"]), ("B", ["A", "B"]), ("tie", ["A", "A"])])
    j2 = _rec("j2", [("A", ["A", "A"]), ("A", ["A", "A"]), ("B", ["B", "B"]),
                     ("tie", [None, None])])
    j3 = _rec("j3", [("A", ["B", "B"]), ("A", ["B", "B"]), ("B", ["B", "B"]), ("tie", ["A", "A"])])
    s = score_jury([j3, j1, j2], n_resamples=50)
    assert s.judges == ("j1", "j2", "j3") and s.n == 4
    # votes: i0 A,A,B -> A (right); i1 B,A,B -> B (wrong); i2 tie,B,B -> B (right);
    # i3 A,-,A -> A (wrong: label tie)
    assert s.decisions["jury"] == {"i0": "A", "i1": "B", "i2": "B", "i3": "A"}
    assert s.jury.accuracy == pytest.approx(2 / 4)
    assert {j: a.accuracy for j, a in s.judge_net.items()} == pytest.approx(
        {"j1": 1 / 4, "j2": 3 / 3, "j3": 1 / 4})
    assert s.best_judge == "j2" and s.mean_judge == pytest.approx((0.25 + 1 + 0.25) / 3)
    # j2 differs from the jury on i1 only (of the 3 it decided)
    assert s.disagreement["j2"] == (pytest.approx(1 / 3), 3)
    assert s.disagreement["j1"] == (pytest.approx(1 / 4), 4)  # i2 (tie vs B)
    assert s.disagreement["j3"] == (pytest.approx(1 / 4), 4)  # i0
    assert s.most_disagreeing == "j2"
    # weighted: j2 at 3 outvotes the others on i1
    w = score_jury([j1, j2, j3], {"j2": 3}, n_resamples=50)
    assert w.decisions["jury"]["i1"] == "A" and w.weights == (1.0, 3.0, 1.0)
    assert s.alpha is not None and s.pairwise.raters == ("j1", "j2", "j3")


def test_judgebench_outputs_read_into_the_model():
    path = bundled_path(BUNDLED_OUTPUTS["arena-hard-haiku"])
    rec = read_judgebench_outputs(path)
    assert rec.n == 270 and rec.orders == ("AB", "BA")
    recorded = score_outputs(load_judgebench_outputs(path), rule="unanimous")
    s = score_recording(rec, n_resamples=10)
    # the recording's decisions, mapped to original terms, give JudgeBench's own counts
    assert sum(c == 1.0 for c in s.net_credits.values()) == recorded.counts.correct
    assert s.consistency == pytest.approx(recorded.order_consistency)
    assert s.first_shown_rate == pytest.approx(recorded.first_shown_win_rate)
