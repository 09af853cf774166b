"""The leaderboard's Bradley-Terry adjusted for the judge's position bias (first-shown term)."""

import math

import pytest

from jurybox.leaderboard import leaderboard
from jurybox.ranking import ELO_PER_LOGIT, Comparison, Comparisons, OrderVerdict


def _both_orders() -> Comparisons:
    # A shown first: A wins 9 of 10; B shown first: A wins 5 of 10 (hand-solved: the first
    # shown gains ln(9)/2 = 1.0986 logits and A is ln(9)/2 above B, 190.85 Elo)
    rows = []
    for p in range(10):
        y1, y2 = float(p < 9), float(p < 5)
        rows.append(Comparison(f"p{p}", "A", "B", (y1 + y2) / 2,
                               orders=(OrderVerdict("A", y1), OrderVerdict("B", y2))))
    return Comparisons.of(rows)


def test_both_orders_give_the_adjusted_score_the_bias_and_a_note():
    board = leaderboard(_both_orders(), "B", rounds=50, length_controlled=False)
    a = next(r for r in board.systems if r.name == "A")
    assert a.bt == pytest.approx(1000 + ELO_PER_LOGIT * math.log(0.7 / 0.3), abs=1e-3)  # 1147.19
    assert a.bt_adjusted == pytest.approx(1000 + ELO_PER_LOGIT * math.log(9) / 2, abs=1e-3)
    summary = board.as_dict()
    assert summary["first_shown"]["logits"] == pytest.approx(1.098612, abs=1e-5)
    assert [s["bt_adjusted"] for s in summary["systems"] if s["name"] == "A"] == [
        pytest.approx(1190.8485, abs=1e-3)]
    note = next(n for n in board.notes if n.startswith("position bias"))
    assert "+1.10 logits (+191 Elo; 95% CI" in note


def test_one_fixed_order_cannot_separate_the_bias_so_none_is_fitted():
    # A always shown first: the first-shown advantage is confounded with A's score
    rows = [Comparison(f"p{p}", "A", "B", float(p < 7), orders=(OrderVerdict("A", float(p < 7)),))
            for p in range(10)]
    board = leaderboard(Comparisons.of(rows), "B", rounds=20, length_controlled=False)
    assert board.adjusted is None and board.as_dict()["first_shown"] is None
    assert all(r.bt_adjusted is None for r in board.systems)
    assert not any(n.startswith("position bias") for n in board.notes)


def test_the_page_shows_the_adjusted_score_only_when_it_was_fitted():
    from jurybox.reports.leaderboard import render_leaderboard

    fitted = leaderboard(_both_orders(), "B", rounds=50, length_controlled=False).as_dict()
    page = render_leaderboard(fitted, title="t", what="w")
    assert "BT, adjusted for position bias" in page
    assert '<td class="num">1191</td>' in page  # A: 1190.85, hand-solved above
    rows = [Comparison(f"p{p}", "A", "B", float(p < 7), orders=(OrderVerdict("A", float(p < 7)),))
            for p in range(10)]
    fixed = leaderboard(Comparisons.of(rows), "B", rounds=20, length_controlled=False).as_dict()
    assert "adjusted for position bias" not in render_leaderboard(fixed, title="t", what="w")
