"""Selective judging of a run's own verdicts (jurybox score RUN --target-agreement): the
confidence is each item's order agreement, the calibration a labelled share of the run."""

import html
import json

import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.judging.results import ItemJudgment
from jurybox.judging.selective import ORDER_SIGNAL, selective_judgments
from jurybox.stats.selective import split_items

cli = CliRunner()


def _j(i, *, rate, credit, gold=(0,), failed=False):
    return ItemJudgment(item_id=f"i{i}", protocol="pcf", task="listwise",
                        winners=() if failed else (0,), verdict=None, combined=None,
                        components=None, top_picks=(), agreement=(),
                        agreement_rate=None if failed else rate, flipped=False, failed=failed,
                        failures=("parse",) if failed else (), n_calls=3, n_ok=0 if failed else 3,
                        gold=gold, credit=None if failed else credit)


def test_the_orders_agreement_is_calibrated_on_labelled_items_and_applied_to_the_rest():
    # 24 labelled items the orders agree on, all right; 16 they split on, all wrong; 2
    # labelled items that failed; 4 unlabelled, 3 with the orders agreeing
    labelled = ([_j(i, rate=1.0, credit=1.0) for i in range(24)]
                + [_j(24 + i, rate=0.5, credit=0.0) for i in range(16)]
                + [_j(40 + i, rate=None, credit=None, failed=True) for i in range(2)])
    unlabelled = [_j(50 + i, rate=1.0 if i < 3 else 0.5, credit=None, gold=()) for i in range(4)]
    (r,) = selective_judgments(labelled + unlabelled, dataset="d", target=0.8, delta=0.1,
                               seed=2)
    cal, test = split_items(42, 0.5, 2)
    sure_cal = int((cal < 24).sum())
    sure_test = int((test < 24).sum())
    assert sure_cal >= 11  # enough to pass at threshold 1: 0.8 ** 11 = 0.086 <= 0.1
    rule = r.rules[ORDER_SIGNAL]
    # at 1: no disagreement, passes; at 0.5 the split items (all wrong) fail the test
    assert rule.threshold == 1.0 and (rule.n_accepted, rule.n_disagree) == (sure_cal, 0)
    assert rule.tested[1][0] == 0.5 and rule.tested[1][3] > 0.1
    assert r.signal == ORDER_SIGNAL and (r.subset, r.strategy) == ("d", "pcf")
    # the test half: every item that failed counts against coverage and is never accepted
    assert (r.test.n, r.test.n_accepted, r.test.n_agree) == (21, sure_test, sure_test)
    assert r.test.agreement == 1.0 and r.unlabelled == (3, 4) and r.calls_per_item == 3
    # each of the 21 test items cost 3 calls, and only the accepted ones are kept
    assert r.calls_per_accepted == 3 * 21 / sure_test


def test_too_few_labelled_items_is_a_clear_error():
    with pytest.raises(ValueError, match="protocol pcf: 1 labelled item"):
        selective_judgments([_j(0, rate=1.0, credit=1.0)], dataset="d", target=0.8)


def test_a_simulated_bench_run_is_judged_selectively_from_the_command_line(tmp_path):
    run = tmp_path / "run"
    result = cli.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "60",
                              "--protocols", "direct,pcf", "--k", "3", "--no-cache",
                              "--out", str(run)])
    assert result.exit_code == 0, result.output
    result = cli.invoke(app, ["score", str(run), "--target-agreement", "0.8",
                              "--out", str(tmp_path / "sel")])
    assert result.exit_code == 0, result.output
    sets = json.loads((tmp_path / "sel" / "summary.json").read_text())["selective"]["sets"]
    assert [(s["subset"], s["strategy"], s["n_calibration"], s["test"]["n"]) for s in sets] == [
        ("truthfulqa", "direct", 30, 30), ("truthfulqa", "pcf", 30, 30)]
    # one call per item: one confidence for every verdict, tested once as a whole
    direct = sets[0]["rules"][ORDER_SIGNAL]
    assert len(direct["tested"]) == 1 and direct["tested"][0][1] == 30
    assert "guarantee, for each certified row" in " ".join(result.output.split())


