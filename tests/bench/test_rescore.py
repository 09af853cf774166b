import json

from jurybox.bench import BenchConfig, rescore_run, run_bench, score_outputs
from jurybox.datasets import BUNDLED_OUTPUTS, bundled_path, load_judgebench_outputs
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
    ran = run_bench(config, tmp_path / "run", cache_path=None,
                    retry=RetryPolicy(attempts=3, base_s=0))
    again = rescore_run(tmp_path / "run", tmp_path / "rescored")
    assert again.summary["replayed"] is True and again.simulated is True
    assert again.summary["protocols"] == ran.summary["protocols"]
    assert json.loads((tmp_path / "rescored" / "run.json").read_text())["status"] == "complete"
