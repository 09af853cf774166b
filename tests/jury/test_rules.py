"""The jury's decision rules (jurybox.jury.rules), on hand-computed cases."""

import math

import pytest

from jurybox.jury import check_weights, jury_listwise, jury_pairwise


def test_the_weighted_vote_counts_tie_votes_as_an_option():
    vote = jury_pairwise(["tie", "tie", "A"], [1, 1, 1.5])
    assert vote.decision == "tie" and vote.weights == {"A": 1.5, "B": 0.0, "tie": 2.0}
    assert jury_pairwise(["tie", "A"], [1, 1.5]).decision == "A"


def test_a_failed_judge_has_no_vote_and_a_zero_weight_judge_never_moves_the_jury():
    assert jury_pairwise([None, "B"], [5, 1]) == ("B", {"A": 0.0, "B": 1.0, "tie": 0.0}, 1)
    assert jury_pairwise(["A", "B"], [0, 1]).decision == "B"
    assert jury_listwise([[10, 90], [90, 10]], [0, 1]) == ((90.0, 10.0), (0,))
    assert jury_listwise([None, [10, 90]], [1, 0]) is None


def test_the_weighted_mean_of_c_i_and_its_winners_within_the_tolerance():
    # (2*70 + 1*40) / 3 = 60, (2*30 + 1*59) / 3 = 39.67, (2*69 + 1*42) / 3 = 60
    mean, won = jury_listwise([[70, 30, 69], [40, 59, 42]], [2, 1], tolerance=0.5)
    assert mean == pytest.approx((60.0, 119 / 3, 60.0)) and won == (0, 2)
    assert jury_listwise([[70, 30, 69], [40, 59, 42]], [2, 1], tolerance=0.0)[1] == (0, 2)


@pytest.mark.parametrize("weights, message", [
    ([], "at least one judge"), ([1, -1], "judge 2's weight must be a finite number >= 0"),
    ([math.nan], "got nan"), ([math.inf], "got inf"), ([True], "got True"),
    (["1"], "got '1'"), ([0, 0.0], "all 0"),
])
def test_bad_weights_are_refused(weights, message):
    with pytest.raises(ValueError, match=message):
        check_weights(weights)


def test_bad_decisions_and_shapes_are_refused():
    with pytest.raises(ValueError, match="a decision is 'A', 'B', 'tie' or None, got 'A>B'"):
        jury_pairwise(["A>B"], [1])
    with pytest.raises(ValueError, match="2 decisions for 1 judges"):
        jury_pairwise(["A", "B"], [1])
    with pytest.raises(ValueError, match="different numbers of candidates"):
        jury_listwise([[1, 2], [1, 2, 3]], [1, 1])
