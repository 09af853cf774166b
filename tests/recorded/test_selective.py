"""Selective judging and cascades on recorded judgments: the confidence signals hand-computed
on a tiny jury, the calibration split, a cascade whose every stage is known, the command's
output and its errors."""

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from jurybox.cli import app
from jurybox.recorded import RecordedItem, Recording
from jurybox.recorded.confidence import jury_signal, named_signal, signal_table
from jurybox.recorded.selective import cascade_split, selective_sets, selective_split
from jurybox.stats.selective import split_items

from .helpers import write_recorded

cli = CliRunner()
ORDERS = ("AB", "BA")
# judge -> per item its two order verdicts; every label is A
TINY = {"X": [("A", "A"), ("A", "B"), ("A", "tie"), (None, None)],
        "Y": [("A", "A"), ("B", "B"), ("A", "A"), ("B", None)],
        "Z": [("B", "A"), ("B", "B"), ("tie", "tie"), ("A", "A")]}


def _recordings(verdicts, labels=None, subset="S", strategy="V"):
    n = len(next(iter(verdicts.values())))
    labels = labels or ["A"] * n
    return [Recording(subset, judge, strategy, ORDERS,
                      tuple(RecordedItem(f"i{k}", labels[k], tuple(v))
                            for k, v in enumerate(vs)), source=f"{judge}.jsonl")
            for judge, vs in verdicts.items()]


def _values(signal):
    return [None if math.isnan(c) else round(c, 4) for c in signal.confidence]


def test_order_agreement_is_the_share_of_orders_naming_the_net_decision():
    s = signal_table(_recordings(TINY)).signals["order:X"]
    # (A, A): A at 1; (A, B): a net tie, named by no order: 0; (A, tie): A at 1/2; unparsed
    assert s.verdicts == ("A", "tie", "A", None)
    assert _values(s) == [1.0, 0.0, 0.5, None]
    assert s.agree.tolist() == [True, False, True, False]


def test_the_jury_is_the_plurality_of_every_order_verdict_and_its_share():
    t = signal_table(_recordings(TINY))
    jury = t.signals["jury"]
    # i1: A 5 of 6 votes; i2: B 5 of 6; i3: A 3, tie 3: no plurality, tie at 0; i4: A 2 of 3
    assert jury.verdicts == ("A", "B", "tie", "A")
    assert _values(jury) == [round(5 / 6, 4), round(5 / 6, 4), 0.0, round(2 / 3, 4)]
    backed = t.signals["jury:X"]  # X's decision, with the jury's share for it
    assert backed.verdicts == ("A", "tie", "A", None)
    assert _values(backed) == [round(5 / 6, 4), 0.0, 0.5, None]
    assert list(t.signals) == ["order:X", "order:Y", "order:Z", "jury", "jury:X", "jury:Y",
                               "jury:Z"]


def test_weights_move_the_jurys_vote():
    t = signal_table(_recordings(TINY))
    weighted = jury_signal(t.judges, t.verdicts, t.labels, weights={"Y": 3})
    # i3: A = 1 (X) + 3 * 2 (Y) = 7 against tie = 1 (X) + 2 (Z): A at 7 / 10
    assert weighted.verdicts[2] == "A" and weighted.confidence[2] == pytest.approx(0.7)


def test_the_split_is_seeded_and_disjoint():
    cal, test = split_items(10, 0.3, seed=4)
    assert len(cal) == 3 and len(test) == 7
    assert sorted(set(cal) | set(test)) == list(range(10))
    assert np.array_equal(cal, split_items(10, 0.3, seed=4)[0])
    with pytest.raises(ValueError, match="share in \\(0, 1\\)"):
        split_items(10, 1.0, seed=0)


def _cascade_data():
    # 60 items, label A; the cheap judge agrees with itself (and is right) on the first 30 and
    # contradicts itself on the rest; the strong judge is right in both orders everywhere
    cheap = [("A", "A")] * 30 + [("A", "B")] * 30
    return signal_table(_recordings({"cheap": cheap, "strong": [("A", "A")] * 60}))


def test_a_cascade_sends_only_the_cheap_judges_unsure_items_to_the_strong_one():
    table = _cascade_data()
    cal, test = split_items(60, 0.5, seed=3)
    sure_test = int((test < 30).sum())
    r = cascade_split(table, ["cheap", "strong"], target=0.8, delta=0.2, seed=3)
    cheap, strong = r.stages
    # each stage at delta 0.1: the cheap judge's self-agreeing calibration items (>= 11 of
    # them, all right) pass at threshold 1, its contradicted ones (net ties) fail; the
    # strong judge is calibrated on what is left and accepts it all
    assert cheap.rule.threshold == 1.0 and cheap.rule.n_accepted == int((cal < 30).sum())
    assert strong.rule.threshold == 1.0 and strong.rule.n_calibration == int((cal >= 30).sum())
    assert (cheap.reached, cheap.accepted, cheap.calls) == (30, sure_test, 60)
    assert (strong.reached, strong.accepted) == (30 - sure_test, 30 - sure_test)
    assert strong.calls == 2 * (30 - sure_test)
    assert (r.test.n, r.test.n_accepted, r.test.agreement) == (30, 30, 1.0)
    assert r.share_reaching(1) == pytest.approx((30 - sure_test) / 30)


