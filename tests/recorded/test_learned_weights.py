"""Jury rules out of sample on recorded judgments: learned (log-odds) weights, one-coin
Dawid-Skene, the best judge, a strict majority; and the weight estimators themselves."""

import math

import numpy as np
import pytest

from jurybox.recorded import RecordedItem, Recording
from jurybox.recorded.confidence import signal_table
from jurybox.recorded.learned import jury_rules_split
from jurybox.stats.selective import split_items
from jurybox.stats.jury_weights import effective_judges, log_odds_weights, one_coin_dawid_skene

from .helpers import write_recorded


def _table(verdicts, labels):
    return signal_table([Recording("S", j, "V", ("AB", "BA"), tuple(
        RecordedItem(f"i{k}", labels[k], v) for k, v in enumerate(vs)))
        for j, vs in verdicts.items()])


def _other(label):
    return "B" if label == "A" else "A"


def test_two_wrong_judges_outvote_a_right_one_until_the_weights_are_learned():
    labels = ["A", "B"] * 10
    right = [(x, x) for x in labels]
    wrong = [(_other(x), _other(x)) for x in labels]
    r = jury_rules_split(_table({"good": right, "bad1": wrong, "bad2": wrong}, labels),
                         seed=0)
    assert (r.n_train, r.n_test) == (10, 10) and r.judges == ("bad1", "bad2", "good")
    # Laplace: good is right on 10 of 10 calibration items, p = 11 / 12, weight ln 11; the
    # bad judges p = 1 / 12, below chance: weight 0
    assert r.weights["learned"] == pytest.approx((0.0, 0.0, math.log(11)))
    assert r.accuracy["unweighted"] == 0.0 and r.accuracy["learned"] == 1.0
    assert r.best_judge == "good" and r.accuracy["best judge"] == 1.0
    # without labels, agreement is all Dawid-Skene sees: the two who agree are fitted right
    assert r.accuracy["dawid-skene"] == 0.0
    assert r.strict == (1.0, 0.0)  # 2 of 3 agree on every item: decided, and wrong
    # no judge's errors vary, so no correlation can be measured: worth 3
    assert r.effective_judges == 3.0


def test_a_tie_or_unparsed_decision_is_wrong_and_an_undecided_item_is_left_out():
    labels = ["A"] * 12
    table = _table({"x": [("A", "A"), ("A", "B"), (None, None)] * 4,
                    "y": [("A", "A"), ("B", "A"), (None, None)] * 4}, labels)
    r = jury_rules_split(table, calibration_share=0.5, seed=1)
    _, test = split_items(12, 0.5, 1)
    # per test item: (A, A) right; (A, B) a net tie, wrong; unparsed: no decision, left out
    right = sum(1 for i in test if i % 3 == 0)
    decided = sum(1 for i in test if i % 3 != 2)
    assert decided > right > 0
    assert r.accuracy["judge:x"] == r.accuracy["unweighted"] == pytest.approx(right / decided)


def test_dawid_skene_recovers_simulated_accuracies():
    rng = np.random.default_rng(0)
    acc = np.array([0.9, 0.8, 0.7, 0.6, 0.55])
    y = rng.integers(0, 2, 3000)
    right = rng.random((3000, 5)) < acc
    votes = np.where(right, y[:, None], 1 - y[:, None]).astype(float)
    votes[rng.random(votes.shape) < 0.1] = np.nan
    fit = one_coin_dawid_skene(votes)
    assert fit.converged and np.allclose(fit.accuracy, acc, atol=0.03)
    assert ((fit.posterior > 0.5) == y).mean() > 0.88


def test_log_odds_weights_leave_out_missing_decisions():
    c = np.array([[1, np.nan], [1, 1], [0, 1], [np.nan, 1]])
    # judge 1: 2 of 3, p = 3 / 5; judge 2: 3 of 3, p = 4 / 5
    assert log_odds_weights(c) == pytest.approx([math.log(1.5), math.log(4)])


def test_effective_judges_from_equicorrelated_errors():
    # n / (1 + (n - 1) * r), r the mean pairwise Pearson correlation of the error columns
    e = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]], float)
    r = np.corrcoef(e.T)[np.triu_indices(3, 1)].mean()
    assert effective_judges(e) == pytest.approx(3 / (1 + 2 * r))
    assert 1.0 <= effective_judges(e) <= 3.0


def test_the_command_averages_the_rules_over_seeded_splits(tmp_path):
    import json

    from typer.testing import CliRunner

    from jurybox.cli import app

    labels = ["A", "B"] * 10
    right = [(x, x) for x in labels]
    wrong = [(_other(x), _other(x)) for x in labels]
    path = write_recorded(tmp_path, {"good": right, "bad1": wrong, "bad2": wrong}, labels)
    result = CliRunner().invoke(app, ["score", str(path), "--learn-weights", "--splits", "3",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    (row,) = json.loads((tmp_path / "out" / "summary.json").read_text())["learned"]
    # every split: as in the single-split test above, whatever the items drawn
    assert row["accuracy"] == {"unweighted": 0.0, "learned": 1.0, "dawid-skene": 0.0,
                               "best judge": 1.0}
    assert (row["strict_coverage"], row["effective_judges"], row["best_judge"]) == (
        1.0, 3.0, "good")
    assert row["learned_weights"]["good"] == pytest.approx(math.log(11))
    assert "jury rules out of sample" in result.output


@pytest.mark.parametrize("args, message", [
    (["--learn-weights", "--target-agreement", "0.8"],
     "give --learn-weights or --target-agreement, not both"),
    (["--learn-weights", "--judge", "good"], "no set here was judged by two or more judges"),
])
def test_learn_weights_errors_are_one_line_exit_2(tmp_path, args, message):
    from typer.testing import CliRunner

    from jurybox.cli import app

    labels = ["A", "B"] * 10
    path = write_recorded(tmp_path, {"good": [(x, x) for x in labels],
                             "bad": [(_other(x), _other(x)) for x in labels]}, labels)
    result = CliRunner().invoke(app, ["score", str(path), *args])
    assert result.exit_code == 2 and message in " ".join(result.output.split())
