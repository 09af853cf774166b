import pytest

from jurybox.parsing import CandidateJudgment, ListwiseJudgment
from jurybox.protocols import RunView, Weights, consensus, credit, run_view, winners

# Hand-worked example, n = 3 candidates, K' = 3 runs (candidate-indexed):
#   run 1: scores (80, 60, 40), ranks (1, 2, 3), uncertain (F, F, T)
#   run 2: scores (70, 70, 50), ranks (2, 1, 3), uncertain (F, F, F)   <- 0 and 1 tie on score
#   run 3: scores (50, 90, 30), ranks (2, 1, 3), uncertain (F, T, T)
# mean   = (200/3, 220/3, 40)
# Borda  = 100/(3*2) * sum(n - r) = 100/6 * (4, 5, 0) = (66.667, 83.333, 0)
# vote   = run1 {0}: 1/3 to 0; run2 {0,1}: 1/6 each; run3 {1}: 1/3 to 1 -> (0.5, 0.5, 0)
# unc    = (0, 1/3, 2/3)
# C_0 = .5*66.667 + .25*66.667 + .2*50 + .05*0      = 60.0
# C_1 = .5*73.333 + .25*83.333 + .2*50 + .05*33.333 = 69.1667
# C_2 = .5*40     + 0          + 0     + .05*66.667 = 23.3333
RUNS = [RunView((0, 1, 2), (80, 60, 40), (1, 2, 3), (False, False, True)),
        RunView((1, 2, 0), (70, 70, 50), (2, 1, 3), (False, False, False)),
        RunView((2, 0, 1), (50, 90, 30), (2, 1, 3), (False, True, True))]


def test_consensus_on_hand_worked_three_runs():
    agg = consensus(RUNS)
    assert agg.mean == pytest.approx((200 / 3, 220 / 3, 40))
    assert agg.borda == pytest.approx((400 / 6, 500 / 6, 0))
    assert agg.vote == pytest.approx((0.5, 0.5, 0))
    assert agg.uncertainty == pytest.approx((0, 1 / 3, 2 / 3))
    assert agg.combined == pytest.approx((60.0, 69.1666667, 23.3333333))
    assert winners(agg.combined) == (1,)


def test_custom_weights():
    agg = consensus(RUNS, weights=Weights(mean=1, borda=0, vote=0, uncertainty=0))
    assert agg.combined == pytest.approx(agg.mean)


def test_tie_credit_within_tolerance():
    won = winners((50.0, 50.3, 20.0), tolerance=0.5)
    assert won == (0, 1)
    assert credit(won, {0}) == 0.5
    assert credit(won, {2}) == 0.0
    assert winners((50.0, 50.6, 20.0), tolerance=0.5) == (1,)


def test_run_view_maps_shown_labels_back_to_candidates():
    # shown order (2, 0, 1): label A showed candidate 2, B -> 0, C -> 1
    flags = dict(major_factual_error=False, hallucinated_specificity=False)
    j = ListwiseJudgment(("A", "B", "C"), {
        "A": CandidateJudgment(10, calibrated_uncertainty=True, **flags),
        "B": CandidateJudgment(90, calibrated_uncertainty=False, **flags),
        "C": CandidateJudgment(50, calibrated_uncertainty=False, **flags)},
        ("B", "C", "A"), "")
    view = run_view(j, (2, 0, 1))
    assert view.scores == (90, 50, 10)
    assert view.ranks == (1, 2, 3)
    assert view.uncertain == (False, False, True)
    assert view.top == 0 and view.order.index(view.top) == 1


def test_consensus_needs_a_run():
    with pytest.raises(ValueError):
        consensus([])


INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("values", [
    (0, 0, 0, 0), (-1, 1, 0, 0),            # negative or zero sum: refused as before
    (INF, 1, 1, 1), (1, 1, 1, -INF),         # inf made every C_i inf: every candidate won
    (NAN, 1, 1, 1), (1, 1, NAN, 0),          # NaN made C_i NaN: credit crashed mid-run
    (1e308, 1e308, 0, 0),                    # finite, but 100 x the sum overflows C_i
])
def test_weights_must_be_finite_non_negative_with_a_positive_sum(values):
    with pytest.raises(ValueError, match=r"weights must be finite numbers >= 0 with a "
                                         r"positive sum \(mean, borda, vote, uncertainty\), "
                                         r"got \("):
        Weights(*values)


def test_zero_weights_are_allowed_when_some_are_positive():
    assert Weights(1, 0, 0, 0).mean == 1


@pytest.mark.parametrize("name", ["pcf", "direct"])
@pytest.mark.parametrize("tolerance", [NAN, INF, -0.5])
def test_build_protocol_refuses_a_non_finite_or_negative_tolerance(name, tolerance):
    from jurybox.errors import ConfigError
    from jurybox.protocols import build_protocol

    with pytest.raises(ConfigError, match=rf"protocol '{name}': tolerance must be a finite "
                                          rf"number >= 0 points, got {tolerance!r}"):
        build_protocol(name, tolerance=tolerance)
    assert build_protocol(name, tolerance=0.0).params()["tolerance"] == 0.0  # 0 is allowed


def test_build_protocol_refuses_weights_that_are_not_weights():
    from jurybox.errors import ConfigError
    from jurybox.protocols import build_protocol

    with pytest.raises(ConfigError, match=r"protocol 'pcf': weights must be a Weights"):
        build_protocol("pcf", weights=(INF, 1, 1, 1))