def test_one_signal_gets_the_whole_delta_and_several_share_it():
    table = _cascade_data()
    one = selective_split(table, target=0.8, delta=0.2, seed=3, signals=["order:cheap"])
    assert one.rules["order:cheap"].delta == 0.2 and one.signal == "order:cheap"
    every = selective_split(table, target=0.8, delta=0.2, seed=3)
    assert len(every.rules) == 5 and all(r.delta == pytest.approx(0.04)
                                         for r in every.rules.values())
    # the strong judge accepts every calibration item, and so does the jury (3 of 4 votes
    # for A on the cheap judge's contradicted items, all right): the first signal accepting
    # the most is chosen
    assert every.signal == "order:strong" and every.calls_per_item == 2
    assert every.test.coverage == 1.0


def test_nothing_certified_is_said_and_accepts_nothing():
    table = signal_table(_recordings({"coin": [("A", "A"), ("B", "B")] * 15}))
    r = selective_split(table, target=0.9, delta=0.1, seed=0)
    assert r.signal is None and r.test.n_accepted == 0 and r.calls_per_item == 0


def test_sets_are_grouped_by_subset_and_strategy_and_a_missing_stage_is_reported():
    recs = _recordings(TINY, subset="S1") + _recordings({"X": TINY["X"]}, subset="S2")
    results, skipped = selective_sets(recs, target=0.8, cascade=["Y", "X"])
    assert [r.subset for r in results] == ["S1"]
    assert len(skipped) == 1 and skipped[0].startswith("S2 V: cascade stage 'Y'")


def test_the_command_prints_the_table_the_guarantee_and_writes_summary_json(tmp_path):
    verdicts = {"cheap": [("A", "A")] * 30 + [("A", "B")] * 30, "strong": [("A", "A")] * 60}
    path = write_recorded(tmp_path, verdicts, ["A"] * 60)
    result = cli.invoke(app, ["score", str(path), "--target-agreement", "0.8", "--delta",
                              "0.2", "--signal", "order:strong", "--split-seed", "3",
                              "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "target 80% agreement, delta 0.2" in out and "30/30 100%" in out
    assert "with probability at least 80% over the calibration draw" in out
    s = json.loads((tmp_path / "out" / "summary.json").read_text())["selective"]
    (row,) = s["sets"]
    assert row["signal"] == "order:strong" and row["test"]["n_accepted"] == 30
    assert row["guarantee"].startswith("with probability at least 80%")


@pytest.mark.parametrize("args, message", [
    (["--target-agreement", "1"], "--target-agreement must be in (0, 1), got 1"),
    (["--target-agreement", "0.8", "--signal", "nope"], "unknown signal(s) nope"),
    (["--target-agreement", "0.8", "--signal", "jury", "--cascade", "a,b"],
     "give --signal or --cascade, not both"),
    (["--target-agreement", "0.8", "--split-seed", "-1"],
     "--split-seed must be an integer >= 0, got -1"),
    (["--target-agreement", "0.8", "--subset", ""], "--subset names no subset"),
    (["--target-agreement", "0.8", "--out", "__FILE__"], "as the output directory (--out)")])
def test_bad_settings_are_one_line_exit_2(tmp_path, args, message):
    path = write_recorded(tmp_path, TINY, ["A"] * 4)
    args = [str(path) if a == "__FILE__" else a for a in args]  # an existing file as --out
    result = cli.invoke(app, ["score", str(path), *args])
    assert result.exit_code == 2 and message in " ".join(result.output.split())
    assert "┏" not in result.output  # refused before any table


# the second break-it pass (selective judging) ----------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(signal="jury,jury"), "the signal list names jury twice"),
    (dict(signal=","), "the signal list names nothing"),
    (dict(cascade=["X", "X"]), "the cascade names X twice"),
    (dict(cascade=[]), "the cascade names nothing"),
    (dict(signal="bogus"), "no set has what was asked for: S V: unknown signal(s) bogus"),
    (dict(target="0.8"), "target must be a number in (0, 1), got '0.8'"),
    (dict(target=1e-300, delta=2.0), "delta must be a number in (0, 1), got 2.0"),
    (dict(seed=1.5), "the split's seed must be an integer >= 0, got 1.5"),
])
def test_bad_selective_requests_are_errors_never_an_empty_answer(kwargs, message):
    settings = {"target": 0.8, **kwargs}
    with pytest.raises(ValueError, match=message.replace("(", "\\(").replace(")", "\\)")):
        selective_sets(_recordings(TINY), **settings)