def test_recorded_only_options_are_refused_for_a_run(tmp_path):
    run = tmp_path / "run"
    cli.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "4", "--protocols",
                     "direct", "--no-cache", "--out", str(run)])
    result = cli.invoke(app, ["score", str(run), "--target-agreement", "0.8", "--signal",
                              "jury"])
    assert result.exit_code == 2
    assert "--signal apply to recorded judgments" in " ".join(result.output.split())


def test_bench_with_a_target_prints_and_writes_the_same_rules_as_scoring_its_run(tmp_path):
    run = tmp_path / "run"
    result = cli.invoke(app, ["bench", "truthfulqa", "--model", "sim", "--limit", "30",
                              "--protocols", "pcf", "--k", "3", "--no-cache", "--out", str(run),
                              "--target-agreement", "0.8", "--split-seed", "4"])
    assert result.exit_code == 0, result.output
    assert "selective judging: target 80% agreement" in " ".join(result.output.split())
    written = json.loads((run / "selective.json").read_text())["selective"]
    again = cli.invoke(app, ["score", str(run), "--target-agreement", "0.8", "--split-seed",
                             "4", "--out", str(tmp_path / "sel")])
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "sel" / "summary.json").read_text())["selective"] == written
    assert written["seed"] == 4 and written["sets"][0]["n_calibration"] == 15
    # the run's report has the section, rewritten after selective.json
    page = (run / "report.html").read_text()
    section = page.split('<section id="selective">')[1].split("</section>")[0]
    assert "Selective judging: target 80% agreement, delta 0.1" in section
    assert section.count("<tr>") == 2  # the header and pcf's row
    assert html.escape(written["sets"][0]["guarantee"], quote=False) in section
    # and export's table, one row per protocol
    exported = cli.invoke(app, ["export", str(run), "--format", "jsonl"])
    assert exported.exit_code == 0, exported.output
    (row,) = [json.loads(line) for line in (run / "export" / "selective.jsonl").open()]
    pcf, rule = written["sets"][0], written["sets"][0]["rules"][ORDER_SIGNAL]
    assert (row["protocol"], row["threshold"], row["accepted"], row["n_test"]) == (
        "pcf", rule["threshold"], pcf["test"]["n_accepted"], pcf["test"]["n"])
    assert row["guarantee"] == pcf["guarantee"]


@pytest.mark.parametrize("args, message", [
    (["--target-agreement", "0.8", "--delta", "1.5"], "--delta must be in (0, 1), got 1.5"),
    (["--target-agreement", "0.8", "--model", "sim,sim2"],
     "--target-agreement judges one judge's verdicts"),
])
def test_bench_refuses_bad_selective_settings_before_any_call(tmp_path, args, message):
    run = tmp_path / "run"
    extra = [] if "--model" in args else ["--model", "sim"]
    result = cli.invoke(app, ["bench", "truthfulqa", "--limit", "4", "--out", str(run),
                              *extra, *args])
    assert result.exit_code == 2 and message in " ".join(result.output.split())
    assert not run.exists()


def test_a_run_with_too_few_labels_stands_and_says_selective_judging_was_not_done(tmp_path):
    # second break-it pass: the run's calls were made, then it exited 2; now the run's own
    # exit code holds and one line says why no rule was calibrated
    result = cli.invoke(app, ["judge", "examples/two.jsonl", "--model", "sim", "--no-cache",
                              "--target-agreement", "0.8", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "selective judging not done:" in out and "1 labelled item(s)" in out
    assert not (tmp_path / "run" / "selective.json").exists()


def test_the_guarantee_counts_the_calibration_items_with_a_verdict():
    # 30 labelled items in calibration, 5 of them failed: calibrated on 25
    labelled = ([_j(i, rate=1.0, credit=1.0) for i in range(50)]
                + [_j(50 + i, rate=None, credit=None, failed=True) for i in range(10)])
    (r,) = selective_judgments(labelled, dataset="d", target=0.8, seed=0)
    cal, _ = split_items(60, 0.5, 0)
    failed_in_cal = int((cal >= 50).sum())
    assert failed_in_cal > 0
    assert r.rules[ORDER_SIGNAL].n_calibration == 30 - failed_in_cal
    from jurybox.cli._selective import _sentence

    assert f"(calibrated on {30 - failed_in_cal} items)" in _sentence(r)