def test_a_stage_naming_a_judge_twice_is_that_judge_once():
    table = _cascade_data()
    twice = cascade_split(table, ["cheap+cheap", "strong"], target=0.8, delta=0.2, seed=3)
    once = cascade_split(table, ["cheap", "strong"], target=0.8, delta=0.2, seed=3)
    assert [s.calls for s in twice.stages] == [s.calls for s in once.stages]
    assert twice.test == once.test


def test_a_judges_own_signal_keeps_the_items_other_judges_skipped():
    # "big" judged 20 items, "small" only the even ones: order:big is calibrated on 10 of 20
    big = {f"i{k}": ("A", "A") for k in range(20)}
    recs = [Recording("S", "big", "V", ORDERS, tuple(
                RecordedItem(i, "A", v) for i, v in big.items())),
            Recording("S", "small", "V", ORDERS, tuple(
                RecordedItem(f"i{k}", "A", ("A", "A")) for k in range(0, 20, 2)))]
    (alone,), _ = selective_sets(recs, target=0.8, signal="order:big")
    (jury,), _ = selective_sets(recs, target=0.8, signal="jury")
    assert (alone.n_calibration, alone.test.n) == (10, 10)
    assert (jury.n_calibration, jury.test.n) == (5, 5)  # the jury needs both: 10 shared


def test_the_guarantee_never_rounds_the_target_or_the_confidence_up():
    from jurybox.stats.selective import guarantee_text

    text = guarantee_text(0.855, 0.001, "jury", 100)
    assert "at least 99.9% over the calibration draw" in text and "at least 85.5% of" in text


def test_lex_ranks_a_judge_whose_orders_agree_above_the_jury_elsewhere():
    table = signal_table(_recordings(TINY))
    assert "lex:X" not in table.signals  # built when named: auto does not split delta over it
    lex = named_signal(table, "lex:X")
    # i1: X (A, A) agrees with itself: A, the jury's 5 of 6 for it, at (1 + 5/6) / 2;
    # i2: X contradicts itself: the jury's plurality B at 5/6 / 2; i3: X (A, tie), not all
    # orders alike: the jury ties, "tie" at 0; i4: X unparsed: the jury's A at 2/3 / 2
    assert lex.verdicts == ("A", "B", "tie", "A")
    assert _values(lex) == [round((1 + 5 / 6) / 2, 4), round(5 / 12, 4), 0.0, round(1 / 3, 4)]
    assert lex.agree.tolist() == [True, False, False, True]
    assert named_signal(table, "lex:nobody") is None
    assert named_signal(table, "X+Y").name == "jury:X+Y"
    one = selective_split(table, target=0.5, delta=0.5, calibration_share=0.5, seed=0,
                          signals=["lex:X"])
    assert list(one.rules) == ["lex:X"]


def _cascade_table():
    # 80 items, label A. cheap: both orders right (conf 1) on 0-39, a wrong B then a tie
    # (conf 0.5) on 40-59, no verdict on 60-79; strong: right wherever its orders agree
    # (40-79, conf 1), its orders split on 0-39 (a net tie: wrong, conf 0)
    cheap = [("A", "A")] * 40 + [("B", "tie")] * 20 + [(None, None)] * 20
    strong = [("A", "B")] * 40 + [("A", "A")] * 40
    return signal_table(_recordings({"cheap": cheap, "strong": strong}))


def test_a_joint_cascade_lets_the_cheap_stage_take_what_the_guarantee_allows():
    table = _cascade_table()
    per = cascade_split(table, ["cheap", "strong"], target=0.8, delta=0.2, seed=0)
    joint = cascade_split(table, ["cheap", "strong"], target=0.8, delta=0.2, seed=0,
                          rule="joint")
    assert (per.rule, joint.rule) == ("per-stage", "joint")
    cal, test = split_items(80, 0.5, 0)
    sure = int((test < 40).sum())  # test items the cheap judge is sure of
    # either rule: the cheap stage takes its sure items (at 0.5 its wrong ones would join:
    # a quarter of what is accepted disagrees, the test fails); the strong stage the rest,
    # where its orders agree: every test item accepted, all right
    for r in (per, joint):
        assert (r.stages[0].accepted, r.stages[1].reached) == (sure, len(test) - sure)
        assert r.stages[1].accepted == len(test) - sure
        assert r.test.n_accepted == len(test) and r.test.agreement == 1.0
    assert joint.joint.thresholds == (1.0, 1.0) and joint.joint.certified
    # the joint path: strong at its top alone, cheap at 1 (passes), cheap at 0.5 (fails)
    assert [t[0] for t in joint.joint.tested] == [(None, 1.0), (1.0, 1.0), (0.5, 1.0)]
    assert joint.joint.tested[-1][3] > 0.2
    assert joint.stages[0].rule.threshold == 1.0 and joint.stages[0].rule.upper_bound is None
    assert per.stages[0].rule.delta == 0.1  # delta / 2 stages
    auto = cascade_split(table, ["cheap", "strong"], target=0.8, delta=0.2, seed=0,
                         rule="auto")
    assert auto.delta == 0.2 and auto.test.n_accepted == len(test)
    # both accept every calibration item: the tie goes to the one sending fewer to the
    # strong stage (the same here), and the joint rule is tried first
    assert auto.rule == "joint" and auto.joint.delta == 0.1
    with pytest.raises(ValueError, match="per-stage, joint or auto"):
        cascade_split(table, ["cheap", "strong"], target=0.8, delta=0.2, rule="both")


def test_the_cascade_rule_option_is_checked_and_reaches_the_table(tmp_path):
    path = write_recorded(tmp_path, {"a": TINY["X"], "b": TINY["Y"]}, ["A"] * 4)
    result = cli.invoke(app, ["score", str(path), "--target-agreement", "0.8",
                              "--cascade-rule", "joint"])
    assert result.exit_code == 2 and "give --cascade too" in result.output
    result = cli.invoke(app, ["score", str(path), "--target-agreement", "0.8", "--cascade",
                              "a,b", "--cascade-rule", "all"])
    assert result.exit_code == 2 and "--cascade-rule is per-stage, joint, auto" in result.output
    result = cli.invoke(app, ["score", str(path), "--target-agreement", "0.8", "--cascade",
                              "a,b", "--cascade-rule", "joint"])
    assert result.exit_code == 0, result.output
    assert "delta 0.1 for the whole cascade (joint)" in " ".join(result.output.split())


def test_the_cli_knows_the_librarys_cascade_rules():
    from jurybox.cli._selective import CASCADE_RULES as cli_rules
    from jurybox.recorded.selective import CASCADE_RULES

    assert cli_rules == CASCADE_RULES


def test_a_probability_signal_needs_only_its_judge(tmp_path):
    from jurybox.recorded.selective import _judges_needed

    assert _judges_needed(["probability:X", "order:Y"], ["X", "Y", "Z"]) == ["X", "Y"]
    assert _judges_needed(["lex:X"], ["X", "Y", "Z"]) == ["X", "Y", "Z"]


def test_jury_weights_count_by_their_ratios_whatever_their_scale():
    votes = {j: v for j, v in TINY.items()}
    labels = ["A"] * 4
    one = jury_signal(["X", "Y", "Z"], votes, labels, weights={"X": 1, "Y": 1, "Z": 1})
    huge = jury_signal(["X", "Y", "Z"], votes, labels,
                       weights={"X": 1e308, "Y": 1e308, "Z": 1e308})
    assert one.verdicts == huge.verdicts and _values(one) == _values(huge)


def test_the_joint_rule_lowers_the_stage_nearest_the_strongest_first():
    from jurybox.stats.joint_cascade import calibrate_cascade

    # three stages on 40 items: a weak first stage (conf 1, always wrong), a good middle one
    # (conf 1, right), the strongest (conf 1, right); the weak stage's first test fails, but
    # only after the middle one has been lowered and kept
    n = 40
    weak, good, strong = np.ones(n), np.ones(n), np.ones(n)
    agree = [np.zeros(n, bool), np.ones(n, bool), np.ones(n, bool)]
    c = calibrate_cascade([weak, good, strong], agree, np.arange(n), target=0.8, delta=0.1)
    assert [t[0] for t in c.tested] == [(None, None, 1.0), (None, 1.0, 1.0), (1.0, 1.0, 1.0)]
    assert c.thresholds == (None, 1.0, 1.0) and c.n_accepted == n and c.n_disagree == 0


def test_the_cascade_rule_is_checked_once_up_front():
    recs = _recordings(TINY)
    with pytest.raises(ValueError, match="^the cascade rule is per-stage, joint or auto"):
        selective_sets(recs, target=0.8, cascade=["X", "Y"], cascade_rule="JOINT")
    with pytest.raises(ValueError, match="give a cascade too"):
        selective_sets(recs, target=0.8, cascade_rule="joint")
